package echarts

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// tarball builds an npm package tarball holding js as dist/echarts.min.js,
// with a LICENSE, a NOTICE and a file that is not kept.
func tarball(t *testing.T, js string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range []struct{ name, body string }{
		{"package/package.json", `{"name":"echarts"}`},
		{"package/LICENSE", "Apache License 2.0"},
		{"package/NOTICE", "Apache ECharts\n"},
		{"package/dist/echarts.min.js", js},
	} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func integrity(b []byte) string {
	s := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(s[:])
}

// registry serves body as the tarball of echarts@version, counting requests.
func registry(t *testing.T, version string, body []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path != "/echarts/-/echarts-"+version+".tgz" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// forget drops what this process remembers of earlier loads, as a new
// process would start.
func forget() {
	mu.Lock()
	defer mu.Unlock()
	loaded = map[string]*Files{}
}

// entries lists what a cache directory holds.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestFetchVerifyAndCache(t *testing.T) {
	forget()
	good := tarball(t, "/* echarts */ var echarts = {};")
	srv, hits := registry(t, "9.9.9", good)
	s := spec{version: "9.9.9", integrity: integrity(good), registry: srv.URL, cache: t.TempDir()}
	var said []string
	f, err := load(context.Background(), s, func(m string) { said = append(said, m) })
	if err != nil {
		t.Fatal(err)
	}
	if string(f.JS) != "/* echarts */ var echarts = {};" || string(f.License) != "Apache License 2.0" || string(f.Notice) != "Apache ECharts\n" || f.Version != "9.9.9" {
		t.Errorf("got %+v", f)
	}
	if len(said) != 1 || !strings.Contains(said[0], srv.URL) {
		t.Errorf("progress %q", said)
	}
	if got := strings.Join(entries(t, s.cache), " "); got != "echarts-9.9.9" {
		t.Errorf("cache holds %s, want only echarts-9.9.9", got)
	}
	if got := strings.Join(entries(t, s.dir()), " "); got != "LICENSE NOTICE echarts.min.js integrity" {
		t.Errorf("cache entry holds %s", got)
	}

	// A new process finds it in the cache, offline.
	forget()
	srv.Close()
	if _, err := load(context.Background(), s, nil); err != nil {
		t.Fatalf("from the cache: %v", err)
	}
	if hits.Load() != 1 {
		t.Errorf("%d downloads, want 1", hits.Load())
	}
}

// TestTamperedTarball: a registry serving other bytes than the pinned ones
// is refused before anything is extracted, and nothing is cached.
func TestTamperedTarball(t *testing.T) {
	forget()
	good := tarball(t, "var echarts = {};")
	bad := tarball(t, "var echarts = {}; fetch('https://evil.example/');")
	srv, _ := registry(t, "9.9.9", bad)
	s := spec{version: "9.9.9", integrity: integrity(good), registry: srv.URL, cache: t.TempDir()}
	_, err := load(context.Background(), s, nil)
	var ie *IntegrityError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want an IntegrityError", err)
	}
	if ie.Want != integrity(good) || ie.Got != integrity(bad) || !strings.Contains(err.Error(), "nothing was cached") {
		t.Errorf("error %v", err)
	}
	if got := entries(t, s.cache); len(got) != 0 {
		t.Errorf("cache holds %v after a refused download", got)
	}
}

// TestTamperedViaEnv goes through Load, the way kafkabook calls it, with
// the registry taken from KAFKABOOK_NPM_REGISTRY: the pinned integrity of
// the real release refuses anything else.
func TestTamperedViaEnv(t *testing.T) {
	if embedded != nil {
		t.Skip("this build embeds echarts; Load does not download")
	}
	forget()
	srv, hits := registry(t, Version, tarball(t, "var echarts = {};"))
	t.Setenv("KAFKABOOK_NPM_REGISTRY", srv.URL+"/")
	t.Setenv("KAFKABOOK_CACHE", t.TempDir())
	_, err := Load(context.Background(), nil)
	var ie *IntegrityError
	if !errors.As(err, &ie) || ie.Want != Integrity {
		t.Fatalf("got %v, want an IntegrityError against the pin", err)
	}
	if hits.Load() != 1 {
		t.Errorf("%d requests to the test registry", hits.Load())
	}
}

// TestOffline: nothing cached and no registry: the error says what failed
// and what to do.
func TestOffline(t *testing.T) {
	forget()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	s := spec{version: "9.9.9", integrity: "sha512-x", registry: url, cache: filepath.Join(t.TempDir(), "cache")}
	_, err := load(context.Background(), s, nil)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"echarts 9.9.9 is not in the cache", s.dir(), "could not be downloaded", url + "/echarts/-/echarts-9.9.9.tgz",
		"Connect this machine to the network", "KAFKABOOK_NPM_REGISTRY", "embed_echarts"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if got := entries(t, s.cache); len(got) != 0 {
		t.Errorf("cache holds %v", got)
	}

	// A missing tarball (404) is reported with its status.
	srv2, _ := registry(t, "1.0.0", nil)
	s.registry = srv2.URL
	if _, err := load(context.Background(), s, nil); err == nil || !strings.Contains(err.Error(), "404 Not Found") {
		t.Errorf("404: %v", err)
	}
}

// TestConcurrentFirstUse: processes fetching at once (here goroutines
// calling fetch directly, past the in-process lock) all end with one
// complete entry and no leftovers.
func TestConcurrentFirstUse(t *testing.T) {
	forget()
	good := tarball(t, strings.Repeat("var echarts = {};\n", 10000))
	srv, _ := registry(t, "9.9.9", good)
	s := spec{version: "9.9.9", integrity: integrity(good), registry: srv.URL, cache: t.TempDir()}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = fetch(context.Background(), s, nil) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("fetch %d: %v", i, err)
		}
	}
	f, err := readDir(s.dir(), s)
	if err != nil || !bytes.Equal(f.JS, []byte(strings.Repeat("var echarts = {};\n", 10000))) {
		t.Errorf("entry after concurrent fetches: %v", err)
	}
	if got := strings.Join(entries(t, s.cache), " "); got != "echarts-9.9.9" {
		t.Errorf("cache holds %s", got)
	}
}

// TestBrokenEntryReplaced: an entry for another build (its integrity
// marker differs) is fetched again and replaced.
func TestBrokenEntryReplaced(t *testing.T) {
	forget()
	good := tarball(t, "var echarts = {};")
	srv, hits := registry(t, "9.9.9", good)
	s := spec{version: "9.9.9", integrity: integrity(good), registry: srv.URL, cache: t.TempDir()}
	if err := os.MkdirAll(s.dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir(), markerFile), []byte("sha512-old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := load(context.Background(), s, nil)
	if err != nil || string(f.JS) != "var echarts = {};" || hits.Load() != 1 {
		t.Fatalf("%v, %d downloads", err, hits.Load())
	}
}

// TestPinned checks the pin's shape and, when this machine has the real
// release cached or embedded, that it is the one the pin names.
func TestPinned(t *testing.T) {
	if !strings.HasPrefix(Integrity, "sha512-") {
		t.Fatalf("Integrity %q is not a sha512", Integrity)
	}
	if b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(Integrity, "sha512-")); err != nil || len(b) != sha512.Size {
		t.Errorf("Integrity does not decode to 64 bytes: %v", err)
	}
	if embedded != nil {
		if embedded.Version != Version || len(embedded.JS) < 100000 || !strings.Contains(string(embedded.License), "Apache License") {
			t.Errorf("embedded echarts looks wrong: version %q, %d bytes", embedded.Version, len(embedded.JS))
		}
	}
}
