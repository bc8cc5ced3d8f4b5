package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/bisect"
)

// fixtureRun copies a run fixture of report/testdata into
// site/<runbook>/kafka-<version>/<stamp>; with incomplete, its results say
// the run stopped early.
func fixtureRun(t *testing.T, fixture, site, place string, incomplete bool) {
	t.Helper()
	dir := filepath.Join(site, filepath.FromSlash(place))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"results.json", "runbook.md"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "report", "testdata", fixture, name))
		if err != nil {
			t.Fatal(err)
		}
		if incomplete && name == "results.json" {
			data = bytes.Replace(data, []byte(`"complete": true`), []byte(`"complete": false`), 1)
		}
		// The fixture's evidence is of 4.3.1: filed under another
		// release, it says that release, as a run there would.
		if v, ok := strings.CutPrefix(filepath.Base(filepath.Dir(dir)), "kafka-"); ok && name == "results.json" && v != "4.3.1" {
			data = bytes.Replace(data, []byte(`"kafka": "4.3.1"`), []byte(`"kafka": "`+v+`"`), 1)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// kafkabook runs the command line in-process and returns its stdout, and
// the error it ended with.
func kafkabook(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := rootCmd()
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.Execute()
	t.Logf("kafkabook %s:\n%s%s", strings.Join(args, " "), out.String(), errOut.String())
	return out.String(), err
}

// treeState is every file and link under dir: path → content hash or
// link target.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	st := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			st[rel] = "-> " + target
			return err
		}
		data, err := os.ReadFile(p)
		st[rel] = fmt.Sprintf("%x", sha256.Sum256(data))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// indexRows is the site index's text, tags and whitespace removed: its
// rows and verdicts as a reader sees them.
func indexRows(t *testing.T, site string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(site, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	body := data[bytes.Index(data, []byte("<body")):]
	body = regexp.MustCompile(`(?s)<script.*?</script>`).ReplaceAll(body, nil)
	text := regexp.MustCompile(`<[^>]*>`).ReplaceAll(body, []byte(" "))
	return strings.Join(strings.Fields(string(text)), " ")
}

// TestMerge: two trees written apart (two runs of one runbook and release,
// one of another) merge into the site that one tree holding all of them
// renders: the same index rows and verdicts, byte for byte; latest is the
// newest complete run; merging again changes nothing.
func TestMerge(t *testing.T) {
	tmp := t.TempDir()
	a, b, one, into := filepath.Join(tmp, "a"), filepath.Join(tmp, "b"), filepath.Join(tmp, "one"), filepath.Join(tmp, "site")
	runs := []struct{ tree, fixture, place string }{
		{a, "acks", "producer-acks/kafka-4.3.1/20260101T000000Z"},
		{b, "v2", "producer-acks/kafka-4.3.1/20260102T000000Z"},
		{b, "consumers", "consumer-commits/kafka-4.4.0/20260103T000000Z"},
	}
	for _, r := range runs {
		fixtureRun(t, r.fixture, r.tree, r.place, false)
		fixtureRun(t, r.fixture, one, r.place, false)
	}
	// The newest run of producer-acks on 4.3.1 did not complete: latest
	// stays at the newest complete one.
	fixtureRun(t, "acks", b, "producer-acks/kafka-4.3.1/20260104T000000Z", true)
	fixtureRun(t, "acks", one, "producer-acks/kafka-4.3.1/20260104T000000Z", true)
	// An artifact upload turns the latest link into a copy of the run.
	fixtureRun(t, "acks", a, "producer-acks/kafka-4.3.1/latest", false)

	out, err := kafkabook(t, "merge", a, b, "--into", into)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "4 run(s) copied, 0 renamed apart, 0 already there") {
		t.Errorf("merge said %q", out)
	}
	if _, err := kafkabook(t, "render", one); err != nil {
		t.Fatal(err)
	}
	got, want := indexRows(t, into), indexRows(t, one)
	if got != want {
		t.Errorf("merged index:\n%s\none tree's index:\n%s", got, want)
	}
	for _, s := range []string{"producer-acks", "consumer-commits", "4.3.1", "4.4.0"} {
		if !strings.Contains(got, s) {
			t.Errorf("the index does not mention %s: %s", s, got)
		}
	}
	if a, b := treeState(t, into)["index.html"], treeState(t, one)["index.html"]; a != b {
		t.Error("the merged index.html differs from the one tree's")
	}
	if got, _ := os.Readlink(filepath.Join(into, "producer-acks/kafka-4.3.1/latest")); got != "20260102T000000Z" {
		t.Errorf("latest -> %q, want the newest complete run 20260102T000000Z", got)
	}
	for _, r := range runs {
		if _, err := os.Stat(filepath.Join(into, r.place, "index.html")); err != nil {
			t.Errorf("%s has no page: %v", r.place, err)
		}
	}

	before := treeState(t, into)
	out, err = kafkabook(t, "merge", a, b, "--into", into)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "0 run(s) copied, 0 renamed apart, 4 already there") {
		t.Errorf("second merge said %q", out)
	}
	after := treeState(t, into)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("merging again changed %s", p)
		}
	}
	if len(after) != len(before) {
		t.Errorf("merging again: %d files, before %d", len(after), len(before))
	}
}

// TestMergeConflict: two different runs under one name (one cell run on
// two machines in the same second) both stay, the second named by its
// digest, and both are listed; merging again adds nothing.
func TestMergeConflict(t *testing.T) {
	tmp := t.TempDir()
	a, b, into := filepath.Join(tmp, "a"), filepath.Join(tmp, "b"), filepath.Join(tmp, "site")
	place := "producer-acks/kafka-4.3.1/20260101T000000Z"
	fixtureRun(t, "acks", a, place, false)
	fixtureRun(t, "v2", b, place, false)
	for range 2 {
		if _, err := kafkabook(t, "merge", a, b, "--into", into); err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(filepath.Join(into, "producer-acks/kafka-4.3.1"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if len(names) != 3 || names[0] != "20260101T000000Z" || !regexp.MustCompile(`^20260101T000000Z-[0-9a-f]{12}$`).MatchString(names[1]) || names[2] != "latest" {
			t.Fatalf("runs in the site: %v, want the run, the other named by its digest, and latest", names)
		}
		for _, n := range names[:2] {
			if got, _ := os.ReadFile(filepath.Join(into, "producer-acks/kafka-4.3.1", n, "results.json")); len(got) == 0 {
				t.Errorf("%s lost its evidence", n)
			}
		}
	}
}

// TestMergeRefuses: merging a tree into itself, a missing source, and no
// --into are usage errors; a run whose stored runbook is a symbolic link
// is left out and named, and the exit code says so.
func TestMergeRefuses(t *testing.T) {
	tmp := t.TempDir()
	a := filepath.Join(tmp, "a")
	fixtureRun(t, "acks", a, "producer-acks/kafka-4.3.1/20260101T000000Z", false)
	for _, args := range [][]string{
		{"merge", a, "--into", filepath.Join(a, "site")},
		{"merge", filepath.Join(tmp, "nosuch"), "--into", filepath.Join(tmp, "site")},
		{"merge", a},
	} {
		if _, err := kafkabook(t, args...); exitCode(err) != exitUsage {
			t.Errorf("%v: exit %d (%v), want %d", args, exitCode(err), err, exitUsage)
		}
	}
	bad := filepath.Join(a, "producer-acks/kafka-4.3.1/20260102T000000Z")
	fixtureRun(t, "acks", a, "producer-acks/kafka-4.3.1/20260102T000000Z", false)
	os.Remove(filepath.Join(bad, "runbook.md"))
	if err := os.Symlink("/etc/passwd", filepath.Join(bad, "runbook.md")); err != nil {
		t.Fatal(err)
	}
	_, err := kafkabook(t, "merge", a, "--into", filepath.Join(tmp, "site"))
	if exitCode(err) != exitRun || !strings.Contains(fmt.Sprint(err), "20260102T000000Z") {
		t.Errorf("a run with a symbolic link: exit %d (%v), want %d naming it", exitCode(err), err, exitRun)
	}
	if _, err := os.Stat(filepath.Join(tmp, "site/producer-acks/kafka-4.3.1/20260101T000000Z/results.json")); err != nil {
		t.Errorf("the good run was not merged: %v", err)
	}
}

// TestMergeEvidenceOnly: merge copies evidence, not files. Planted pages
// and server files stay behind; a run of a schema kafkabook does not know,
// or whose runbook name the site reserves or cannot hold, is left out and
// named before the site changes; a java run filed under franz-go's series
// goes to java's; a run directory given directly (merge .) lands where run
// would have put it.
func TestMergeEvidenceOnly(t *testing.T) {
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	good := "producer-acks/kafka-4.3.1/20260101T000000Z"
	fixtureRun(t, "acks", src, good, false)
	for _, planted := range []string{"evil.html", ".htaccess", "index.html", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(src, good, planted), []byte("<script>x</script>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(place string, f func(string) string) {
		p := filepath.Join(src, place, "results.json")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f(string(data))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	future := "producer-acks/kafka-4.3.1/20260102T000000Z"
	fixtureRun(t, "acks", src, future, false)
	edit(future, func(s string) string { return strings.Replace(s, `"schema": 3`, `"schema": 99`, 1) })
	var bad []string
	reserved := []string{"assets", "index.html", "latest", "a\nb"}
	for i, name := range reserved {
		place := fmt.Sprintf("x%d/kafka-4.3.1/2026010%dT000000Z", i, i+3)
		fixtureRun(t, "acks", src, place, false)
		quoted, _ := json.Marshal(name)
		edit(place, func(s string) string {
			return regexp.MustCompile(`"name": "producer-acks"`).ReplaceAllString(s, `"name": `+string(quoted))
		})
		bad = append(bad, place)
	}
	java := "producer-acks/kafka-4.3.1/20260108T000000Z"
	fixtureRun(t, "acks", src, java, false)
	edit(java, func(s string) string {
		return strings.Replace(s, `"provenance": {`, `"provenance": {"client": "java",`, 1)
	})

	site := filepath.Join(tmp, "site")
	_, err := kafkabook(t, "merge", src, "--into", site)
	if exitCode(err) != exitRun {
		t.Fatalf("exit %d (%v), want %d for the runs left out", exitCode(err), err, exitRun)
	}
	for _, p := range append([]string{future}, bad...) {
		if !strings.Contains(err.Error(), filepath.Join(src, p)) {
			t.Errorf("the error does not name %s: %v", p, err)
		}
	}
	state := treeState(t, site)
	for p := range state {
		base := filepath.Base(p)
		if base == "evil.html" || base == ".htaccess" || base == "notes.txt" {
			t.Errorf("the site holds %s", p)
		}
		for _, name := range reserved { // a refused run would be filed under its runbook's name
			if strings.HasPrefix(p, name+"/kafka-") {
				t.Errorf("the site holds %s, a run of the refused runbook name %q", p, name)
			}
		}
	}
	if _, ok := state[good+"/results.json"]; !ok {
		t.Errorf("the good run is not in the site: %v", state)
	}
	if _, ok := state["producer-acks/kafka-4.3.1-java/20260108T000000Z/results.json"]; !ok {
		t.Errorf("the java run is not under java's series: %v", state)
	}
	if _, ok := state[java+"/results.json"]; ok {
		t.Errorf("the java run stayed under franz-go's series")
	}
	if page := state[good+"/index.html"]; page == "" {
		t.Errorf("the good run has no page rendered by merge")
	}

	// merge . from inside a run directory.
	lone := filepath.Join(tmp, "lone")
	fixtureRun(t, "acks", lone, "20260109T000000Z", false)
	t.Chdir(filepath.Join(lone, "20260109T000000Z"))
	site2 := filepath.Join(tmp, "site2")
	if _, err := kafkabook(t, "merge", ".", "--into", site2); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(site2, "producer-acks/kafka-4.3.1/20260109T000000Z/results.json")); err != nil {
		t.Errorf("merge . did not land where run would have put it: %v", treeState(t, site2))
	}
}

// TestMergeBisect: a bisect record travels with its runs into the site,
// and the index states it; a record whose runs did not arrive is left out
// and makes merge exit 2.
func TestMergeBisect(t *testing.T) {
	tmp := t.TempDir()
	a, into := filepath.Join(tmp, "a"), filepath.Join(tmp, "site")
	fixtureRun(t, "acks", a, "producer-acks/kafka-4.3.1/20260101T000000Z", false)
	fixtureRun(t, "v2", a, "producer-acks/kafka-4.3.1/20260102T000000Z", false)
	good := bisect.Record{Runbook: "producer-acks", Judge: "elections(acks1)", Releases: []string{"4.3.0", "4.3.1"},
		Probes: []bisect.Probed{
			{Release: "4.3.0", Outcome: "clean", Runs: 1, Dirs: []string{"producer-acks/kafka-4.3.1/20260101T000000Z"}},
			{Release: "4.3.1", Outcome: "last-known-leader", Runs: 1, Dirs: []string{"producer-acks/kafka-4.3.1/20260102T000000Z"}},
		},
		Changed: true, Before: "4.3.0", After: "4.3.1", OnlyAfter: []string{"acks1 lost: last-known-leader election of kN"}}
	if _, err := good.Write(filepath.Join(a, "producer-acks")); err != nil {
		t.Fatal(err)
	}
	out, err := kafkabook(t, "merge", a, "--into", into)
	if err != nil || !strings.Contains(out, "1 bisect record(s)") {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	rows := indexRows(t, into)
	for _, want := range []string{"Bisect 4.3.0 → 4.3.1", "elections(acks1)", "clean up to 4.3.0", "last-known-leader from 4.3.1", "acks1 lost: last-known-leader election of kN"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the index does not say %q:\n%s", want, rows)
		}
	}

	b := filepath.Join(tmp, "b")
	bad := good
	bad.Releases = []string{"4.2.0", "4.3.1"}
	bad.Probes = []bisect.Probed{{Release: "4.2.0", Outcome: "clean", Runs: 1, Dirs: []string{"producer-acks/kafka-4.2.0/20260101T000000Z"}}}
	if _, err := bad.Write(filepath.Join(b, "producer-acks")); err != nil {
		t.Fatal(err)
	}
	_, err = kafkabook(t, "merge", b, "--into", into)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitRun {
		t.Errorf("merging a record without its runs: %v, want exit %d", err, exitRun)
	}
	if _, err := os.Stat(filepath.Join(into, "producer-acks", bisect.FileName("4.2.0", "4.3.1"))); err == nil {
		t.Error("the record without its runs was copied")
	}
}
