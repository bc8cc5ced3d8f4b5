// Package report turns the evidence of a kafkabook run (results.json and the
// stored copy of its runbook) into a static HTML page, and a directory of
// such runs into a site with an index. It needs no cluster: a report can be
// rebuilt from results alone at any time.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/templates"
)

// Options control how pages are written.
type Options struct {
	// SingleFile inlines echarts into each page, for a self-contained file
	// to attach to a decision record. Otherwise pages load the site's shared
	// copy under <Site>/assets/.
	SingleFile bool
	// Site is the root of the report site (the directory holding assets/
	// and index.html). Empty means three levels above a run directory,
	// which is the layout <site>/<runbook>/kafka-<version>/<time>/.
	Site string
	// Generator names the tool in page footers, e.g. "kafkabook v0.3.0".
	// Empty means "kafkabook".
	Generator string

	siteIndex bool // the site index is being written too: link to it
}

// IndexFile is the name of every page written.
const IndexFile = "index.html"

var (
	parseOnce sync.Once
	pages     *template.Template
	parseErr  error
)

// tmpl returns the parsed page templates.
func tmpl() (*template.Template, error) {
	parseOnce.Do(func() {
		pages, parseErr = templates.Parse(template.FuncMap{
			"licenseURL": func(src string) string { return path.Join(path.Dir(src), assetLicense) },
			"noticeURL":  func(src string) string { return path.Join(path.Dir(src), assetNotice) },
		})
	})
	return pages, parseErr
}

// Render writes dir/index.html from dir/results.json (or, for a run that
// crashed before writing it, from dir/events.jsonl) and the stored copy of
// the runbook. Unless opts.SingleFile, it also makes sure the site's
// assets/ holds echarts with its LICENSE and NOTICE.
func Render(dir string, opts Options) error {
	r, err := loadRun(dir)
	if err != nil {
		return err
	}
	return renderRun(dir, r, opts)
}

// renderRun writes dir/index.html for the evidence r.
func renderRun(dir string, r *results.Results, opts Options) error {
	site := opts.Site
	if site == "" {
		site = filepath.Join(dir, "..", "..", "..")
	}
	h, err := pageHead(dir, site, opts)
	if err != nil {
		return err
	}
	page := buildReport(r, runbookSource(dir, r), h)
	var buf bytes.Buffer
	t, err := tmpl()
	if err != nil {
		return err
	}
	if err := t.ExecuteTemplate(&buf, "report.html.tmpl", page); err != nil {
		return fmt.Errorf("report: %s: %w", dir, err)
	}
	return writeFile(filepath.Join(dir, IndexFile), buf.Bytes())
}

// loadRun reads a run directory's evidence: results.json, or a replay of
// events.jsonl when only that survived.
func loadRun(dir string) (*results.Results, error) {
	r, err := results.Load(dir)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ev := filepath.Join(dir, results.EventsFileName)
	if _, serr := os.Stat(ev); serr != nil {
		return nil, fmt.Errorf("report: %s holds neither %s nor %s", dir, results.FileName, results.EventsFileName)
	}
	return results.Replay(ev)
}

// runbookSource is the stored runbook, or a note saying why there is none.
type source struct {
	Text []byte
	Note string
}

func runbookSource(dir string, r *results.Results) source {
	name := r.Runbook.File
	if name == "" {
		return source{Note: "The runbook's source was not stored with this evidence; its steps are shown as they ran."}
	}
	if !filepath.IsLocal(name) {
		return source{Note: "The stored runbook path " + name + " is outside the run directory and was not read; the steps are shown as they ran."}
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return source{Note: "The stored runbook " + name + " could not be read (" + err.Error() + "); the steps are shown as they ran."}
	}
	return source{Text: b}
}

// pageHead prepares echarts for a page in dir: inline, or the relative URL
// of the site's shared copy, which it writes when missing or stale.
func pageHead(dir, site string, opts Options) (head, error) {
	gen := opts.Generator
	if gen == "" {
		gen = "kafkabook"
	}
	h := head{Style: templates.Style(), Script: templates.InitScript(), Generator: gen, ChartsNeeded: true}
	e, err := templates.LoadEcharts()
	if err != nil {
		return h, fmt.Errorf("report: %w", err)
	}
	h.EchartsVer = e.Version
	if opts.SingleFile {
		if bytes.Contains(bytes.ToLower(e.JS), []byte("</script")) {
			return h, errors.New("report: the bundled echarts contains </script and cannot be inlined")
		}
		h.EchartsJS = template.JS(e.JS)
		h.EchartsNote = strings.Join(strings.Fields(string(e.Notice)), " ")
		return h, nil
	}
	if err := writeAssets(site, e); err != nil {
		return h, err
	}
	src, err := relURL(dir, filepath.Join(site, assetsDir, assetJS))
	if err != nil {
		return h, err
	}
	h.EchartsSrc = src
	if idx := filepath.Join(site, IndexFile); (opts.siteIndex || fileExists(idx)) && !sameDir(dir, site) {
		h.SiteIndex, _ = relURL(dir, idx)
	}
	return h, nil
}

// relURL is target relative to dir, as a URL path.
func relURL(dir, target string) (string, error) {
	ad, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	at, err := filepath.Abs(target)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(ad, at)
	if err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return filepath.ToSlash(rel), nil
}

func sameDir(a, b string) bool {
	aa, _ := filepath.Abs(a)
	bb, _ := filepath.Abs(b)
	return aa == bb
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// buildReport assembles the page model.
func buildReport(r *results.Results, src source, h head) reportPage {
	labels := r.Labels()
	p := reportPage{
		Title:     r.Title,
		Runbook:   r.Runbook,
		Verdict:   newVerdict(r),
		Complete:  r.Complete,
		Error:     r.Error,
		Kafka:     r.Provenance.Kafka,
		Backend:   r.Provenance.Backend,
		Date:      stamp(r.Provenance.Start),
		Facts:     provenanceFacts(r),
		Params:    sortedFacts(r.Provenance.Params),
		Broker:    sortedFacts(r.Provenance.Broker),
		Summaries: summaries(r, labels),
		Logs:      logsOf(r),
		Head:      h,
	}
	if p.Title == "" {
		p.Title = r.Runbook.Name
	}
	p.Charts = []chart{lostChart(r, labels), latencyChart(r), distributionChart(r, labels), isrChart(r)}
	if src.Text != nil {
		p.Cells = notebook(src.Text, r)
	} else {
		p.NoRunbook = src.Note
		p.Cells = notebookFromSteps(r)
	}
	return p
}
