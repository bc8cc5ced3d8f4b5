package results

import "fmt"

// Acks is a producer's acks setting: how many replicas must have a message
// before its send is acknowledged. It is parsed once, by ParseAcks, where
// the runbook is checked; an Acks that exists is one of the three below.
// The numbers are the ledger's codes of the setting.
type Acks uint8

const (
	AcksNone   Acks = iota // acks=0: no answer is waited for
	AcksLeader             // acks=1: the leader has it
	AcksAll                // acks=all: every in-sync replica has it
	// AcksUnrecorded is the acks of a ledger entry whose evidence did not
	// say (the ledger's fourth code); never a producer's setting.
	AcksUnrecorded
)

// acksText is each setting as runbooks and evidence write it.
var acksText = [...]string{AcksNone: "0", AcksLeader: "1", AcksAll: "all"}

// ParseAcks parses an acks setting as runbooks and evidence write it: 0, 1
// or all. It is the one place that knows the spellings.
func ParseAcks(s string) (Acks, error) {
	for a, t := range acksText {
		if s == t {
			return Acks(a), nil
		}
	}
	return 0, fmt.Errorf("bad acks %q: want 0, 1 or all", s)
}

// String returns the setting as runbooks and evidence write it.
func (a Acks) String() string {
	if int(a) < len(acksText) {
		return acksText[a]
	}
	return fmt.Sprintf("Acks(%d)", uint8(a))
}

// CheckIdempotence is the one rule that ties idempotence to acks: Kafka's
// idempotent producer (and so a transactional one) needs acks=all. The
// runbook's check and the producers both ask it.
func CheckIdempotence(a Acks, idempotent bool) error {
	if idempotent && a != AcksAll {
		return fmt.Errorf("idempotence needs acks=all (Kafka's idempotent producer requires it), not acks=%s", a)
	}
	return nil
}
