package echarts

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
)

// Limits on what a download may hold: the 6.1.0 tarball is 12 MB, its
// echarts.min.js 1.1 MB.
const (
	maxTarball = 64 << 20
	maxFile    = 16 << 20
)

// client fetches the tarball; the timeout bounds a stalled download.
var client = &http.Client{Timeout: 5 * time.Minute}

// IntegrityError is a download that does not match the pinned sha512:
// nothing of it is kept.
type IntegrityError struct {
	URL, Want, Got string
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("%s failed its integrity check: want %s, got %s; the download was discarded and nothing was cached "+
		"(a registry or proxy serving other bytes under this name must not be trusted)", e.URL, e.Want, e.Got)
}

// fetch downloads the tarball of s, checks it against s.integrity before
// looking inside, extracts the three files into a new directory beside the
// cache entry, and renames that directory into place: a reader sees a
// complete entry or none. Of two processes fetching at once, the second
// rename fails and the first one's entry is used.
func fetch(ctx context.Context, s spec, progress func(string)) error {
	url := TarballURL(s.registry, s.version)
	if err := os.MkdirAll(s.cache, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(s.cache, ".echarts-"+s.version+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if progress != nil {
		progress(fmt.Sprintf("fetching echarts %s for the report's charts from %s (once; kept in %s)", s.version, url, s.dir()))
	}
	tgz := filepath.Join(tmp, "echarts.tgz")
	got, err := download(ctx, url, tgz)
	if err != nil {
		return err
	}
	if got != s.integrity {
		return &IntegrityError{URL: url, Want: s.integrity, Got: got}
	}
	files, err := extract(tgz)
	if err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	out := filepath.Join(tmp, "echarts")
	if err := os.Mkdir(out, 0o755); err != nil {
		return err
	}
	for _, name := range []string{JSFile, LicenseFile, NoticeFile} {
		if err := atomicfile.WriteFile(filepath.Join(out, name), files[name], 0o644); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(out, markerFile), []byte(s.integrity+"\n"), 0o644); err != nil {
		return err
	}
	dir := s.dir()
	if err := os.Rename(out, dir); err != nil {
		if _, rerr := readDir(dir, s); rerr == nil {
			return nil // another process got there first
		}
		// A broken or outdated entry: move it aside (into tmp, which
		// goes away) and put ours in its place.
		if merr := os.Rename(dir, filepath.Join(tmp, "old")); merr != nil && !errors.Is(merr, os.ErrNotExist) {
			return fmt.Errorf("replace %s: %w", dir, merr)
		}
		if err := os.Rename(out, dir); err != nil {
			if _, rerr := readDir(dir, s); rerr == nil {
				return nil
			}
			return err
		}
	}
	return atomicfile.SyncDir(s.cache)
}

// download writes url to path and returns the sha512 integrity string of
// what it wrote.
func download(ctx context.Context, url, path string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	h := sha512.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, maxTarball+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	if n > maxTarball {
		return "", fmt.Errorf("GET %s: larger than %d bytes", url, maxTarball)
	}
	return "sha512-" + base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
}

// The files of the npm package that are kept, by their name in the cache.
var wanted = map[string]string{
	"package/dist/echarts.min.js": JSFile,
	"package/LICENSE":             LicenseFile,
	"package/NOTICE":              NoticeFile,
}

// extract reads the kept files out of a verified npm tarball.
func extract(tgz string) (map[string][]byte, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		name, ok := wanted[h.Name]
		if !ok || h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxFile+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxFile {
			return nil, fmt.Errorf("%s is larger than %d bytes", h.Name, maxFile)
		}
		out[name] = b
	}
	for path, name := range wanted {
		if len(out[name]) == 0 {
			return nil, fmt.Errorf("the package holds no %s", path)
		}
	}
	return out, nil
}
