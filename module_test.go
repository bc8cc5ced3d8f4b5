package kafkabook

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// maxModuleZip is the most the module's zip may weigh: what `go install
// ...@version` downloads. The published evidence under output/ (a nested
// module of its own) is what once made it 100 MB; the code and its test
// data alone passed 2 MiB with the resource faults (2.0 MiB compressed,
// the largest files the report's test runs of about 0.5 MB each).
const maxModuleZip = 3 << 20

// TestModuleZip packs the module as `go mod download` does and fails when
// a file under output/ is in it or the zip is over maxModuleZip.
func TestModuleZip(t *testing.T) {
	if _, err := os.Stat("output/go.mod"); err != nil {
		t.Fatalf("output/go.mod: %v: the published evidence must be a module of its own, or every go install downloads it", err)
	}
	var buf bytes.Buffer
	mv := module.Version{Path: "github.com/kafkabook/kafkabook", Version: "v0.0.0-20260101000000-000000000000"}
	if err := zip.CreateFromDir(&buf, mv, "."); err != nil {
		t.Fatalf("packing the module: %v", err)
	}
	files, err := zip.CheckDir(".")
	if err != nil {
		t.Fatalf("checking the module's files: %v", err)
	}
	for _, f := range files.Valid {
		if f == "output" || strings.HasPrefix(f, "output/") {
			t.Errorf("%s is in the module zip: the published evidence must stay out of it", f)
		}
	}
	t.Logf("module zip: %d files, %d bytes", len(files.Valid), buf.Len())
	if buf.Len() > maxModuleZip {
		t.Errorf("module zip is %d bytes, over %d: something large entered the module", buf.Len(), maxModuleZip)
	}
}
