package driver

import (
	"encoding/json"
	"testing"
	"time"
)

// TestTransformSpecLine: the spec line a transform member reads, with
// its role and durations in milliseconds, and no transactional id
// without EOS.
func TestTransformSpecLine(t *testing.T) {
	s := TransformSpec{Client: "java", Bootstrap: []string{"10.0.0.1:9092"}, In: "in-r1", Out: "out-r1", Group: "eos-r1", Member: 2,
		EOS: true, TxnID: "kafkabook-transform-eos-r1", TxnTimeout: 30 * time.Second, Batch: 5, Work: 200 * time.Millisecond,
		CrashAt: 13, Dedup: "none", Properties: map[string]string{"session.timeout.ms": "6000"}}
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"role": "transform", "in": "in-r1", "out": "out-r1", "group": "eos-r1", "member": 2.0, "eos": true,
		"txn_id": "kafkabook-transform-eos-r1", "transaction_timeout_ms": 30000.0, "batch": 5.0, "work_ms": 200.0, "crash_at": 13.0} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v (line %s)", k, got[k], want, b)
		}
	}
	s.EOS, s.TxnID, s.TxnTimeout = false, "", 0
	b, _ = s.MarshalJSON()
	got = nil
	json.Unmarshal(b, &got)
	if _, ok := got["txn_id"]; ok {
		t.Errorf("txn_id in the line of an at-least-once member: %s", b)
	}
}
