package local_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/cluster/local"
	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// privateMounts marks the copy of the test binary that runs in a mount
// namespace of its own.
const privateMounts = "KAFKABOOK_TEST_PRIVATE_MOUNTS"

// TestBesideIPNetns: iproute2's `ip netns add` (which users and CNI
// plugins run) makes /run/netns a mount of its own when it is none, and
// every namespace mounted there before is then hidden beneath it. Run in
// a mount namespace of its own, on a fresh /run, so that the host's
// /run/netns is not touched: a namespace kafkabook makes survives a later
// `ip netns add` and is removed cleanly (kafkabook prepares the directory
// first, as iproute2 does), and one left hidden by a kafkabook that did
// not is removed too, while iproute2's own namespace keeps working.
func TestBesideIPNetns(t *testing.T) {
	if os.Getenv(privateMounts) == "1" {
		besideIPNetns(t)
		return
	}
	testcluster.Require(t)
	requireTools(t, "unshare", "ip")
	unshared(t, "TestBesideIPNetns", privateMounts, "a mount namespace of its own", "--mount", "--propagation", "private")
}

func besideIPNetns(t *testing.T) {
	fresh := func() {
		t.Helper()
		// A fresh /run here only: /run/netns is no mount point.
		mustRun(t, "mount", "-t", "tmpfs", "tmpfs", "/run")
	}
	gone := func(ns string) {
		t.Helper()
		if _, err := os.Lstat(local.NSPath(ns)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", local.NSPath(ns), err)
		}
		if strings.Contains(mountinfo(t), " "+local.NSPath(ns)+" ") {
			t.Errorf("%s is still a mount point", local.NSPath(ns))
		}
	}
	name := testcluster.Name()
	ours, theirs := "kb-"+name+"-k1", "ipr-"+name

	// Prepared: ip netns add binds nothing over it.
	fresh()
	if err := local.NewNamedNS(ours); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "ip", "netns", "add", theirs)
	if err := local.DeleteNS(ours); err != nil {
		t.Errorf("down beside ip netns add: %v", err)
	}
	gone(ours)
	mustRun(t, "ip", "netns", "exec", theirs, "true")
	mustRun(t, "ip", "netns", "delete", theirs)

	// Left hidden by a kafkabook that did not prepare the directory.
	fresh()
	local.SkipPrepareNSDir(true)
	err := local.NewNamedNS(ours)
	local.SkipPrepareNSDir(false)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, "ip", "netns", "add", theirs)
	if n := strings.Count(mountinfo(t), " "+local.NSPath(ours)+" "); n < 2 {
		t.Fatalf("%s is mounted %d time(s), want its hidden original and the copy over it: the test set nothing up", local.NSPath(ours), n)
	}
	if err := local.DeleteNS(ours); err != nil {
		t.Errorf("removing the hidden namespace: %v", err)
	}
	gone(ours)
	mustRun(t, "ip", "netns", "exec", theirs, "true")
	mustRun(t, "ip", "netns", "delete", theirs)

	// A live cluster, ip netns add beside it, then down: clean.
	fresh()
	t.Setenv("KAFKABOOK_STATE", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cfg := cluster.Config{Name: testcluster.Name(), Kafka: testcluster.Version(), Nodes: 2, Ready: testcluster.Ready}
	b, err := local.New(cfg.Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Up(ctx, cfg, t.Logf); err != nil {
		b.Down(ctx, t.Logf)
		t.Fatalf("up: %v", err)
	}
	mustRun(t, "ip", "netns", "add", theirs)
	if err := b.Down(ctx, t.Logf); err != nil {
		t.Errorf("down beside ip netns add: %v", err)
	}
	if left := b.Leftovers(); len(left) > 0 {
		t.Errorf("after down: %v", left)
	}
	mustRun(t, "ip", "netns", "exec", theirs, "true")
	mustRun(t, "ip", "netns", "delete", theirs)
}

// mountinfo is this process's /proc/self/mountinfo.
func mountinfo(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
