package report

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/kafkabook/kafkabook/results"
)

// LatestLink is the name of the symbolic link, in every
// <site>/<runbook>/kafka-<version>/ directory, to the newest run directory.
const LatestLink = "latest"

// siteRun is one run directory found under a site.
type siteRun struct {
	Dir     string // path on disk
	Rel     string // relative to the site, slash-separated
	Runbook string // directory names: <runbook>/kafka-<version>/<stamp>
	Version string // the directory's: 4.3.1, or 4.3.1-java for a client other than franz-go
	Stamp   string
	Sum     runSummary
	Fresh   bool // Sum was made from the evidence in this pass, not read from summary.json
	// NameClient is set when the run's runbook has runs through a client
	// other than franz-go: its label then names the client, franz-go too.
	NameClient bool
}

// RenderSite re-renders every report under out (every directory holding a
// results.json, or only an events.jsonl from a crashed run) and its
// summary, writes out/index.html listing runbooks × Kafka versions and the
// comparisons of consecutive releases, writes the shared assets once, and
// points each out/<runbook>/kafka-<version>/latest at the newest run
// directory (a relative symbolic link).
//
// When out is itself a run directory, RenderSite renders its page only,
// as Render does.
//
// A problem confined to one run directory (unreadable evidence, an unknown
// schema, a symbolic link or a changed runbook among its files, a page that
// could not be written) leaves that run out of the index, removes its
// page, and goes to opts.Warn as a *RunError; without opts.Warn such
// problems are returned, joined, after everything else was rendered. The
// error returned otherwise concerns the whole site: echarts unavailable,
// assets or the index not written.
func RenderSite(out string, opts Options) error {
	if isRunDir(out) {
		return Render(out, opts)
	}
	opts, err := siteOptions(out, opts)
	if err != nil {
		return err
	}
	runs, problems := siteRuns(out, func(dir string) (runSummary, bool, error) {
		ev, err := readRun(dir)
		if err != nil {
			return runSummary{}, false, err
		}
		sum, err := renderRun(dir, ev, opts)
		return sum, true, err
	})
	return finishSite(out, runs, problems, func(a, b siteRun) bool { return true }, opts)
}

// siteOptions prepares opts for pages of the site out, writing the shared
// assets once.
func siteOptions(out string, opts Options) (Options, error) {
	opts.Site = out
	opts.siteIndex = true
	e, err := loadEcharts(opts)
	if err != nil {
		return opts, err
	}
	if !opts.SingleFile {
		if err := writeAssets(out, e); err != nil {
			return opts, err
		}
		opts.assetsWritten = true
	}
	return opts, nil
}

// finishSite points the latest links, hands the runs' problems to
// opts.Warn (or returns them) and writes the index, recomputing the
// comparisons of the pairs of runs that fresh says changed.
func finishSite(out string, runs []siteRun, problems []error, fresh func(a, b siteRun) bool, opts Options) error {
	problems = append(problems, linkLatest(out, runs)...)
	var errs []error
	for _, p := range problems {
		if opts.Warn != nil {
			opts.Warn(p)
		} else {
			errs = append(errs, p)
		}
	}
	if err := writeIndex(out, runs, fresh, opts); err != nil {
		errs = append([]error{err}, errs...)
	}
	return errors.Join(errs...)
}

// siteRuns finds every run directory under out and asks summary for what
// the index shows of it (and whether that was read from its evidence just
// now). It returns the runs sorted by runbook, version, and newest first,
// and a *RunError for each directory it had to leave out; such a
// directory's page is removed, so that the site never shows a run as valid
// whose evidence cannot be read.
func siteRuns(out string, summary func(dir string) (sum runSummary, fresh bool, err error)) ([]siteRun, []error) {
	var runs []siteRun
	var errs []error
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == out {
				return err
			}
			errs = append(errs, &RunError{Dir: p, Err: fmt.Errorf("report: %w", err)})
			return nil
		}
		if d.IsDir() {
			if p != out && (d.Name() == assetsDir || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		dir := filepath.Dir(p)
		if name != results.FileName && !(name == results.EventsFileName && !lexists(filepath.Join(dir, results.FileName))) {
			return nil
		}
		sum, fresh, err := summary(dir)
		if err != nil {
			err = fmt.Errorf("report: %s left out of the site: %w", dir, err)
			errs = append(errs, &RunError{Dir: dir, Err: errors.Join(err, removePage(dir))})
			return nil
		}
		rel, _ := filepath.Rel(out, dir)
		sr := siteRun{Dir: dir, Rel: filepath.ToSlash(rel), Sum: sum, Fresh: fresh}
		parts := strings.Split(sr.Rel, "/")
		if len(parts) == 3 && strings.HasPrefix(parts[1], "kafka-") {
			sr.Runbook, sr.Version, sr.Stamp = parts[0], strings.TrimPrefix(parts[1], "kafka-"), parts[2]
		} else {
			sr.Runbook, sr.Version, sr.Stamp = sum.Runbook, sum.Kafka, sum.Start.UTC().Format("20060102T150405Z")
		}
		runs = append(runs, sr)
		return nil
	})
	if err != nil {
		errs = append(errs, fmt.Errorf("report: %w", err))
	}
	sort.Slice(runs, func(i, j int) bool {
		a, b := runs[i], runs[j]
		if a.Runbook != b.Runbook {
			return a.Runbook < b.Runbook
		}
		if a.Version != b.Version {
			return lessVersion(a.Version, b.Version)
		}
		return a.Stamp > b.Stamp // newest first
	})
	return runs, errs
}

// lessVersion orders versions numerically part by part: 4.0.0 < 4.3.1 < 4.10.0.
func lessVersion(a, b string) bool {
	pa, pb := strings.FieldsFunc(a, isSep), strings.FieldsFunc(b, isSep)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil && na != nb:
			return na < nb
		case (ea != nil || eb != nil) && pa[i] != pb[i]:
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}

func isSep(r rune) bool { return r == '.' || r == '-' }

// label is how the index names a run's release and client: 4.3.1 when
// every run of its runbook went through franz-go, else the release and
// the client of each (4.3.1 · franz-go, 4.3.1 · java), so that no row or
// point of a runbook with clients leaves its client to be guessed.
func (sr siteRun) label() string {
	// The release is the directory's, as the row it labels is: a run
	// filed under another release's directory is listed there.
	release, _ := sr.releaseClient()
	switch {
	case sr.Sum.Client != "":
		return release + " · " + sr.Sum.Client
	case sr.NameClient:
		return release + " · franz-go"
	}
	return sr.Version
}

// nameClients sets NameClient on the runs of every runbook that has a run
// through a client other than franz-go.
func nameClients(runs []siteRun) {
	with := map[string]bool{}
	for _, sr := range runs {
		with[sr.Runbook] = with[sr.Runbook] || sr.Sum.Client != ""
	}
	for i := range runs {
		runs[i].NameClient = with[runs[i].Runbook]
	}
}

// linkLatest points each runbook/version directory's latest at its newest
// complete run, or at its newest run where none completed: a run cut short
// is evidence, but not the one a reader of "latest" expects. A latest that
// is not a symbolic link is left alone and reported.
func linkLatest(out string, runs []siteRun) []error {
	var errs []error
	pick := map[string]siteRun{}
	var parents []string
	for _, sr := range runs { // newest first within each runbook/version
		parent := filepath.Dir(sr.Dir)
		if sr.Rel != sr.Runbook+"/kafka-"+sr.Version+"/"+sr.Stamp {
			continue
		}
		old, seen := pick[parent]
		if !seen {
			parents = append(parents, parent)
		}
		if !seen || (!old.Sum.Complete && sr.Sum.Complete) {
			pick[parent] = sr
		}
	}
	for _, parent := range parents {
		sr := pick[parent]
		link := filepath.Join(parent, LatestLink)
		if fi, err := os.Lstat(link); err == nil {
			if fi.Mode()&os.ModeSymlink == 0 {
				errs = append(errs, &RunError{Dir: parent, Err: fmt.Errorf("report: %s exists and is not a symbolic link; left alone", link)})
				continue
			}
			if target, _ := os.Readlink(link); target == sr.Stamp {
				continue
			}
		}
		tmp := link + ".tmp"
		os.Remove(tmp)
		if err := os.Symlink(sr.Stamp, tmp); err != nil {
			errs = append(errs, &RunError{Dir: parent, Err: fmt.Errorf("report: %w", err)})
			continue
		}
		if err := os.Rename(tmp, link); err != nil {
			os.Remove(tmp)
			errs = append(errs, &RunError{Dir: parent, Err: fmt.Errorf("report: %w", err)})
		}
	}
	return errs
}

// sitePage is what site.html.tmpl shows.
type sitePage struct {
	Runbooks []siteRunbook
	Head     head
}

type siteRunbook struct {
	Snapshots bool // some listed run was judged by a snapshot: explain the *
	Name      string
	// Sweep and Combination name the sweep the runbook's evidence is a
	// combination of, whose settings page (Sweep.settings.html) the
	// section links; empty otherwise.
	Sweep, Combination string
	Title              string
	Clients            bool // some run went through a client other than franz-go: rows are release × client
	Labels             []string
	Groups             []string // consumer groups, by label
	Versions           []siteVersion
	Charts             []chart
	// Differences are the verdicts that are not the same on every release
	// (the newest run of each); Comparisons link the pages comparing
	// consecutive releases.
	Differences []releaseDifference
	Comparisons []releaseComparison
	// Bisects are the runbook's bisect records (kafkabook bisect).
	Bisects []siteBisect
	// TxnVersions are the transaction.version levels the releases'
	// newest runs met, when they are not all the same: a verdict on
	// transactions is then one of two protocols, and the index says so.
	TxnVersions []txnLevel
}

// txnLevel is one transaction.version level and the releases whose newest
// run met it.
type txnLevel struct {
	Level    string
	Releases string // "4.0.0, 4.1.0"
}

type siteVersion struct {
	dir    string // the run directory's version, the row's key
	Kafka  string // the release, and the client when not franz-go: 4.3.1 · java
	Latest siteEntry
	Older  []siteEntry
}

type siteEntry struct {
	Backend   string // where its cluster ran
	Snapshots bool   // some run was judged by its last read step, not a final read
	Stamp     string
	Link      string
	Date      string
	Verdict   verdict
	Complete  bool
	Headlines []headline
	Groups    []groupHeadline
	Why       string   // the causes of its losses, run by run (whyHeadline)
	Causes    []string // the distinct causes of its runs, sorted: what a change of cause compares
	WhyFrom   string   // the release before, when its newest run's causes differ
	// TxnVersion is the cluster's transaction.version, "" when not recorded.
	TxnVersion string
}

// groupHeadline is a consumer group of a run directory, run by run.
type groupHeadline struct {
	Label     string
	Unapplied string // "7, 7"; "–" for a run that did not tally it
	Twice     string
}

type headline struct {
	Label      string
	LostPerRun string // "10, 10, 20, 20"; "0*" for a run judged by a snapshot
	// Bound is how often such a run loses any acknowledged message, at
	// 95% confidence ("≤ 52.7%"), BoundWords the same in a sentence.
	Bound, BoundWords string
	Unseen            string // "unseen 10, 10, 20, 20" when some run was judged by a snapshot
	Acked             int
	P99               string
}

// entry summarises a run directory, with a headline per label in labels
// and per group in groups (the columns of its runbook's table).
func entry(sr siteRun, labels, groups []string) siteEntry {
	sum := sr.Sum
	e := siteEntry{Backend: sum.Backend, Stamp: sr.Stamp, Link: sr.Rel + "/" + IndexFile, Date: stamp(sum.Start),
		Verdict: sum.Verdict, Complete: sum.Complete, Why: whyHeadline(sum.Why), Causes: distinctCauses(sum.Why), TxnVersion: sum.TxnVersion}
	for _, l := range labels {
		var parts, unseen []string
		snapshots := false
		for i, n := range sum.Lost[l] {
			switch {
			case n < 0:
				parts = append(parts, "–")
			case sum.Snapshot[l][i]:
				parts = append(parts, strconv.Itoa(n)+"*")
				snapshots = true
			default:
				parts = append(parts, strconv.Itoa(n))
			}
			unseen = append(unseen, strconv.Itoa(sum.Unseen[l][i]))
		}
		if len(parts) == 0 {
			parts = []string{"–"}
		}
		p := sum.Latency[l]
		h := headline{Label: l, LostPerRun: strings.Join(parts, ", "), Acked: sum.Acked[l], P99: dur(p.P99, p.Count)}
		if b, ok := sum.RunsLost[l]; ok {
			h.Bound, h.BoundWords = b.Short(), b.Words("runs", "lost any")
		}
		if snapshots {
			h.Unseen = "unseen " + strings.Join(unseen, ", ")
			e.Snapshots = true
		}
		e.Headlines = append(e.Headlines, h)
	}
	perRun := func(ns []int) string {
		var parts []string
		for _, n := range ns {
			if n < 0 {
				parts = append(parts, "–")
			} else {
				parts = append(parts, strconv.Itoa(n))
			}
		}
		if len(parts) == 0 {
			return "–"
		}
		return strings.Join(parts, ", ")
	}
	for _, g := range groups {
		e.Groups = append(e.Groups, groupHeadline{Label: g, Unapplied: perRun(sum.Unapplied[g]), Twice: perRun(sum.Twice[g])})
	}
	return e
}

// markWhyChanges notes, on each release's newest run, when its causes
// differ from those of the release before: a change of cause is a finding
// as much as a change of verdict. The causes are compared as a set, so
// that two runs of a cause are no change from one.
func markWhyChanges(vs []siteVersion) {
	for i := 1; i < len(vs); i++ {
		if !slices.Equal(vs[i-1].Latest.Causes, vs[i].Latest.Causes) {
			vs[i].Latest.WhyFrom = vs[i-1].Kafka
		}
	}
}

// txnLevels groups the releases by the transaction.version their newest
// run met; nil unless two recorded levels differ (a release whose evidence
// did not record it differs from none).
func txnLevels(vs []siteVersion) []txnLevel {
	var out []txnLevel
	for _, v := range vs {
		if v.Latest.TxnVersion == "" {
			continue
		}
		i := slices.IndexFunc(out, func(l txnLevel) bool { return l.Level == v.Latest.TxnVersion })
		if i < 0 {
			out = append(out, txnLevel{Level: v.Latest.TxnVersion, Releases: v.Kafka})
			continue
		}
		out[i].Releases += ", " + v.Kafka
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// distinctCauses is the set of a run directory's causes, sorted, without
// the runs that had none.
func distinctCauses(why []string) []string {
	var out []string
	for _, c := range why {
		if c != "" {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// writeIndex writes out/index.html, and the comparison pages of the pairs
// of runs that fresh says changed.
func writeIndex(out string, runs []siteRun, fresh func(a, b siteRun) bool, opts Options) error {
	h, err := pageHead(out, out, opts)
	if err != nil {
		return err
	}
	var page sitePage
	page.Head = h
	nameClients(runs)
	latest := map[string][]siteRun{} // runbook → newest run per version, in version order
	for _, sr := range runs {
		if n := len(page.Runbooks); n == 0 || page.Runbooks[n-1].Name != sr.Runbook {
			page.Runbooks = append(page.Runbooks, siteRunbook{Name: sr.Runbook, Title: sr.Sum.Title, Clients: sr.NameClient, Sweep: sr.Sum.Sweep, Combination: sr.Sum.Combination})
		}
	}
	byRunbook := map[string]*siteRunbook{}
	for i := range page.Runbooks {
		byRunbook[page.Runbooks[i].Name] = &page.Runbooks[i]
	}
	for _, sr := range runs {
		rb := byRunbook[sr.Runbook]
		for _, l := range sr.Sum.Labels {
			if !contains(rb.Labels, l) {
				rb.Labels = append(rb.Labels, l)
			}
		}
		for _, g := range sr.Sum.Groups {
			if !contains(rb.Groups, g) {
				rb.Groups = append(rb.Groups, g)
			}
		}
	}
	for _, sr := range runs {
		rb := byRunbook[sr.Runbook]
		n := len(rb.Versions)
		if n == 0 || rb.Versions[n-1].dir != sr.Version {
			rb.Versions = append(rb.Versions, siteVersion{dir: sr.Version, Kafka: sr.label(), Latest: entry(sr, rb.Labels, rb.Groups)})
			latest[sr.Runbook] = append(latest[sr.Runbook], sr)
			continue
		}
		rb.Versions[n-1].Older = append(rb.Versions[n-1].Older, entry(sr, rb.Labels, rb.Groups))
	}
	for i := range page.Runbooks {
		markWhyChanges(page.Runbooks[i].Versions)
		page.Runbooks[i].TxnVersions = txnLevels(page.Runbooks[i].Versions)
		for _, v := range page.Runbooks[i].Versions {
			page.Runbooks[i].Snapshots = page.Runbooks[i].Snapshots || v.Latest.Snapshots || slices.ContainsFunc(v.Older, func(e siteEntry) bool { return e.Snapshots })
		}
	}
	for i := range page.Runbooks {
		rb := &page.Runbooks[i]
		if len(rb.Versions) > 1 {
			rb.Charts = versionCharts(i, rb.Labels, latest[rb.Name], rb.Clients)
			rb.Differences = releaseDifferences(latest[rb.Name])
		}
		rb.Bisects = siteBisects(out, rb.Name, opts.Warn)
		if rb.Comparisons, err = writeComparisons(out, rb.Name, latest[rb.Name], fresh); err != nil {
			return err
		}
	}
	page.Head.ChartsNeeded = false
	for _, rb := range page.Runbooks {
		if len(rb.Charts) > 0 {
			page.Head.ChartsNeeded = true
		}
	}
	t, err := tmpl()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "site.html.tmpl", page); err != nil {
		return fmt.Errorf("report: site index: %w", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	p := filepath.Join(out, IndexFile)
	if err := writePage(p, buf.Bytes()); err != nil {
		return err
	}
	rendered("index", p)
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// versionCharts compares the newest report of each Kafka version (of each
// release and client, when clients is set: the axis and the titles say
// so, and each point is labelled with both): mean messages lost per run,
// and p99 ack latency, per experiment.
func versionCharts(n int, labels []string, newest []siteRun, clients bool) []chart {
	var versions []string
	for _, sr := range newest {
		versions = append(versions, sr.label())
	}
	axis, by, each := "Kafka", "by Kafka version", "each version"
	if clients {
		axis, by, each = "Kafka release · client", "by Kafka release and client", "each release and client"
	}
	bar := func(y opts.YAxis) *charts.Bar {
		b := charts.NewBar()
		b.SetGlobalOptions(baseOpts()...)
		b.SetGlobalOptions(
			charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
			charts.WithXAxisOpts(releaseX(axis, clients)),
			charts.WithYAxisOpts(y),
		)
		b.SetXAxis(versions)
		return b
	}
	lost := bar(opts.YAxis{Type: "value", Name: "lost per run (mean)"})
	p99 := bar(opts.YAxis{Type: "log", Name: "p99 ack latency (ms)"})
	for _, l := range labels {
		var ld, pd []opts.BarData
		for _, sr := range newest {
			total, read := 0, 0
			for _, x := range sr.Sum.Lost[l] {
				if x >= 0 {
					total += x
					read++
				}
			}
			if read == 0 {
				ld = append(ld, opts.BarData{Value: "-"})
			} else {
				ld = append(ld, opts.BarData{Value: round(float64(total)/float64(read), 2)})
			}
			p := sr.Sum.Latency[l]
			if p.Count == 0 {
				pd = append(pd, opts.BarData{Value: "-"})
			} else {
				pd = append(pd, opts.BarData{Value: round(math.Max(millis(p.P99), 0.001), 3)})
			}
		}
		lost.AddSeries(l, ld, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top"}))
		p99.AddSeries(l, pd)
	}
	id := "chart-rb" + strconv.Itoa(n+1)
	return []chart{
		{ID: id + "-lost", Title: "Lost messages per run, " + by, Height: 300,
			Note: "Mean over the runs of the newest report of " + each + ".", Options: options(lost, nil, defaultGrid)},
		{ID: id + "-p99", Title: "p99 ack latency, " + by, Height: 300,
			Note: "Over every run of the newest report of " + each + "; logarithmic scale.", Options: options(p99, nil, defaultGrid)},
	}
}

// releaseX is the category axis of the release charts. With clients its
// labels (4.3.1 · librdkafka@2.15.1) are long: every one is shown all the
// same (echarts would skip some that overlap), slanted, with the axis name
// below them.
func releaseX(name string, clients bool) opts.XAxis {
	x := categoryX(name)
	if clients {
		x.AxisLabel = &opts.AxisLabel{Show: opts.Bool(true), Interval: "0", Rotate: 20}
		x.NameGap = 55
	}
	return x
}

// sortVersions sorts Kafka versions in place, oldest first.
func sortVersions(vs []string) {
	sort.SliceStable(vs, func(i, j int) bool { return lessVersion(vs[i], vs[j]) })
}
