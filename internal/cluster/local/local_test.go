package local_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// TestFaults walks the acks article's fault sequence on a real cluster and
// checks each effect with a client of its own (the table is shared with
// the docker backend's test).
func TestFaults(t *testing.T) {
	b, st := testcluster.Start(t, 3, map[string]string{"replica.lag.time.max.ms": "3000"})
	testcluster.Faults(t, b, st)
	t.Run("network faults", func(t *testing.T) { testNetFaults(t, b, st) })
}

// TestDownNamesWhatItCannotRemove: down removes what is mounted into the
// cluster's directory without deleting through the mount, names a mount of
// a node's namespace that it did not make (and so leaves), keeps the
// cluster's record, and a later down, once that mount is gone, succeeds.
func TestDownNamesWhatItCannotRemove(t *testing.T) {
	b, st := testcluster.Start(t, 1, nil)
	ctx := context.Background()
	logPath, err := b.LogPath("k1")
	if err != nil {
		t.Fatal(err)
	}
	nodeDir := filepath.Dir(filepath.Dir(logPath))

	// Someone's directory mounted into the cluster's: down must unmount it,
	// not empty it.
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "keep"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	into := filepath.Join(nodeDir, "mounted")
	mustRun(t, "mkdir", "-p", into)
	mustRun(t, "mount", "--bind", src, into)
	t.Cleanup(func() { exec.Command("umount", "-l", into).Run() })

	// The node's namespace mounted somewhere else keeps it alive.
	hold := filepath.Join(t.TempDir(), "netns")
	mustRun(t, "touch", hold)
	mustRun(t, "mount", "--bind", "/run/netns/kb-"+st.Name+"-k1", hold)
	t.Cleanup(func() { exec.Command("umount", "-l", hold).Run() })

	var said []string
	err = b.Down(ctx, func(format string, args ...any) {
		said = append(said, fmt.Sprintf(format, args...))
		t.Logf(format, args...)
	})
	// The node killed is waited for, not taken for a stray and killed again.
	if !slices.Equal(said, []string{fmt.Sprintf("killing k1 (pid %d)", st.Nodes[0].PID)}) {
		t.Errorf("down said %q, want only that it killed k1", said)
	}
	var le *local.LeftoverError
	if !errors.As(err, &le) {
		t.Fatalf("down with the namespace of k1 mounted at %s: %v, want a *LeftoverError", hold, err)
	}
	t.Logf("down: %v", err)
	if len(le.Leftovers) != 1 || !strings.Contains(le.Leftovers[0].What, "mount of the network namespace of k1 at "+hold) || le.Leftovers[0].Fix != "umount -l "+hold {
		t.Errorf("leftovers %q, want the mount at %s and how to remove it", le.Leftovers, hold)
	}
	if data, err := os.ReadFile(filepath.Join(src, "keep")); err != nil || string(data) != "mine" {
		t.Errorf("down deleted through a mount: %s is %q, %v", filepath.Join(src, "keep"), data, err)
	}
	if _, err := b.Status(ctx); err != nil {
		t.Errorf("after a down that left something, the cluster's record is gone: %v", err)
	}

	mustRun(t, "umount", hold)
	if err := b.Down(ctx, t.Logf); err != nil {
		t.Fatalf("second down: %v", err)
	}
	if left := b.Leftovers(); len(left) > 0 {
		t.Fatalf("after down: %v", left)
	}
	// Idempotent.
	if err := b.Down(ctx, t.Logf); err != nil {
		t.Fatalf("third down: %v", err)
	}
}

func mustRun(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
