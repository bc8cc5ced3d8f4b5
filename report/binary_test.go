package report

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/echarts"
)

// needRegistry skips the test when the npm registry cannot be reached,
// except in CI, where that must fail the build.
func needRegistry(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	url := echarts.TarballURL(echarts.Registry(), echarts.Version)
	req, _ := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return
		}
		err = errorString(resp.Status)
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("the npm registry is out of reach (%s: %v)", url, err)
	}
	t.Skipf("the npm registry is out of reach (%s: %v)", url, err)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// TestPlainBuildRenders is what a user of `go install` gets: a binary
// built with plain `go build` (no tags, nothing fetched beforehand) and a
// fresh, empty cache renders a report whose charts draw in Chromium with
// every request off the machine blocked. A second render works from the
// cache with no registry at all; a first render with no registry says what
// failed and what to do.
func TestPlainBuildRenders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kafkabook and downloads echarts")
	}
	needChromium(t)
	needRegistry(t)
	bin := filepath.Join(t.TempDir(), "kafkabook")
	build := exec.Command("go", "build", "-o", bin, "github.com/kafkabook/kafkabook/cmd/kafkabook")
	build.Env = append(os.Environ(), "GOFLAGS=") // no -tags from the environment
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	site, dirs := fixtureSite(t)
	cache := filepath.Join(t.TempDir(), "cache")
	render := func(registry string, args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"render"}, args...)...)
		cmd.Env = append(os.Environ(), "KAFKABOOK_CACHE="+cache, "KAFKABOOK_NPM_REGISTRY="+registry)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	start := time.Now()
	out, err := render(echarts.Registry(), site)
	if err != nil {
		t.Fatalf("kafkabook render: %v\n%s", err, out)
	}
	t.Logf("first render with a fresh cache (echarts %s fetched): %v\n%s", echarts.Version, time.Since(start).Round(time.Millisecond), out)
	for _, f := range []string{echarts.JSFile, echarts.LicenseFile, echarts.NoticeFile} {
		if !fileExists(filepath.Join(cache, "echarts-"+echarts.Version, f)) {
			t.Errorf("the cache lacks echarts-%s/%s", echarts.Version, f)
		}
	}
	for _, a := range []string{assetJS, assetLicense, assetNotice} {
		if !fileExists(filepath.Join(site, assetsDir, a)) {
			t.Errorf("the site lacks assets/%s", a)
		}
	}
	page, _ := os.ReadFile(filepath.Join(dirs[1], IndexFile))
	if !strings.Contains(string(page), "Charts drawn with Apache ECharts "+echarts.Version+" (Apache License 2.0") {
		t.Errorf("the footer does not name echarts %s and its licence", echarts.Version)
	}
	assertClean(t, "report", browse(t, filepath.Join(dirs[1], IndexFile)), pageCharts)
	assertClean(t, "site index", browse(t, filepath.Join(site, IndexFile)), 2)

	// From the cache, with no registry.
	nowhere := "http://127.0.0.1:1"
	if out, err := render(nowhere, site); err != nil {
		t.Errorf("render from the cache: %v\n%s", err, out)
	}
	single := t.TempDir()
	copyFiles(t, dirs[1], single)
	if out, err := render(nowhere, "--single-file", single); err != nil {
		t.Errorf("single-file render from the cache: %v\n%s", err, out)
	} else {
		assertClean(t, "single file", browse(t, filepath.Join(single, IndexFile)), pageCharts)
	}

	// Offline with nothing cached.
	cache = filepath.Join(t.TempDir(), "empty")
	out, err = render(nowhere, site)
	if err == nil {
		t.Fatalf("render offline with an empty cache succeeded:\n%s", out)
	}
	for _, want := range []string{"echarts " + echarts.Version + " is not in the cache", "could not be downloaded", "KAFKABOOK_NPM_REGISTRY"} {
		if !strings.Contains(out, want) {
			t.Errorf("offline error lacks %q:\n%s", want, out)
		}
	}
}
