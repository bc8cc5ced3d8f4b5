package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/results"
)

// TestSiteTransactionVersions: the index flags a runbook whose releases met
// different transaction protocols (the provenance's transaction.version),
// says nothing while they agree, and each run page names its protocol.
func TestSiteTransactionVersions(t *testing.T) {
	site, dirs := fixtureSite(t)
	setLevel := func(dir string, level int16) {
		t.Helper()
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		r.Provenance.Features = map[string]int16{"metadata.version": 25}
		if level >= 0 { // -1: not finalized, as on Kafka 3.9.1: level 0
			r.Provenance.Features["transaction.version"] = level
		}
		if err := r.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	setLevel(dirs[0], 2) // 4.0.0
	setLevel(dirs[1], 2) // 4.3.1, newest
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	idx, _ := os.ReadFile(filepath.Join(site, IndexFile))
	if strings.Contains(string(idx), "different transaction protocols") {
		t.Errorf("the index flags transaction protocols that agree")
	}
	page, _ := os.ReadFile(filepath.Join(dirs[1], IndexFile))
	if want := "transaction.version 2: KIP-890"; !strings.Contains(string(page), want) {
		t.Errorf("run page lacks %q", want)
	}
	if want := "metadata.version=25 transaction.version=2"; !strings.Contains(string(page), want) {
		t.Errorf("run page lacks %q", want)
	}
	old, _ := os.ReadFile(filepath.Join(dirs[2], IndexFile)) // never recorded
	if want := "not recorded"; !strings.Contains(string(old), want) {
		t.Errorf("a run page without features lacks %q", want)
	}

	setLevel(dirs[0], -1)
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	idx, _ = os.ReadFile(filepath.Join(site, IndexFile))
	for _, want := range []string{"different transaction protocols", "<li>level 0 on 4.0.0</li>", "<li>level 2 on 4.3.1</li>"} {
		if !strings.Contains(string(idx), want) {
			t.Errorf("site index lacks %s", want)
		}
	}
}
