package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

// countRenders counts the pages written until the test ends, by kind
// ("run", "index", "comparison"), with the run pages' directories.
func countRenders(t *testing.T) (map[string]int, *[]string) {
	t.Helper()
	counts := map[string]int{}
	var runPages []string
	old := rendered
	rendered = func(kind, p string) {
		counts[kind]++
		if kind == "run" {
			runPages = append(runPages, filepath.Dir(p))
		}
	}
	t.Cleanup(func() { rendered = old })
	return counts, &runPages
}

// TestUpdateSite adds a run to a rendered site of three releases: exactly
// its page, the index and the two comparisons it takes part in are
// written, and the index is the one a full render writes.
func TestUpdateSite(t *testing.T) {
	site, _ := fixtureSite(t)
	mkRunDir(t, "testdata/acks", site, "producer-acks", "4.4.0", "20261129T230000Z")
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	added := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261130T100000Z")
	counts, runPages := countRenders(t)
	if err := UpdateSite(site, added, Options{}); err != nil {
		t.Fatal(err)
	}
	if counts["run"] != 1 || (*runPages)[0] != added || counts["index"] != 1 || counts["comparison"] != 2 {
		t.Errorf("the update wrote run pages %v, %d indexes, %d comparisons; want only %s, one index and the two comparisons of 4.3.1", *runPages, counts["index"], counts["comparison"], added)
	}
	if !fileExists(filepath.Join(added, SummaryFile)) {
		t.Errorf("the run left no %s", SummaryFile)
	}
	if target, _ := os.Readlink(filepath.Join(site, "producer-acks", "kafka-4.3.1", LatestLink)); target != "20261130T100000Z" {
		t.Errorf("latest points at %q", target)
	}
	updated := mustRead(t, filepath.Join(site, IndexFile))
	if !strings.Contains(updated, "producer-acks/kafka-4.3.1/20261130T100000Z/index.html") {
		t.Errorf("the index does not list the new run")
	}
	comparisons := mustRead(t, filepath.Join(site, "producer-acks", comparisonsFile))

	clear(counts)
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	if counts["run"] != 5 || counts["index"] != 1 || counts["comparison"] != 2 {
		t.Errorf("the full render wrote %v, want 5 run pages, one index, 2 comparisons", counts)
	}
	if full := mustRead(t, filepath.Join(site, IndexFile)); full != updated {
		t.Errorf("the updated index differs from a full render's:\n%s", firstDiff(updated, full))
	}
	if full := mustRead(t, filepath.Join(site, "producer-acks", comparisonsFile)); full != comparisons {
		t.Errorf("%s differs after a full render:\n%s", comparisonsFile, firstDiff(comparisons, full))
	}
}

// TestUpdateSiteWithoutSummaries updates a site whose other runs left no
// summary (rendered by an older kafkabook) or a summary of evidence that
// changed since: their results are read, their pages are not rendered,
// and the index is a full render's.
func TestUpdateSiteWithoutSummaries(t *testing.T) {
	site, dirs := fixtureSite(t)
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dirs[2], SummaryFile)); err != nil {
		t.Fatal(err)
	}
	// The 4.0.0 run's evidence changes after its summary was written.
	r, err := results.Load(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	r.Title = "Changed since"
	if err := r.Write(dirs[0]); err != nil {
		t.Fatal(err)
	}
	added := mkRunDir(t, "testdata/acks", site, "producer-acks", "4.3.1", "20261130T100000Z")
	counts, runPages := countRenders(t)
	if err := UpdateSite(site, added, Options{}); err != nil {
		t.Fatal(err)
	}
	if counts["run"] != 1 || (*runPages)[0] != added {
		t.Errorf("run pages written: %v", *runPages)
	}
	for _, d := range dirs {
		if !fileExists(filepath.Join(d, SummaryFile)) {
			t.Errorf("%s has no summary after the update", d)
		}
	}
	updated := mustRead(t, filepath.Join(site, IndexFile))
	if !strings.Contains(updated, "Changed since") {
		t.Errorf("the index kept the stale summary of %s", dirs[0])
	}
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	if full := mustRead(t, filepath.Join(site, IndexFile)); full != updated {
		t.Errorf("the updated index differs from a full render's:\n%s", firstDiff(updated, full))
	}
}

// firstDiff shows where two pages first differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  " + al[i] + "\n  " + bl[i]
		}
	}
	return "lengths " + strconv.Itoa(len(al)) + " and " + strconv.Itoa(len(bl))
}

// TestRenderRefusesLinks replaces a run's runbook.md, and another run's
// results.json, by symbolic links: to a file outside the run directory
// and to a copy inside it. Render follows none, fails those runs, names
// them, and nothing they point at reaches a page.
func TestRenderRefusesLinks(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "os-release")
	if err := os.WriteFile(secret, []byte("PRETTY_NAME=\"secret host file\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	site, dirs := fixtureSite(t)
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	outside, inside := dirs[1], dirs[2]
	replaceWithLink(t, filepath.Join(outside, "runbook.md"), secret)
	copyPath := filepath.Join(inside, "copy.json")
	if err := os.Rename(filepath.Join(inside, results.FileName), copyPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("copy.json", filepath.Join(inside, results.FileName)); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{outside, inside} {
		err := Render(d, Options{})
		if err == nil || !strings.Contains(err.Error(), "is a symbolic link") || !strings.Contains(err.Error(), d) {
			t.Errorf("Render of %s: %v, want a refused symbolic link naming it", d, err)
		}
		if fileExists(filepath.Join(d, IndexFile)) || fileExists(filepath.Join(d, SummaryFile)) {
			t.Errorf("%s keeps its page or summary", d)
		}
	}
	var warned []string
	if err := RenderSite(site, Options{Warn: func(err error) { warned = append(warned, err.(*RunError).Dir) }}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(warned)
	if want := []string{outside, inside}; !slices.Equal(warned, sortedCopy(want)) {
		t.Errorf("RenderSite warned about %v, want %v", warned, want)
	}
	assertNowhere(t, site, "secret host file")
	index := mustRead(t, filepath.Join(site, IndexFile))
	for _, d := range []string{outside, inside} {
		if strings.Contains(index, filepath.Base(d)+"/index.html") {
			t.Errorf("the index lists %s", d)
		}
	}
}

// TestRenderRefusesTamperedRunbook changes a run's stored runbook after
// its page was published: render fails the run, naming it and both
// hashes, removes the stale page and leaves it out of the index.
func TestRenderRefusesTamperedRunbook(t *testing.T) {
	site, dirs := fixtureSite(t)
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	tampered := dirs[0]
	p := filepath.Join(tampered, "runbook.md")
	src := mustRead(t, p)
	if err := os.WriteFile(p, []byte(strings.Replace(src, "--acks 1", "--acks all", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Render(tampered, Options{})
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "does not match the runbook that produced this evidence") {
		t.Fatalf("Render of a tampered runbook: %v", err)
	}
	if fileExists(filepath.Join(tampered, IndexFile)) {
		t.Errorf("the stale page of %s stays", tampered)
	}
	var warned []error
	if err := RenderSite(site, Options{Warn: func(err error) { warned = append(warned, err) }}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || warned[0].(*RunError).Dir != tampered {
		t.Errorf("warnings %v", warned)
	}
	if index := mustRead(t, filepath.Join(site, IndexFile)); strings.Contains(index, "kafka-4.0.0/") {
		t.Errorf("the index lists the tampered run")
	}
	if _, err := os.Lstat(filepath.Join(site, "producer-acks", "compare-4.0.0-4.3.1.html")); err == nil {
		t.Errorf("the comparison with the tampered run stays")
	}
}

func replaceWithLink(t *testing.T, p, target string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// assertNowhere fails t if any file under dir holds s.
func assertNowhere(t *testing.T, dir, s string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
			t.Errorf("%s holds %q", p, s)
		}
		return nil
	})
}
