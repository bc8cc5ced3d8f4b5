package testcluster

import (
	"context"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// Corrupt cuts 10 bytes off k2's newest segment of the fault walk's topic
// (Faults leaves k2 stopped) and returns what the backend says it did,
// once it said it cut the 10 bytes; a running k1 must be refused. The
// caller reads the file back where its backend keeps it: the size there,
// not the backend's word, is the check.
func Corrupt(t testing.TB, b cluster.Corrupter) cluster.Corrupted {
	t.Helper()
	ctx := context.Background()
	if _, err := b.Corrupt(ctx, "k1", cluster.Corruption{Dir: "faults-0", Truncate: 10}); err == nil || !strings.Contains(err.Error(), "is running") {
		t.Errorf("corrupt of running k1: %v, want a refusal", err)
	}
	done, err := b.Corrupt(ctx, "k2", cluster.Corruption{Dir: "faults-0", Truncate: 10})
	if err != nil {
		t.Fatalf("corrupt k2: %v", err)
	}
	t.Logf("corrupt k2: %s", done)
	if done.CutTo != done.Size-10 {
		t.Errorf("corrupt k2 cut %s from %d to %d bytes, want 10 fewer", done.Segment, done.Size, done.CutTo)
	}
	return done
}
