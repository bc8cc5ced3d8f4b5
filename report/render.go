// Package report turns the evidence of a kafkabook run (results.json and the
// stored copy of its runbook) into a static HTML page, and a directory of
// such runs into a site with an index. It needs no cluster: a report can be
// rebuilt from results alone at any time.
package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
	"github.com/kafkabook/kafkabook/internal/echarts"
	"github.com/kafkabook/kafkabook/internal/safetext"
	"github.com/kafkabook/kafkabook/internal/templates"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// Options control how pages are written.
type Options struct {
	// SingleFile inlines echarts into each page, for a self-contained file
	// to attach to a decision record. Otherwise pages load the site's shared
	// copy under <Site>/assets/.
	SingleFile bool
	// Site is the root of the report site (the directory holding assets/
	// and index.html). Empty means three levels above a run directory laid
	// out as <site>/<runbook>/kafka-<version>/<time>/, and the run
	// directory itself for any other.
	Site string
	// Generator names the tool in page footers, e.g. "kafkabook v0.3.0".
	// Empty means "kafkabook".
	Generator string
	// Warn, when set, receives from RenderSite and UpdateSite every
	// problem that concerns one other run directory only (its evidence
	// unreadable, of an unknown schema or not its own, its page not
	// written), as a *RunError; the site is rendered without that run and
	// does not fail for it. Without Warn those problems are part of the
	// error returned.
	Warn func(error)
	// Progress, when set, is told about slow one-time work: the first
	// report on a machine fetches echarts into the cache.
	Progress func(string)
	// Context bounds that fetch; nil means context.Background().
	Context context.Context

	siteIndex     bool // the site index is being written too: link to it
	assetsWritten bool // RenderSite wrote <Site>/assets/ already
}

// RunError is a problem with one run directory of a site.
type RunError struct {
	Dir string
	Err error
}

func (e *RunError) Error() string { return e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

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
// the runbook, and dir/summary.json for the site index. Unless
// opts.SingleFile, it also makes sure the site's assets/ holds echarts
// with its LICENSE and NOTICE.
//
// Only the run's own files are read, never through a symbolic link, and
// the stored runbook must be the one whose sha256 the results recorded. A
// run whose evidence cannot be read gets no page: the error is returned
// as a *RunError, and a page left from an earlier render is removed.
func Render(dir string, opts Options) error {
	ev, err := readRun(dir)
	if err != nil {
		return &RunError{Dir: dir, Err: errors.Join(err, removePage(dir))}
	}
	_, err = renderRun(dir, ev, opts)
	return err
}

// rendered is told of every page written (kind "run", "index" or
// "comparison"), so that tests can count what a site update rewrites.
var rendered = func(kind, path string) {}

// renderRun writes dir/index.html for the evidence ev and dir/summary.json,
// and returns the summary.
func renderRun(dir string, ev *runEvidence, opts Options) (runSummary, error) {
	site := opts.Site
	if site == "" {
		site = siteOf(dir)
	}
	h, err := pageHead(dir, site, opts)
	if err != nil {
		return runSummary{}, err
	}
	src := ev.src
	src.Schema = ev.resultsV
	page := buildReport(ev.r, src, h)
	var buf bytes.Buffer
	t, err := tmpl()
	if err != nil {
		return runSummary{}, err
	}
	if err := t.ExecuteTemplate(&buf, "report.html.tmpl", page); err != nil {
		return runSummary{}, fmt.Errorf("report: %s: %w", dir, err)
	}
	p := filepath.Join(dir, IndexFile)
	if err := writePage(p, buf.Bytes()); err != nil {
		return runSummary{}, err
	}
	rendered("run", p)
	sum := summarize(ev.r, page.exps)
	return sum, writeSummary(dir, ev.from, sum)
}

// writePage writes a rendered page, every bidi control in it shown
// (safetext.Page): the templates hold none, so each came from the
// evidence.
func writePage(p string, page []byte) error { return writeFile(p, safetext.Page(page)) }

// writeFile writes a page or an asset atomically and durably.
func writeFile(p string, data []byte) error {
	if err := atomicfile.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// loadEcharts returns the pinned echarts: embedded, cached, or fetched into
// the cache once.
func loadEcharts(opts Options) (*echarts.Files, error) {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	e, err := echarts.Load(ctx, opts.Progress)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return e, nil
}

// siteOf is the site a run directory belongs to: three levels up when it
// sits in <site>/<runbook>/kafka-<version>/, else the directory itself.
func siteOf(dir string) string {
	parent := filepath.Dir(filepath.Clean(dir))
	if strings.HasPrefix(filepath.Base(parent), "kafka-") {
		return filepath.Dir(filepath.Dir(parent))
	}
	return dir
}

// isRunDir reports whether dir holds a run's evidence.
func isRunDir(dir string) bool {
	return lexists(filepath.Join(dir, results.FileName)) || lexists(filepath.Join(dir, results.EventsFileName))
}

// lexists reports whether p names anything, a symbolic link included.
func lexists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// source is the stored runbook, or a note saying why there is none.
type source struct {
	Text   []byte
	Note   string
	Schema int // of results.json as written, when it matters (see writtenSchema)
}

// pageHead prepares echarts for a page in dir: inline, or the relative URL
// of the site's shared copy, which it writes when missing or stale.
func pageHead(dir, site string, opts Options) (head, error) {
	gen := opts.Generator
	if gen == "" {
		gen = "kafkabook"
	}
	h := head{Style: templates.Style(), Script: templates.InitScript(), Generator: gen, ChartsNeeded: true}
	e, err := loadEcharts(opts)
	if err != nil {
		return h, err
	}
	h.EchartsVer = e.Version
	if opts.SingleFile {
		if bytes.Contains(bytes.ToLower(e.JS), []byte("</script")) {
			return h, fmt.Errorf("report: echarts %s (%s) contains </script and cannot be inlined into a page", e.Version, e.From)
		}
		h.EchartsJS = template.JS(e.JS)
		h.EchartsNote = strings.Join(strings.Fields(string(e.Notice)), " ")
		return h, nil
	}
	if !opts.assetsWritten {
		if err := writeAssets(site, e); err != nil {
			return h, err
		}
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
	var doc runbook.Outline
	if src.Text != nil {
		doc = layout(r, src.Text)
	}
	steps := newStepIndex(doc.Blocks)
	p := reportPage{
		Title:     r.Title,
		Runbook:   r.Runbook,
		Verdict:   newVerdict(r),
		Complete:  r.Complete,
		Error:     r.Error,
		Kafka:     r.Provenance.Kafka,
		Client:    r.Provenance.Client,
		Backend:   r.Provenance.Backend,
		Date:      stamp(r.Provenance.Start),
		Facts:     provenanceFacts(r),
		Params:    sortedFacts(r.Provenance.Params),
		Broker:    sortedFacts(r.Provenance.Broker),
		Summaries: summaries(r, labels, steps),
		NoFinal:   noFinal(r, src.Schema),
		Consumers: consumerSections(r),
		Faults:    faultsOf(r),
		Head:      h,
	}
	if p.Title == "" {
		p.Title = r.Runbook.Name
	}
	exps := explainRuns(r)
	p.exps = exps
	var anchors lineAnchors
	p.Why, anchors = whyOf(r, exps)
	p.WhyFull = whyFullRuns
	p.Logs = logsOf(r, anchors)
	causes := make([][]causeMark, len(r.Runs))
	for i, run := range r.Runs {
		causes[i] = causeMarks(run, exps[i])
	}
	tl := newTimeline(r, labels)
	p.Charts = append([]chart{outcomeChart(r, labels), lostChart(r, labels)}, timeCharts(r, tl, steps, causes)...)
	p.Charts = append(p.Charts, distributionChart(r, labels), isrChart(r, steps))
	if src.Text != nil {
		p.Cells = notebook(doc, r)
	} else {
		p.NoRunbook = src.Note
		p.Cells = notebookFromSteps(r)
	}
	return p
}

// noFinal explains a page on which no run was judged by a final read.
func noFinal(r *results.Results, schema int) string {
	for _, run := range r.Runs {
		if len(run.Final) > 0 {
			return ""
		}
	}
	if len(r.Runs) == 0 {
		return ""
	}
	if schema == 1 {
		return "This evidence was written by schema 1, before kafkabook made a final read on a healed cluster: each run is judged by its last read step, a snapshot. Messages acknowledged at or above the high watermark that read reached are counted as unseen, not lost."
	}
	return "No run made its final read on a healed cluster (they stopped early): each is judged by its last read step, a snapshot. Messages acknowledged at or above the high watermark that read reached are counted as unseen, not lost."
}
