package external

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

const nodes = `name: prod
nodes:
  - {name: broker1, id: 1, address: "broker1:9093"}
  - {name: broker2, id: 2, address: "broker2:9093"}
`

// TestParseRefuses: a cluster file never holds a password, and every
// mistake is named.
func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{nodes + "sasl: {mechanism: PLAIN, user: u, password: hunter2}\n", "a password never goes into the cluster file"},
		{nodes + "sasl: {mechanism: PLAIN, user: u}\n", "password_env (an environment variable) or password_file"},
		{nodes + "sasl: {mechanism: GSSAPI, user: u, password_env: P}\n", `mechanism "GSSAPI"`},
		{nodes + "faults: {explode: [x]}\n", `"explode" is not a fault`},
		{nodes + "faults: {kill: []}\n", "an empty command"},
		{nodes + "faults: {kill: [ssh, \"{host}\", kill]}\n", "{host}"},
		{"name: prod\nnodes:\n  - {name: b, id: 2, address: \"b:9092\"}\n", "id 1 is missing"},
		{"name: prod\nnodes:\n  - {name: b, id: 1, address: b}\n", "want HOST:PORT"},
		{"name: Prod\nnodes: []\n", `name "Prod"`},
		{nodes + "bootstrap: [x]\n", "field bootstrap not found"},
		{"name: prod\nnodes:\n  - {name: k2, id: 1, address: \"b:9092\"}\n", "name it k1"},
		{"name: prod\nnodes:\n  - {name: \"-rf\", id: 1, address: \"b:9092\"}\n", `node "-rf": use letters`},
		{"name: prod\nnodes:\n  - {name: \"a b\", id: 1, address: \"b:9092\"}\n", `node "a b": use letters`},
	} {
		_, err := Parse([]byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", c.file, err, c.want)
		}
	}
}

// TestMissingAndExpand: a fault needs its own command and the one that
// repairs it; commands get the node's name, id and address.
func TestMissingAndExpand(t *testing.T) {
	f, err := Parse([]byte(nodes + "faults:\n  kill: [ssh, \"{node}\", kill, \"{id}\"]\n  isolate: [x]\n  rejoin: [y]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m := f.Missing(cluster.Kill); !strings.Contains(m, "no command for start") {
		t.Errorf("Missing(kill) = %q, want start named", m)
	}
	if m := f.Missing(cluster.Isolate); m != "" {
		t.Errorf("Missing(isolate) = %q, want none", m)
	}
	n, ok := f.Node("k2")
	if !ok || n.Name != "broker2" {
		t.Fatalf("Node(k2) = %v, %v", n, ok)
	}
	if got := strings.Join(expand(f.Faults["kill"], n), " "); got != "ssh broker2 kill 2" {
		t.Errorf("expanded kill = %q", got)
	}
	t.Setenv("KB_TEST_PW", "s3cret")
	f, _ = Parse([]byte(nodes + "sasl: {mechanism: SCRAM-SHA-256, user: u, password_env: KB_TEST_PW}\ntls: {ca_file: /ca.pem}\n"))
	a, err := f.Access()
	if err != nil || a.SASL.Password != "s3cret" || a.TLS.CAFile != "/ca.pem" {
		t.Errorf("Access() = %+v, %v", a, err)
	}
}

// TestRelease: restart --to runs the cluster file's release command for
// the node, with the release as {version}; without one it says what to
// add.
func TestRelease(t *testing.T) {
	dir := t.TempDir()
	f, err := Parse([]byte(nodes + "release: [touch, \"" + dir + "/{node}-{id}-{version}\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := NewFor(f, filepath.Join(dir, "state.json"))
	if err := b.Release(context.Background(), "k2", "4.4.0", t.Logf); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "broker2-2-4.4.0")); err != nil {
		t.Errorf("the release command did not run for broker2 on 4.4.0: %v", err)
	}
	f, _ = Parse([]byte(nodes))
	err = NewFor(f, filepath.Join(dir, "state.json")).Release(context.Background(), "k2", "4.4.0", t.Logf)
	if err == nil || !strings.Contains(err.Error(), "add release: [...]") {
		t.Errorf("Release without a command: %v", err)
	}
}
