// Package kafkaconfig is each Kafka release's own catalogue of broker and
// topic settings, generated from the release's jars by cmd/genkafkaconfig
// and embedded here, so that a runbook's broker: map and a topic's --config
// values are checked against what that release accepts rather than against
// a list typed by hand. It also says which settings kafkabook owns (node
// identity, listeners, quorum, directories, anything that loads a class or
// names a host path) and refuses them, with the reason.
package kafkaconfig

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Kind is which catalogue a setting belongs to.
type Kind string

// The two catalogues a release has.
const (
	Broker Kind = "broker" // kafka.server.KafkaConfig.configDef()
	Topic  Kind = "topic"  // LogConfig.configKeys()
)

// Setting is one entry of a release's catalogue.
type Setting struct {
	Name  string
	Type  string // Kafka's ConfigDef.Type: INT, LONG, SHORT, DOUBLE, BOOLEAN, STRING, LIST, CLASS, PASSWORD
	Valid string // the validator as Kafka prints it, "[1,...]", or ""
}

// catalogDir holds RELEASE-broker.txt and RELEASE-topic.txt per release.
//
//go:embed catalog/*.txt
var catalogDir embed.FS

// ErrUnknown is wrapped by the error for a name the release's catalogue
// does not hold, so that callers can add a suggestion from Names.
var ErrUnknown = errors.New("unknown setting")

// ErrOwned is wrapped by the error for a setting a runbook may not set
// (see Owned), so that callers can point at the name rather than the value.
var ErrOwned = errors.New("a runbook cannot set it")

var (
	loadOnce sync.Once
	catalogs map[string]map[Kind]map[string]Setting // release → kind → name
	releases []string
)

// load parses every embedded catalogue once.
func load() {
	catalogs = map[string]map[Kind]map[string]Setting{}
	files, _ := fs.Glob(catalogDir, "catalog/*.txt")
	for _, f := range files {
		base := strings.TrimSuffix(strings.TrimPrefix(f, "catalog/"), ".txt")
		release, kind, ok := strings.Cut(base, "-")
		if !ok || (Kind(kind) != Broker && Kind(kind) != Topic) {
			panic("kafkaconfig: unexpected catalogue file " + f)
		}
		data, _ := catalogDir.ReadFile(f)
		if catalogs[release] == nil {
			catalogs[release] = map[Kind]map[string]Setting{}
			releases = append(releases, release)
		}
		catalogs[release][Kind(kind)] = parseCatalog(string(data))
	}
	slices.SortFunc(releases, compareVersions)
}

// parseCatalog reads lines of name, type and validator separated by tabs;
// lines starting with '#' are comments.
func parseCatalog(data string) map[string]Setting {
	out := map[string]Setting{}
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		for len(f) < 3 {
			f = append(f, "")
		}
		out[f[0]] = Setting{Name: f[0], Type: f[1], Valid: f[2]}
	}
	return out
}

// compareVersions orders releases numerically part by part: 4.0.0 < 4.3.1 < 4.10.0.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < min(len(as), len(bs)); i++ {
		x, errx := strconv.Atoi(as[i])
		y, erry := strconv.Atoi(bs[i])
		if errx != nil || erry != nil {
			if c := strings.Compare(as[i], bs[i]); c != 0 {
				return c
			}
			continue
		}
		if x != y {
			return x - y
		}
	}
	return len(as) - len(bs)
}

// Releases returns the Kafka releases whose catalogues are embedded, oldest
// first: the releases a runbook may ask for.
func Releases() []string {
	loadOnce.Do(load)
	return slices.Clone(releases)
}

// Known returns nil when release has a catalogue, else an error naming the
// releases that do.
func Known(release string) error {
	loadOnce.Do(load)
	if catalogs[release] != nil {
		return nil
	}
	return fmt.Errorf("release %s is not one kafkabook knows: use one of %s", release, strings.Join(releases, ", "))
}

// Names returns the sorted names of a release's catalogue of kind, for
// did-you-mean suggestions; nil for an unknown release.
func Names(release string, kind Kind) []string {
	loadOnce.Do(load)
	var out []string
	for n := range catalogs[release][kind] {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Lookup returns the setting name of kind in release.
func Lookup(release string, kind Kind, name string) (Setting, bool) {
	loadOnce.Do(load)
	s, ok := catalogs[release][kind][name]
	return s, ok
}
