package consumer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/results"
)

// TestHandleDedup runs, without Kafka, what a consume member does with a
// delivery (handle, committing after) and what a transform member with
// --effect does (storeEffect), for each dedup mode: an event delivered
// twice is applied twice without dedup and once with it, and each
// delivery reports the events the reference documents, in order.
func TestHandleDedup(t *testing.T) {
	ctx := context.Background()
	first := kafka.Delivered{Partition: 0, Offset: 4, Key: "7", ID: "m-005", Event: "liked-7"}
	again := kafka.Delivered{Partition: 0, Offset: 9, Key: "7", ID: "m-010", Event: "liked-7"}
	plain := kafka.Delivered{Partition: 0, Offset: 10, Key: "7", ID: "m-011"}
	for _, c := range []struct {
		dedup   string
		applied int64
		want    string // the kinds reported, a delivery's separated by |
	}{
		{DedupNone, 2, "effect commit|effect commit|effect commit"},
		{DedupTable, 1, "effect handled commit|skip commit|effect handled commit"},
		{DedupTransactional, 1, "effect handled commit|skip commit|effect handled commit"},
	} {
		for _, role := range []string{"consume", "transform"} {
			t.Run(role+"/"+c.dedup, func(t *testing.T) {
				var out bytes.Buffer
				spec := Spec{Member: 1, Commit: CommitAfter, Dedup: c.dedup, Store: filepath.Join(t.TempDir(), "g.sqlite")}
				m := &member{spec: spec, out: &out}
				if err := m.openStore(); err != nil {
					t.Fatal(err)
				}
				defer m.store.Close()
				var got []string
				for _, d := range []kafka.Delivered{first, again, plain} {
					var err error
					if role == "consume" {
						err = m.handle(ctx, d, func(_ context.Context, d kafka.Delivered) error {
							m.report(results.EventCommit, d, d.Offset+1)
							return nil
						})
					} else {
						if err = m.storeEffect(ctx, d); err == nil {
							m.report(results.EventCommit, d, d.Offset+1)
						}
					}
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, kinds(t, &out))
				}
				if strings.Join(got, "|") != c.want {
					t.Errorf("reported %q, want %q", strings.Join(got, "|"), c.want)
				}
				contents, err := m.store.Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if n := contents.Applied["liked-7"]; n != c.applied {
					t.Errorf("liked-7 applied %d times, want %d", n, c.applied)
				}
				if n := contents.Applied["m-011"]; n != 1 {
					t.Errorf("m-011 (no event id: its message id) applied %d times, want 1", n)
				}
			})
		}
	}
}

// kinds reads the events reported since the last call and returns their
// kinds, separated by blanks.
func kinds(t *testing.T, out *bytes.Buffer) string {
	t.Helper()
	var ks []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var ev results.ConsumerEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		ks = append(ks, ev.Kind)
	}
	return strings.Join(ks, " ")
}
