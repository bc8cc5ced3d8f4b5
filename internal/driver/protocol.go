package driver

import (
	"fmt"
	"github.com/kafkabook/kafkabook/internal/driver/wire"
	"math"
)

// A driver is code kafkabook runs but did not write the client of, and its
// report is the evidence: every line is checked before it is believed.
// A line that breaks the protocol (docs/driver-protocol.md) ends the step
// with an error naming the driver and the line; the messages it had not
// reported on are then counted unknown (Producer.unreported), never
// dropped.

// protocolErr is a protocol error on the driver's current line.
func (p *Producer) protocolErr(format string, a ...any) error {
	return fmt.Errorf("%s driver broke the protocol: line %d: %s", p.startup.Client, p.line, fmt.Sprintf(format, a...))
}

// checkSend checks a producer_send_success or producer_send_error line:
// a message the driver was given, not reported on before (exactly one
// outcome each), on a real partition at a real offset when it succeeded
// (-1, none, for acks=0), and answered no earlier than it was due (a
// send error may have no answer time: 0).
func (p *Producer) checkSend(ev *wire.Event, seen []bool) error {
	i := ev.N - int64(p.spec.From)
	switch {
	case i < 0 || i >= int64(len(seen)):
		return p.protocolErr("message %d is not one it was given (%d to %d)", ev.N, p.spec.From, p.spec.From+len(seen)-1)
	case seen[i]:
		return p.protocolErr("a second outcome (%s) for message %d: each message has exactly one", ev.Name, ev.N)
	case ev.IntendedNS < 0 || (ev.AckNS < ev.IntendedNS && !(ev.Name == wire.SendError && ev.AckNS == 0)):
		// A send error's ack_ns is 0 when no answer came (a send the
		// stop left unknown).
		return p.protocolErr("message %d: intended_ns %d, ack_ns %d: the outcome cannot come before the send was due", ev.N, ev.IntendedNS, ev.AckNS)
	case ev.Partition < -1 || ev.Offset < -1:
		return p.protocolErr("message %d: partition %d, offset %d: neither is below -1 (none)", ev.N, ev.Partition, ev.Offset)
	case ev.Name == wire.Success && ev.Partition < 0:
		return p.protocolErr("message %d succeeded on no partition (%d)", ev.N, ev.Partition)
	}
	return nil
}

// checkTxn checks a transaction_end line: its records are messages the
// driver was given, as a range that cannot make kafkabook loop past them,
// and it ends a transaction after the last one that ended.
func (p *Producer) checkTxn(ev *wire.Event, t *txnRecords) error {
	from, to := int64(p.spec.From), int64(p.spec.From+p.spec.Count)
	switch {
	case ev.Count < 0 || (ev.Count > 0 && (ev.First < from || ev.First > to || ev.Count > to-ev.First)):
		// A transaction of no records (its start failed) may name any first.
		return p.protocolErr("transaction %d: records %d to %d are not all messages it was given (%d to %d)", ev.Txn, ev.First, ev.First+ev.Count-1, from, to-1)
	case ev.Txn <= int64(t.last) || ev.Txn > math.MaxInt32:
		return p.protocolErr("transaction %d after transaction %d: transactions are numbered 1, 2, … in order", ev.Txn, t.last)
	}
	return nil
}

// checkShutdown checks shutdown_complete: the messages sent are between
// those it reported on and those it was given.
func (p *Producer) checkShutdown(ev *wire.Event, seen []bool) error {
	reported := 0
	for _, ok := range seen {
		if ok {
			reported++
		}
	}
	if ev.Sent < int64(reported) || ev.Sent > int64(len(seen)) {
		return p.protocolErr("sent %d, but it reported on %d of the %d messages it was given", ev.Sent, reported, len(seen))
	}
	if ev.MaxLagNS < 0 {
		return p.protocolErr("max_lag_ns %d", ev.MaxLagNS)
	}
	return nil
}
