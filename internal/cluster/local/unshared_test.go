package local_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/kafkabook/kafkabook/internal/testcluster"
)

// requireTools skips a test, or fails it in CI, when a program it runs is
// not on PATH.
func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			testcluster.Lacks(t, "needs "+tool)
		}
	}
}

// unshared runs the test named test again in a copy of this test binary
// inside namespaces of its own (unshare's flags), with marker set to 1 in
// its environment so that the copy knows it is there, and fails with the
// copy's output when the copy fails: what the test does to its network or
// mounts stays out of the host's.
func unshared(t *testing.T, test, marker, where string, flags ...string) {
	t.Helper()
	args := append(flags, os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1")
	cmd := exec.Command("unshare", args...)
	cmd.Env = append(os.Environ(), marker+"=1")
	out, err := cmd.CombinedOutput()
	t.Logf("in %s:\n%s", where, out)
	if err != nil {
		t.Fatalf("%v", err)
	}
}
