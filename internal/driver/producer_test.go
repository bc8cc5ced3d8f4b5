package driver

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// fake is a driver that runs a shell script instead of a client.
func fake(script string) Driver {
	return Driver{Ref: Ref{Client: "fake"}, Argv: []string{"sh", "-c", script}}
}

const startupLine = `echo '{"name":"startup_complete","client":"fake","library":"sh","version":"1","config":{"acks":"-1","x":null}}'`

func TestStartupErrorShowsStderr(t *testing.T) {
	d := fake(`read spec; echo 'the client said why' >&2; echo '{"name":"startup_error","exception":"ConfigException","message":"bad acks"}'; exit 2`)
	_, err := d.StartProducer(context.Background(), Spec{Topic: "t", Count: 1})
	if err == nil || !strings.Contains(err.Error(), "bad acks") || !strings.Contains(err.Error(), "the client said why") {
		t.Fatalf("got %v, want the startup error and the driver's stderr", err)
	}
}

func TestStartupTimeout(t *testing.T) {
	old := StartTimeout
	StartTimeout = 300 * time.Millisecond
	defer func() { StartTimeout = old }()
	begin := time.Now()
	_, err := fake(`read spec; echo 'stuck' >&2; sleep 60`).StartProducer(context.Background(), Spec{Topic: "t"})
	if err == nil || !strings.Contains(err.Error(), "no startup_complete") || !strings.Contains(err.Error(), "stuck") {
		t.Fatalf("got %v, want a startup timeout with the driver's stderr", err)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("the stuck driver took %v to be killed", took)
	}
}

// TestCrashReportsUnknown: a driver that dies mid-run fails the run, and
// every message it took without reporting on is unknown.
func TestCrashReportsUnknown(t *testing.T) {
	d := fake(`read spec; ` + startupLine + `; read start
echo '{"name":"producer_send_success","n":5,"topic":"t","partition":0,"offset":7,"key":null,"value":"m-005","intended_ns":0,"ack_ns":1000000}'
echo '{"name":"producer_send_error","n":6,"topic":"t","partition":-1,"offset":-1,"class":"failed","error":"NOT_ENOUGH_REPLICAS","exception":"E","message":"too few","key":null,"value":"m-006","intended_ns":0,"ack_ns":2000000}'
kill -9 $$`)
	p, err := d.StartProducer(context.Background(), Spec{Topic: "t", From: 5, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if st := p.Startup(); st.Config["acks"] != "-1" || st.Version != "1" {
		t.Errorf("startup %+v", st)
	}
	got := map[int]Result{}
	_, err = p.Run(context.Background(), func(r Result) { got[r.Num] = r })
	if err == nil || !strings.Contains(err.Error(), "without shutdown_complete") {
		t.Errorf("Run: %v, want an error for the missing shutdown_complete", err)
	}
	if r := got[5]; r.Status != results.StatusOK || r.Offset != 7 || r.Done.Sub(r.Intended) != time.Millisecond {
		t.Errorf("m-005: %+v", r)
	}
	if r := got[6]; r.Status != results.StatusFailed || r.Err != "NOT_ENOUGH_REPLICAS: too few" || r.Offset != -1 {
		t.Errorf("m-006: %+v", r)
	}
	if r := got[7]; r.Status != results.StatusUnknown || !r.Done.IsZero() {
		t.Errorf("m-007: %+v, want unknown with no done time", r)
	}
}

// TestStopClosesStdin: ending ctx closes the driver's stdin, and the
// driver's last word counts.
func TestStopClosesStdin(t *testing.T) {
	d := fake(`read spec; ` + startupLine + `; read start; cat >/dev/null
echo '{"name":"shutdown_complete","sent":0,"max_lag_ns":0}'`)
	p, err := d.StartProducer(context.Background(), Spec{Topic: "t", Count: 2, Rate: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	n := 0
	stats, err := p.Run(ctx, func(Result) { n++ })
	if err != nil || stats.Sent != 0 || n != 0 {
		t.Errorf("Run: %v, %+v, %d results; want no error, nothing sent, no results", err, stats, n)
	}
}

// TestLyingDriver: a driver whose report breaks the protocol ends its
// step with an error naming it and the line, and every message it was
// given still gets exactly one outcome: what it reported before the lie,
// unknown for the rest, none dropped.
func TestLyingDriver(t *testing.T) {
	ok := func(n, partition, offset, intended, ack int) string {
		return fmt.Sprintf(`echo '{"name":"producer_send_success","n":%d,"topic":"t","partition":%d,"offset":%d,"intended_ns":%d,"ack_ns":%d}'`, n, partition, offset, intended, ack)
	}
	failed := `echo '{"name":"producer_send_error","n":1,"topic":"t","partition":-1,"offset":-1,"class":"failed","error":"E","message":"m","intended_ns":0,"ack_ns":5}'`
	for _, c := range []struct {
		name, lines, want string
		count             int // messages given, from 1
	}{
		{"two outcomes", ok(1, 0, 0, 0, 5) + "\n" + failed, "line 3: a second outcome (producer_send_error) for message 1", 3},
		{"negative sent", ok(1, 0, 0, 0, 5) + "\n" + `echo '{"name":"shutdown_complete","sent":-5,"max_lag_ns":0}'`, "sent -5, but it reported on 1 of the 3", 3},
		{"sent beyond", `echo '{"name":"shutdown_complete","sent":9,"max_lag_ns":0}'`, "sent 9, but it reported on 0 of the 3", 3},
		{"negative partition", ok(1, -7, 0, 0, 5), "partition -7, offset 0", 3},
		{"no partition", ok(1, -1, 0, 0, 5), "succeeded on no partition", 3},
		{"negative offset", ok(1, 0, -9, 0, 5), "partition 0, offset -9", 3},
		{"wrapped partition", `echo '{"name":"producer_send_success","n":1,"partition":4294967296,"offset":0,"intended_ns":0,"ack_ns":5}'`, "line 2: driver wrote a line that is not a protocol event", 3},
		{"ack before due", ok(1, 0, 0, 100, 50), "intended_ns 100, ack_ns 50", 3},
		{"success with no ack time", ok(1, 0, 0, 100, 0), "intended_ns 100, ack_ns 0", 3},
		{"not given", ok(4, 0, 0, 0, 5), "message 4 is not one it was given (1 to 3)", 3},
		{"invalid JSON", `echo '{"name":"producer_send_success","n":01,"partition":0}'`, "not a protocol event", 3},
		{"huge transaction", `echo '{"name":"transaction_end","txn":1,"first":1,"count":1000000000000000000,"outcome":"committed"}'`, "records 1 to 1000000000000000000 are not all messages it was given", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := fake(`read spec; ` + startupLine + "; read start\n" + c.lines + "\ncat >/dev/null")
			spec := Spec{Topic: "t", From: 1, Count: c.count}
			if strings.Contains(c.lines, "transaction_end") {
				spec.TransactionalID = "tx"
			}
			p, err := d.StartProducer(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int][]Result{}
			_, err = p.Run(context.Background(), func(r Result) { got[r.Num] = append(got[r.Num], r) })
			if err == nil || !strings.Contains(err.Error(), "fake driver") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Run: %v; want a protocol error saying %q", err, c.want)
			}
			for n := 1; n <= c.count; n++ {
				if len(got[n]) != 1 {
					t.Errorf("message %d: %d outcomes %+v, want exactly one", n, len(got[n]), got[n])
				}
			}
		})
	}
}

// TestStoppedSendHasNoAckTime: a send error without an answer time
// (ack_ns 0, what a driver reports for a send the stop left unknown) is
// the protocol, not a lie.
func TestStoppedSendHasNoAckTime(t *testing.T) {
	d := fake(`read spec; ` + startupLine + `; read start
echo '{"name":"producer_send_error","n":1,"topic":"t","partition":-1,"offset":-1,"class":"unknown","error":"E","message":"stopped","intended_ns":1500,"ack_ns":0}'
echo '{"name":"shutdown_complete","sent":1,"max_lag_ns":0}'
cat >/dev/null`)
	p, err := d.StartProducer(context.Background(), Spec{Topic: "t", From: 1, Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []Result
	if _, err := p.Run(context.Background(), func(r Result) { got = append(got, r) }); err != nil {
		t.Errorf("Run: %v, want no error", err)
	}
	if len(got) != 1 || got[0].Status != results.StatusUnknown {
		t.Errorf("results %+v, want one unknown", got)
	}
}

// TestStartupInfo: the evidence keeps the configuration, not the run's
// addresses nor librdkafka's callback pointers, so that two starts of one
// client with one configuration record one entry.
func TestStartupInfo(t *testing.T) {
	a := Startup{Client: "librdkafka", Config: map[string]string{"acks": "-1", "bootstrap.servers": "10.0.0.1:9092", "open_cb": "0x7f81"}}
	b := Startup{Client: "librdkafka", Config: map[string]string{"acks": "-1", "bootstrap.servers": "10.0.0.2:9092", "open_cb": "0x7fa0"}}
	var p results.Provenance
	p.AddClient(a.Info())
	p.AddClient(b.Info())
	if len(p.Clients) != 1 || len(p.Clients[0].Config) != 1 {
		t.Errorf("clients %+v; want one with acks alone", p.Clients)
	}
	if acks, idem, err := a.InForce(); err != nil || acks != results.AcksAll || idem {
		t.Errorf("InForce = %v %v %v; want all, false", acks, idem, err)
	}
}
