package runbook

import (
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

// TestTransactionalActions checks the typed values of a transactional
// produce and a read_committed read, defaults included.
func TestTransactionalActions(t *testing.T) {
	src := "```kafka\ntopic create t --replication-factor 3\n" +
		"produce t --acks all --count 25 --transactional --abort-every 2\n" +
		"produce t --acks all --from 26 --transactional --txn-size 4\n" +
		"read t --isolation read_committed\nread t\n```\n"
	d, err := Load("txn.md", []byte(src), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	steps := d.Blocks[0].Steps
	if p := steps[1].Action.(Produce); !p.Transactional || p.TxnSize != 10 || p.AbortEvery != 2 || p.Count != 25 {
		t.Errorf("produce --transactional --abort-every 2 = %+v", p)
	}
	if p := steps[2].Action.(Produce); !p.Transactional || p.TxnSize != 4 || p.AbortEvery != 0 {
		t.Errorf("produce --transactional --txn-size 4 = %+v", p)
	}
	if r := steps[3].Action.(Read); r.Isolation != results.ReadCommitted {
		t.Errorf("read --isolation read_committed = %+v", r)
	}
	if r := steps[4].Action.(Read); r.Isolation != results.ReadUncommitted {
		t.Errorf("read = %+v, want read_uncommitted by default", r)
	}
}
