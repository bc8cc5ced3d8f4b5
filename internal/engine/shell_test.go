package engine

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// TestShellEnv: an sh block sees PATH, HOME, the cluster's addresses, the
// run number and the parameters under KAFKABOOK_PARAM_, and nothing else
// of kafkabook's environment; a parameter named PATH or LD_PRELOAD does
// not set PATH or LD_PRELOAD.
func TestShellEnv(t *testing.T) {
	t.Setenv("KAFKABOOK_SECRET", "leaked")
	st := cluster.Status{Nodes: []cluster.Node{{Name: "k1", Address: "10.0.0.1:9092"}, {Name: "k2", Address: "10.0.0.2:9092"}}}
	params := map[string]string{"PATH": "/evil", "LD_PRELOAD": "/evil.so", "count": "10", "msg-size": "1k"}
	env := shellEnv(st, 2, params)
	out, err := exec.Command("sh", "-c", "env").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "KAFKABOOK_SECRET=leaked") {
		t.Fatal("the test's own environment is not what it thinks")
	}
	cmd := exec.Command("sh", "-c", "env")
	cmd.Env = env
	out, err = cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, want := range []string{
		"KAFKA_BOOTSTRAP=10.0.0.1:9092,10.0.0.2:9092", "K1=10.0.0.1:9092", "K2=10.0.0.2:9092", "KAFKABOOK_RUN=2",
		"KAFKABOOK_PARAM_PATH=/evil", "KAFKABOOK_PARAM_LD_PRELOAD=/evil.so", "KAFKABOOK_PARAM_count=10", "KAFKABOOK_PARAM_msg_size=1k",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %s in %q", want, got)
		}
	}
	for _, kv := range got {
		name, val, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH" && val == "/evil", name == "LD_PRELOAD", name == "KAFKABOOK_SECRET":
			t.Errorf("the sh block sees %s", kv)
		}
	}
}
