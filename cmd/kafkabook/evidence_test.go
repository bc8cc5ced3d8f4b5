package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// kafkabookIn runs the kafkabook command line in dir, in process, and
// returns its exit code, stdout and stderr.
func kafkabookIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	root := rootCmd()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		errb.WriteString("kafkabook: " + err.Error() + "\n")
	}
	return exitCode(err), out.String(), errb.String()
}

// evidenceSite lays out the report fixtures as two run directories of
// producer-acks, with a latest link, and returns the site's parent.
func evidenceSite(t *testing.T) string {
	t.Helper()
	work := t.TempDir()
	for _, d := range []struct{ from, to string }{
		{"../../report/testdata/acks", "out/producer-acks/kafka-4.3.1/20261129T213500Z"},
		{"../../report/testdata/v2", "out/producer-acks/kafka-4.0.0/20261129T220000Z"},
	} {
		if err := os.MkdirAll(filepath.Join(work, d.to), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"results.json", "runbook.md"} {
			data, err := os.ReadFile(filepath.Join(d.from, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(work, d.to, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink("20261129T213500Z", filepath.Join(work, "out/producer-acks/kafka-4.3.1/latest")); err != nil {
		t.Fatal(err)
	}
	return work
}

func match(t *testing.T, what, text string, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		if !regexp.MustCompile("(?m)" + p).MatchString(text) {
			t.Errorf("%s does not match %q:\n%s", what, p, text)
		}
	}
}

func TestEvidenceCommand(t *testing.T) {
	work := evidenceSite(t)
	// The runbook changes after the run: its sha256 is no longer the one
	// the results recorded.
	rb := filepath.Join(work, "out/producer-acks/kafka-4.3.1/20261129T213500Z/runbook.md")
	if err := os.WriteFile(rb, []byte("# changed after the run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := kafkabookIn(t, work, "evidence", "out/producer-acks/kafka-4.3.1/latest")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	match(t, "evidence", out,
		`^#### Evidence: Does acks=1 lose acknowledged messages\?$`,
		`^\*\*Verdict:\*\* expectations held in 4 of 4 runs \(Kafka 4\.3\.1 · franz-go v1\.22\.3, local backend, 3 nodes`,
		`^- Kafka: 4\.3\.1; client: franz-go v1\.22\.3; backend: local; nodes: 3$`,
		"^\\| `acks1` \\| 80 \\| 60 \\| 0 \\| 0 \\| 0 \\| 8ms \\| 4 \\|$",
		"^- results.json sha256 `[0-9a-f]{64}`$",
		// latest is resolved: the link names the run the hashes belong to.
		`^- report: \[out/producer-acks/kafka-4.3.1/20261129T213500Z/index.html\]\(out/producer-acks/kafka-4.3.1/20261129T213500Z/index.html\)$`)
	match(t, "stderr", errs, `warning: .*runbook.md does not match the runbook sha256`)

	_, again, _ := kafkabookIn(t, work, "evidence", "out/producer-acks/kafka-4.3.1/latest")
	if again != out {
		t.Error("two runs of evidence print different blocks")
	}

	code, out, errs = kafkabookIn(t, work, "evidence", "--format", "json", "--relative-to", "docs/adr", "out/producer-acks/kafka-4.3.1/20261129T213500Z")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	match(t, "evidence --format json", out, `"report": "../../out/producer-acks/kafka-4.3.1/20261129T213500Z/index.html"`, `"held": 4,`)

	for _, args := range [][]string{
		{"evidence", "--format", "yaml", "out/producer-acks/kafka-4.3.1/latest"},
		{"evidence", "nosuch"},
		{"evidence"},
	} {
		if code, _, errs := kafkabookIn(t, work, args...); code != exitUsage {
			t.Errorf("kafkabook %s: exit %d, want %d: %s", strings.Join(args, " "), code, exitUsage, errs)
		}
	}
}

func TestCompareCommand(t *testing.T) {
	work := evidenceSite(t)
	code, out, errs := kafkabookIn(t, work, "compare", "out/producer-acks/kafka-4.3.1/latest", "out/producer-acks/kafka-4.0.0/20261129T220000Z", "--html", "cmp.html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	match(t, "compare", out,
		`^title +Does acks=1 lose acknowledged messages\? +Does acks=1 lose acknowledged messages\?$`,
		`^verdict +held in 4 of 4 runs +held in 4 of 4 runs$`,
		`^client +franz-go v1\.22\.3 +franz-go v1\.22\.3$`,
		`^  lost +60 +60$`,
		`changed \(marked \*`)
	page, err := os.ReadFile(filepath.Join(work, "cmp.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<table>") {
		t.Error("cmp.html has no table")
	}
	if code, _, _ := kafkabookIn(t, work, "compare", "out/producer-acks/kafka-4.3.1/latest"); code != exitUsage {
		t.Errorf("compare with one directory: exit %d, want %d", code, exitUsage)
	}
}

func TestJUnitCommand(t *testing.T) {
	work := evidenceSite(t)
	code, _, errs := kafkabookIn(t, work, "junit", "out/producer-acks/kafka-4.3.1/latest", "out/producer-acks/kafka-4.0.0/20261129T220000Z", "-o", "junit.xml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(filepath.Join(work, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	match(t, "junit.xml", string(data), `<testsuites name="kafkabook" tests="24" failures="0" errors="0">`,
		`classname="producer-acks.kafka-4.3.1" name="lost\(acks1\) &gt; 0 \(run 1\)" file="examples/producer-acks.md" line="39"`)
	if code, _, _ := kafkabookIn(t, work, "junit", "out/producer-acks/kafka-4.3.1/latest"); code != exitUsage {
		t.Errorf("junit without -o: exit %d, want %d", code, exitUsage)
	}
}

// TestEvidenceConfined: evidence (and compare) read a stranger's run
// directory through render's confined reader: a runbook.file or a
// results.json that points out of the directory, at a FIFO or at a
// device is refused at once with the file named, never read or waited on.
func TestEvidenceConfined(t *testing.T) {
	fixture, err := os.ReadFile("../../report/testdata/acks/results.json")
	if err != nil {
		t.Fatal(err)
	}
	withRunbook := func(name string) []byte {
		return bytes.Replace(fixture, []byte(`"file": "runbook.md"`), []byte(`"file": "`+name+`"`), 1)
	}
	if !bytes.Contains(fixture, []byte(`"file": "runbook.md"`)) {
		t.Fatal(`the fixture names no "file": "runbook.md"`)
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"runbook outside", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "results.json"), withRunbook("../../secret.md"), 0o644)
		}, "outside the run directory"},
		{"runbook absolute", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "results.json"), withRunbook("/dev/zero"), 0o644)
		}, "outside the run directory"},
		{"runbook a link to a device", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "results.json"), fixture, 0o644)
			os.Symlink("/dev/zero", filepath.Join(dir, "runbook.md"))
		}, "symbolic link"},
		{"runbook a FIFO", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "results.json"), fixture, 0o644)
			if err := syscall.Mkfifo(filepath.Join(dir, "runbook.md"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"results a FIFO", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "results.json"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"results a link out", func(t *testing.T, dir string) {
			outside := filepath.Join(t.TempDir(), "results.json")
			os.WriteFile(outside, fixture, 0o644)
			os.Symlink(outside, filepath.Join(dir, "results.json"))
		}, "symbolic link"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(t, dir)
			done := make(chan struct{})
			var code int
			var stderr string
			go func() {
				defer close(done)
				code, _, stderr = kafkabookIn(t, dir, "evidence", ".")
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("evidence still runs after 20s: it waits on what it should have refused")
			}
			if code == 0 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want a refusal saying %q", code, stderr, c.want)
			}
		})
	}
}
