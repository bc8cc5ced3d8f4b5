package engine

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/driver"
)

// redactor replaces machine paths in everything the engine captures from
// outside (broker log lines, step output, error text) with stable
// placeholders: evidence is published, and a stranger reading it has no
// business with this machine's home directory.
type redactor struct{ r *strings.Replacer }

// newRedactor replaces the backend's own directories with its
// placeholders, then the user's home directory with "~", and every secret
// (the SASL password of cluster.Access.Secrets) with driver.Hidden.
func newRedactor(b cluster.Backend, secrets ...string) redactor {
	type pair struct{ from, to string }
	var pairs []pair
	for _, s := range secrets {
		if s != "" {
			pairs = append(pairs, pair{s, driver.Hidden})
		}
	}
	if p, ok := b.(cluster.Placeholders); ok {
		for from, to := range p.Placeholders() {
			pairs = append(pairs, pair{from, to})
			if real, err := filepath.EvalSymlinks(from); err == nil && real != from {
				pairs = append(pairs, pair{real, to})
			}
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" && home != "" {
		pairs = append(pairs, pair{home, "~"})
	}
	// Longest first, so a state directory under the home directory gets
	// its own placeholder.
	slices.SortFunc(pairs, func(a, b pair) int { return cmp.Compare(len(b.from), len(a.from)) })
	var args []string
	for _, p := range pairs {
		args = append(args, p.from, p.to)
	}
	return redactor{strings.NewReplacer(args...)}
}

func (x redactor) String(s string) string {
	if x.r == nil {
		return s
	}
	return x.r.Replace(s)
}

// runbookPath is how the evidence names the runbook: relative to the
// working directory when it is below it, else its file name.
func runbookPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Base(path)
	}
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Base(path)
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Base(path)
	}
	return rel
}
