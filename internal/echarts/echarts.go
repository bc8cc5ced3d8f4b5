// Package echarts provides the Apache ECharts build that kafkabook's
// reports draw their charts with (npm package echarts, dist/echarts.min.js,
// Apache-2.0, with its LICENSE and NOTICE).
//
// A plain `go build` or `go install` embeds nothing: the first report
// fetches the pinned release's tarball from the npm registry with net/http,
// checks it against the pinned sha512 (the registry's dist.integrity),
// and keeps the three files in the cache, as Kafka's jars are kept:
// $KAFKABOOK_CACHE/echarts-<version>/, by default
// ~/.cache/kafkabook/echarts-<version>/. Release builds can embed the files
// instead: scripts/fetch-echarts.sh puts them into embed/, and
// `go build -tags embed_echarts` compiles them in.
package echarts

import (
	"context"
	"errors"
	"fmt"
	"github.com/kafkabook/kafkabook/internal/cachedir"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
)

// The pinned release. The integrity is the registry's dist.integrity of the
// tarball: `npm view echarts@6.1.0 dist.integrity`.
const (
	Version   = "6.1.0"
	Integrity = "sha512-q0yaFPggC9FUdsWH4blavRWFmxdrIodbkoKNAjJudAI6CA9gNPxHtV2RcZNEepZVlk4yvBYkOkbk6HIVpIyHZA=="
)

// DefaultRegistry is the npm registry the tarball comes from unless
// $KAFKABOOK_NPM_REGISTRY names another (a mirror, or a test server).
const DefaultRegistry = "https://registry.npmjs.org"

// The names of the files kept, in the cache directory and in embed/.
const (
	JSFile      = "echarts.min.js"
	LicenseFile = "LICENSE"
	NoticeFile  = "NOTICE"
	markerFile  = "integrity" // the tarball's integrity, written last
)

// Files is one echarts release: the browser build and its licence files.
type Files struct {
	Version string
	JS      []byte // dist/echarts.min.js
	License []byte
	Notice  []byte
	From    string // "embedded in this build", or the cache directory
}

// Registry is $KAFKABOOK_NPM_REGISTRY, else DefaultRegistry, without a
// trailing slash.
func Registry() string {
	if r := os.Getenv("KAFKABOOK_NPM_REGISTRY"); r != "" {
		return strings.TrimRight(r, "/")
	}
	return DefaultRegistry
}

// TarballURL is where a registry keeps the tarball of echarts@version.
func TarballURL(registry, version string) string {
	return strings.TrimRight(registry, "/") + "/echarts/-/echarts-" + version + ".tgz"
}

var (
	mu     sync.Mutex
	loaded = map[string]*Files{} // by cache directory
)

// Load returns the pinned echarts: embedded in this build, else from the
// cache, else downloaded into the cache (once; concurrent first uses by
// several processes are safe, each sees a complete directory or none).
// progress, when not nil, is told about a download. The error of a failed
// download says what failed and what to do.
func Load(ctx context.Context, progress func(string)) (*Files, error) {
	if embedded != nil {
		return embedded, nil
	}
	cache, err := cachedir.Dir()
	if err != nil {
		return nil, fmt.Errorf("echarts %s: %w", Version, err)
	}
	return load(ctx, spec{version: Version, integrity: Integrity, registry: Registry(), cache: cache}, progress)
}

// spec is what to fetch from where into which cache; tests use their own.
type spec struct {
	version, integrity string
	registry, cache    string
}

func (s spec) dir() string { return filepath.Join(s.cache, "echarts-"+s.version) }

func load(ctx context.Context, s spec, progress func(string)) (*Files, error) {
	mu.Lock()
	defer mu.Unlock()
	dir := s.dir()
	if f := loaded[dir]; f != nil {
		return f, nil
	}
	f, err := readDir(dir, s)
	if err != nil {
		if ferr := fetch(ctx, s, progress); ferr != nil {
			var ie *IntegrityError
			if errors.As(ferr, &ie) {
				return nil, ferr
			}
			return nil, fmt.Errorf("echarts %s is not in the cache (%s) and could not be downloaded: %w\n"+
				"kafkabook downloads it once, from the npm registry, for its reports' charts. "+
				"Connect this machine to the network and run the command again, "+
				"or set KAFKABOOK_NPM_REGISTRY to an npm registry mirror you can reach, "+
				"or use a kafkabook built with -tags embed_echarts (see scripts/fetch-echarts.sh)",
				s.version, dir, ferr)
		}
		if f, err = readDir(dir, s); err != nil {
			return nil, fmt.Errorf("echarts %s: %w", s.version, err)
		}
	}
	loaded[dir] = f
	return f, nil
}

// readDir reads a complete cache directory: the three files and the marker
// naming the pinned integrity.
func readDir(dir string, s spec) (*Files, error) {
	mark, err := os.ReadFile(filepath.Join(dir, markerFile))
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(mark)) != s.integrity {
		return nil, fmt.Errorf("%s holds another build of echarts %s (integrity %s)", dir, s.version, strings.TrimSpace(string(mark)))
	}
	f := &Files{Version: s.version, From: dir}
	for _, p := range []struct {
		name string
		to   *[]byte
	}{{JSFile, &f.JS}, {LicenseFile, &f.License}, {NoticeFile, &f.Notice}} {
		b, err := os.ReadFile(filepath.Join(dir, p.name))
		if err != nil {
			return nil, err
		}
		*p.to = b
	}
	return f, nil
}

// Copy writes the three files and a VERSION file into dir (for the embed
// directory of a release build).
func (f *Files) Copy(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string][]byte{JSFile: f.JS, LicenseFile: f.License, NoticeFile: f.Notice, "VERSION": []byte(f.Version + "\n")} {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
