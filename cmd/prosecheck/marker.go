package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// markerOpen starts an evidence marker. Markers are HTML comments, so that
// GitHub and the report pages (which omit raw HTML) show the prose alone.
const markerOpen = "<!-- evidence:"

// marker is one evidence comment of a document: the run directories it
// cites, relative to output/, and the claims it makes about them.
type marker struct {
	Pos    string // file:line
	Text   string // the comment as written, without <!-- and -->, shortened when it cites many runs
	Dirs   []string
	Claims []claim
	// Subset says the marker cites some of the published runs of its
	// cells on purpose (the sentence names which): written `subset`
	// before the directories.
	Subset bool
}

// readMarkers returns the evidence markers of the Markdown file path, in
// order, and an error for each comment that starts like a marker but
// cannot be read: a typo must not silently drop a check.
func readMarkers(path string) ([]marker, []error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, []error{fmt.Errorf("read %s: %w", path, err)}
	}
	defer f.Close()
	var out []marker
	var errs []error
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		rest := sc.Text()
		for {
			i := strings.Index(rest, markerOpen)
			if i < 0 {
				break
			}
			pos := fmt.Sprintf("%s:%d", path, n)
			j := strings.Index(rest[i:], "-->")
			if j < 0 {
				errs = append(errs, fmt.Errorf("%s: evidence marker not closed on its line: end it with --> on the same line", pos))
				break
			}
			m, err := parseMarker(pos, rest[i+len(markerOpen):i+j])
			if err != nil {
				errs = append(errs, err)
			} else {
				out = append(out, m)
			}
			rest = rest[i+j+3:]
		}
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("read %s: %w", path, err))
	}
	return out, errs
}

// parseMarker reads the inside of a marker: run directories, then claims
// separated by semicolons, e.g.
// "min-insync/kafka-4.3.1/20261130T084659Z acked(mis1)=30 per run".
func parseMarker(pos, body string) (marker, error) {
	fields := strings.Fields(body)
	m := marker{Pos: pos, Text: "evidence: " + strings.Join(fields, " ")}
	i := 0
	if len(fields) > 0 && fields[0] == "subset" {
		m.Subset, i = true, 1
	}
	for ; i < len(fields) && isDir(fields[i]); i++ {
		if err := checkDir(fields[i]); err != nil {
			return m, fmt.Errorf("%s: %s: %w", pos, m.Text, err)
		}
		m.Dirs = append(m.Dirs, strings.TrimSuffix(fields[i], "/"))
	}
	if len(m.Dirs) > 2 {
		m.Text = fmt.Sprintf("evidence: %s (and %d more) %s", m.Dirs[0], len(m.Dirs)-1, strings.Join(fields[i:], " "))
	}
	if len(m.Dirs) == 0 {
		return m, fmt.Errorf("%s: %s: no run directory: cite at least one, relative to output/, e.g. min-insync/kafka-4.3.1/20261130T084659Z", pos, m.Text)
	}
	rest := strings.TrimSpace(strings.Join(fields[i:], " "))
	if rest == "" {
		return m, fmt.Errorf("%s: %s: no claim: add one, e.g. lost(acks1)=10 per run", pos, m.Text)
	}
	for _, s := range strings.Split(rest, ";") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		c, err := parseClaim(s)
		if err != nil {
			return m, fmt.Errorf("%s: %s: %w", pos, m.Text, err)
		}
		m.Claims = append(m.Claims, c)
	}
	return m, nil
}

// isDir tells a cited directory from the first claim: directories have a
// slash and no parenthesis or comparison.
func isDir(s string) bool {
	return strings.Contains(s, "/") && !strings.ContainsAny(s, "()=<>!{")
}

// checkDir refuses directories a citation must not use: absolute or
// climbing paths, and the `latest` copies, which move with every run.
func checkDir(d string) error {
	if strings.HasPrefix(d, "/") {
		return fmt.Errorf("run directory %s is absolute: cite it relative to output/", d)
	}
	for _, part := range strings.Split(strings.TrimSuffix(d, "/"), "/") {
		switch part {
		case "..", ".", "":
			return fmt.Errorf("run directory %s: cite it relative to output/, without . or .. or empty parts", d)
		case "latest":
			return fmt.Errorf("run directory %s is a `latest` copy, which moves: cite the timestamped directory", d)
		}
	}
	return nil
}
