package main

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/subcommand"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the files that cmp compares with in testdata/script")

// TestMain makes this test binary double as kafkabook: the scripts' `exec
// kafkabook` runs main in a process of its own.
func TestMain(m *testing.M) {
	subcommand.Run(os.Args) // the processes kafkabook starts from os.Executable
	testscript.Main(m, map[string]func(){"kafkabook": main})
}

// TestScripts runs the CLI scripts in testdata/script, each in a fresh
// $WORK with its own state directory.
//
// Besides testscript's commands they have:
//
//	exits CODE PROGRAM [ARGS...]   run PROGRAM and require exit code CODE
//	fakecluster NAME kept|private|legacy
//	    write the state of a cluster of which nothing runs, owned by a process
//	    that is gone (legacy: a state file from before owners were recorded)
//
// and the conditions [cluster] (root, java and mvn: a real cluster can run)
// and [root]; under CI=true a condition that does not hold fails the script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("KAFKABOOK_STATE", filepath.Join(e.WorkDir, "state"))
			e.Setenv("KAFKABOOK_CACHE", cacheDir())
			// A name no other script or machine user has: cluster names are
			// host-wide (namespaces, links).
			b := make([]byte, 4)
			rand.Read(b)
			e.Setenv("UNIQ", fmt.Sprintf("%x", b[:3]))
			// Digits, and more than any pid can be.
			e.Setenv("UNIQPID", fmt.Sprintf("9%08d", binary.BigEndian.Uint32(b)%100000000))
			return nil
		},
		Condition: testcluster.Condition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":       cmdExits,
			"fakecluster": cmdFakeCluster,
		},
	})
}

// cacheDir is where Kafka's jars are cached, for scripts that start a
// cluster.
func cacheDir() string {
	if d := os.Getenv("KAFKABOOK_CACHE"); d != "" {
		return d
	}
	d, _ := os.UserCacheDir()
	return filepath.Join(d, "kafkabook")
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}

// cmdFakeCluster writes the state file of a one-node cluster NAME whose
// owner is gone and of which nothing else exists.
func cmdFakeCluster(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || (args[1] != "kept" && args[1] != "private" && args[1] != "legacy") {
		ts.Fatalf("usage: fakecluster NAME kept|private|legacy")
	}
	name := args[0]
	dir := filepath.Join(ts.Getenv("KAFKABOOK_STATE"), "clusters", name)
	st := map[string]any{
		"name": name, "kafka": "4.3.1", "created": time.Now().Add(-90 * time.Minute),
		"network": map[string]any{"bridge": "", "subnet": "10.213.250.0/24"},
		"nodes":   []map[string]any{{"name": "k1", "id": 1, "netns": "kb-" + name + "-k1", "dir": filepath.Join(dir, "k1")}},
		"owner":   map[string]any{"pid": 1 << 30, "start": 1}, // no such process
		"kept":    args[1] == "kept",
	}
	if args[1] == "legacy" {
		delete(st, "owner")
		delete(st, "kept")
	}
	data, err := json.Marshal(st)
	ts.Check(err)
	ts.Check(os.MkdirAll(filepath.Join(dir, "k1", "logs"), 0o755))
	ts.Check(os.WriteFile(filepath.Join(dir, "state.json"), data, 0o644))
}
