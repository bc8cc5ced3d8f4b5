package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kafkabook/kafkabook/internal/cachedir"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
)

// publishRunbook restarts its node, so that the broker logs lines naming
// its data directory.
const publishRunbook = "---\ntitle: publish\nnodes: 1\n---\n\n```kafka\n" +
	"topic create t --replicas 1\nproduce t --acks 1 --count 3\nkill k1\nstart k1\nwait healthy\nread t\nexpect lost(t) == 0\n```\n"

// TestPublishedEvidenceHasNoMachinePaths runs kafkabook as a user would,
// with its state under the home directory, and checks that nothing it
// writes for publishing (events.jsonl, results.json, runbook.md, the pages)
// names the home directory or the cluster's state directory.
func TestPublishedEvidenceHasNoMachinePaths(t *testing.T) {
	testcluster.Require(t)
	bin := buildKafkabook(t)
	cache, err := cachedir.Dir()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "kafkabook")
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "publish.md"), []byte(publishRunbook), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--kafka", testcluster.Version(), "--record-host=false", "publish.md")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+home, "KAFKABOOK_STATE="+state, "KAFKABOOK_CACHE="+cache)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cleanupCluster(t, state, fmt.Sprintf("run%d", cmd.Process.Pid))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kafkabook run: %v\n%s", err, out.String())
	}
	host, _ := os.Hostname()
	var files, placeholders int
	err = filepath.WalkDir(filepath.Join(work, "output"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 || filepath.Ext(p) == ".js" {
			return err // latest is a link to a run directory
		}
		data, err := os.ReadFile(p)
		if err == nil && filepath.Base(p) == results.ArchivedEventsFileName {
			data, err = results.ReadEvents(p) // the stream, archived once results.json loads
		}
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(work, p)
		if bytes.Contains(data, []byte(home)) {
			t.Errorf("%s names the home directory %s", rel, home)
		}
		if host != "" && filepath.Base(p) == "results.json" && bytes.Contains(data, []byte(`"host": "`+host+`"`)) {
			t.Errorf("%s records the host name despite --record-host=false", rel)
		}
		placeholders += bytes.Count(data, []byte("$KAFKABOOK_STATE/k1"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Errorf("only %d files written under output/\n%s", files, out.String())
	}
	if placeholders == 0 {
		t.Logf("no $KAFKABOOK_STATE placeholder found: the broker logged no data directory this time")
	}
}
