package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// The lint: every number, duration, release, commit and message range the
// prose states is covered by the marker that ends its sentence — it is
// written among that marker's claims, cited directories or their runs'
// provenance — so that no number reaches a reader unchecked. Exempt are
// what is not a claim about runs: code spans and code blocks, headings,
// pasted evidence blocks (checked byte for byte), link targets, names
// that hold a digit (k1, p99, acks1), references (KAFKA-13773, KIP-890,
// ADR 0001), quotations of configuration (acks=1, or a number the
// runbooks' own steps and front matter write, such as a 120 s timeout),
// and a number written in a source marker: a sentence about a client's
// or Kafka's code, or about an article, names what it quotes in an HTML
// comment after it, numbers included, as
//
//	<!-- source: franz-go v1.22.3 pkg/kgo/config.go: RequestTimeoutOverhead 10s -->
//
// which says how the sentence is known where no run can show it.

var (
	// tokenRe finds what the lint looks at in prose, first match wins:
	// references, message ranges, dates, releases, commits, names and
	// configuration (exempt or checked as they are), then numbers.
	tokenRe = regexp.MustCompile(`(?:KAFKA|KIP|ADR|RFC|JDK)[- ]\d+` +
		`|m-\d+(?:\.\.m-\d+)?` +
		`|\b\d{4}-\d{2}-\d{2}\b` +
		`|\bv?\d+\.\d+\.\d+\b` +
		`|\b[0-9a-f]*[a-f][0-9a-f]*\b` +
		`|[A-Za-z_][A-Za-z0-9_.@-]*\d[A-Za-z0-9_.@-]*` +
		`|[a-z][a-z0-9_.]*=\S+` +
		`|\d+(?:,\d{3})*(?:\.\d+)?`)
	dateRe    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	releaseRe = regexp.MustCompile(`^v?\d+\.\d+\.\d+$`)
	commitRe  = regexp.MustCompile(`^[0-9a-f]{7,40}$`)
	numRe     = regexp.MustCompile(`^\d+(?:,\d{3})*(?:\.\d+)?$`)
	seriesRe  = regexp.MustCompile(`^\d+\.\d+$`)
	rangeRe   = regexp.MustCompile(`^m-\d+(?:\.\.m-\d+)?$`)
	// valueRe finds the values a marker's claims write, the numbers of a
	// log line's text too, but not the digits of a name (acks1, k1).
	valueRe = regexp.MustCompile(`(m-\d+(?:\.\.m-\d+)?|\b\d+(?:\.\d+)?)(?:ns|us|µs|ms|s|m|h)?\b`)
)

// stated is one number of the prose with where it stands.
type stated struct {
	Line int
	Text string
}

// segment is prose up to a marker (or to the end of its paragraph, with
// no marker): the numbers it states and the markers that cover them.
type segment struct {
	Numbers []stated
	Markers []string // the markers' bodies, as written
	Sources []string // the source markers' bodies
}

// sourceOpen starts a source marker.
const sourceOpen = "<!-- source:"

// lint prints every number of path's prose that no marker covers and
// reports whether there was none. config holds the numbers the runbooks'
// steps and front matter write, which prose may quote.
func (l *loader) lint(w io.Writer, path string, config map[string]bool) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(w, "%s: %v\n", path, err)
		return false
	}
	blocks, err := readBlocks(path)
	if err != nil {
		fmt.Fprintln(w, err)
		return false
	}
	good := true
	for _, s := range segments(src, blocks) {
		covered := l.covering(s.Markers, s.Sources)
		for _, n := range s.Numbers {
			if config[n.Text] && !rangeRe.MatchString(n.Text) || covered(n.Text) {
				continue
			}
			good = false
			where := "no marker ends its sentence"
			if len(s.Markers)+len(s.Sources) > 0 {
				where = "the marker after it does not state it"
			}
			fmt.Fprintf(w, "%s:%d: %s: %s: claim it in an evidence marker, or name where it comes from in a source marker\n", path, n.Line, n.Text, where)
		}
	}
	return good
}

// segments splits the prose of a Markdown document into segments.
func segments(src []byte, blocks []block) []segment {
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	doc := md.Parser().Parse(text.NewReader(src))
	lineOf := func(off int) int { return bytes.Count(src[:off], []byte("\n")) + 1 }
	inBlock := func(line int) bool {
		for _, b := range blocks {
			if line >= b.Line && line < b.Line+strings.Count(b.Text, "\n") {
				return true
			}
		}
		return false
	}
	var out []segment
	var cur segment
	flush := func() {
		if len(cur.Numbers) > 0 {
			out = append(out, cur)
		}
		cur = segment{}
	}
	var walk func(n ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case *ast.Heading, *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock, *ast.CodeSpan:
			return
		case *ast.Paragraph, *ast.TextBlock, *east.TableCell:
			if n.Lines().Len() > 0 && inBlock(lineOf(n.Lines().At(0).Start)) {
				return
			}
			flush()
			defer flush()
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				s := n.Segments.At(i)
				b.Write(src[s.Start:s.Stop])
			}
			raw := b.String()
			if body, ok := strings.CutPrefix(raw, markerOpen); ok {
				cur.Markers = append(cur.Markers, strings.TrimSuffix(body, "-->"))
			} else if body, ok := strings.CutPrefix(raw, sourceOpen); ok {
				cur.Sources = append(cur.Sources, strings.TrimSuffix(body, "-->"))
			}
			return
		case *ast.Text:
			seg := n.Segment
			if strings.TrimSpace(string(src[seg.Start:seg.Stop])) == "" {
				return // between two markers of one sentence, or a line's end
			}
			if len(cur.Markers)+len(cur.Sources) > 0 {
				// Prose after a marker starts the next sentence.
				flush()
			}
			line := lineOf(seg.Start)
			for _, tok := range tokenRe.FindAllString(string(src[seg.Start:seg.Stop]), -1) {
				if isNumber(tok) {
					cur.Numbers = append(cur.Numbers, stated{Line: line, Text: tok})
				}
			}
			return
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			walk(c)
		}
	}
	walk(doc)
	flush()
	return out
}

// isNumber says whether a token is one the lint checks: a number, a
// message range, a date, a release or a commit; names, references and
// configuration are not.
func isNumber(tok string) bool {
	switch {
	case numRe.MatchString(tok), rangeRe.MatchString(tok), dateRe.MatchString(tok), releaseRe.MatchString(tok):
		return true
	case commitRe.MatchString(tok):
		return strings.ContainsAny(tok, "0123456789") // commitRe asks for 7 hex digits or more
	}
	return false
}

// covering returns whether a marker of markers states a token: among its
// claims' values, its cited directories (release and date), or the
// provenance of the runs they hold (client versions, commits).
func (l *loader) covering(markers, sources []string) func(string) bool {
	values := map[string]bool{}
	var prov, releases []string
	for _, src := range sources {
		for _, v := range tokenRe.FindAllString(src, -1) {
			values[strings.ReplaceAll(v, ",", "")] = true
		}
		for _, v := range valueRe.FindAllStringSubmatch(src, -1) {
			values[v[1]] = true
		}
	}
	for _, body := range markers {
		m, err := parseMarker("", body)
		if err != nil {
			continue // reported by the marker check
		}
		for _, c := range m.Claims {
			for _, v := range valueRe.FindAllStringSubmatch(c.Text, -1) {
				values[v[1]] = true
			}
		}
		for _, d := range m.Dirs {
			parts := strings.Split(d, "/")
			if len(parts) >= 3 {
				rel, _, _ := strings.Cut(strings.TrimPrefix(parts[1], "kafka-"), "-")
				values[rel] = true
				releases = append(releases, rel)
				ts := parts[2]
				if len(ts) >= 8 {
					values[ts[:4]+"-"+ts[4:6]+"-"+ts[6:8]] = true
				}
			}
			if r, err := l.load(d); err == nil {
				if b, err := json.Marshal(r.Provenance); err == nil {
					prov = append(prov, string(b))
				}
			}
		}
	}
	return func(tok string) bool {
		t := strings.ReplaceAll(tok, ",", "")
		if values[t] || values[strings.TrimPrefix(t, "v")] {
			return true
		}
		if seriesRe.MatchString(t) && slices.ContainsFunc(releases, func(r string) bool { return strings.HasPrefix(r, t+".") }) {
			return true // a release series (4.1) some cited run is of
		}
		if releaseRe.MatchString(t) || commitRe.MatchString(t) {
			return slices.ContainsFunc(prov, func(p string) bool { return strings.Contains(p, t) })
		}
		return false
	}
}

// configNumRe finds the numbers a runbook's steps and front matter write,
// a duration's without its unit (120s, 2s).
var configNumRe = regexp.MustCompile(`\d+(?:\.\d+)?`)

// configNumbers returns the numbers a file may quote from runbooks: an
// example's own, or for a file outside the examples (the decision record,
// the README) every example's.
func (l *loader) configNumbers(path string) map[string]bool {
	if l.examples == "" || filepath.Dir(path) == filepath.Clean(l.examples) {
		return fileConfig(path)
	}
	out := map[string]bool{}
	ex, _ := filepath.Glob(filepath.Join(l.examples, "*.md"))
	for _, f := range ex {
		maps.Copy(out, fileConfig(f))
	}
	return out
}

// fileConfig returns the numbers the file's front matter and fenced
// code blocks write: prose that names them quotes the runbook.
func fileConfig(path string) map[string]bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	lines := strings.Split(string(src), "\n")
	in := false
	for i, line := range lines {
		fence := strings.HasPrefix(line, "```")
		front := strings.TrimSpace(line) == "---" && (i == 0 || in)
		switch {
		case fence || front:
			in = !in
		case in:
			for _, n := range configNumRe.FindAllString(line, -1) {
				out[n] = true
			}
		}
	}
	return out
}
