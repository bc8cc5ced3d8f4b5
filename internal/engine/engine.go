// Package engine runs a checked runbook against a cluster: every run from a
// healed cluster, steps in order (produce steps in the background when they
// end in &), faults through the cluster backend, and the evidence streamed
// to events.jsonl as it happens. Each directive of the runbook language has
// its runner here, one file per family, registered in directives.go.
package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// Options is one invocation of the engine: one runbook against one Kafka
// version on one cluster that is already up.
type Options struct {
	Doc        *runbook.Doc
	Dir        string          // evidence directory, empty: made by results.NewRunDir, so two runs never share one
	Backend    cluster.Backend // the cluster, up and reachable
	AllowShell bool            // run sh blocks
	Out        io.Writer       // console: steps and their output as they run
	Verbose    bool            // print (and record) every message's result, not only a summary
	Provenance results.Provenance
	// MemberCommand runs consumer group members: a program that takes
	// consumer.Subcommand and a spec as its arguments. Empty: this very
	// binary (os.Executable), which is kafkabook; tests give their own
	// test binary, whose TestMain forwards the subcommand.
	MemberCommand string
	// Client is the client produce steps send through unless a step names
	// its own: franz-go ("" too), java[@V] or librdkafka[@V] (one entry
	// of the front matter's client: list or of --client). The caller
	// runs the runbook once per client, as once per Kafka release.
	Client string
}

// Run executes every run of the runbook and writes the evidence into
// opts.Dir: events.jsonl as it goes, then results.json and a copy of the
// runbook. It returns the results even when it fails part way; then
// Complete is false and err says why.
func Run(ctx context.Context, opts Options) (res *results.Results, err error) {
	if ents, err := os.ReadDir(opts.Dir); err != nil || len(ents) > 0 {
		return nil, fmt.Errorf("evidence directory %s: want an empty directory made by results.NewRunDir (%v)", opts.Dir, err)
	}
	doc := opts.Doc
	if err := atomicfile.WriteFile(filepath.Join(opts.Dir, "runbook.md"), doc.Source, 0o644); err != nil {
		return nil, fmt.Errorf("evidence: %w", err)
	}
	ev, err := results.CreateEvents(filepath.Join(opts.Dir, results.EventsFileName))
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := ev.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("writing the evidence: %w", cerr)
		}
	}()
	sum := sha256.Sum256(doc.Source)
	prov := opts.Provenance
	prov.Start = time.Now().UTC()
	prov.Repeat = doc.Meta.Repeat
	prov.Params = doc.Meta.Params
	prov.Broker = doc.Meta.Broker
	prov.Nodes = doc.Meta.Nodes
	if opts.Client != runbook.FranzGo {
		prov.Client = opts.Client
	}
	start := results.StartEvent{
		Title: doc.Meta.Title,
		Runbook: results.Runbook{
			Name:   strings.TrimSuffix(filepath.Base(doc.Path), filepath.Ext(doc.Path)),
			Path:   runbookPath(doc.Path),
			SHA256: fmt.Sprintf("%x", sum),
			File:   "runbook.md",
		},
		Provenance: prov,
	}
	ev.Emit(results.KindStart, 0, start)

	id := make([]byte, 2)
	rand.Read(id) // never fails (crypto/rand)
	clients := &drivers{}
	runErr := func() error {
		for n := 1; n <= doc.Meta.Repeat; n++ {
			r := &runner{
				opts: opts, ev: ev, num: n, drivers: clients,
				suffix: fmt.Sprintf("-r%d-%x", n, id),
				out:    opts.Out,
			}
			if err := r.run(ctx); err != nil {
				return fmt.Errorf("run %d: %w", n, err)
			}
		}
		return nil
	}()
	end := results.EndEvent{End: time.Now().UTC(), Complete: runErr == nil}
	if runErr != nil {
		end.Error = newRedactor(opts.Backend).String(runErr.Error())
	}
	ev.Emit(results.KindEnd, 0, end)
	res = ev.Results()
	res.Provenance.End = end.End
	if err := ev.Err(); err != nil && runErr == nil {
		runErr = fmt.Errorf("writing the evidence: %w", err)
	}
	if err := res.Write(opts.Dir); err != nil && runErr == nil {
		runErr = fmt.Errorf("writing the evidence: %w", err)
	}
	return res, runErr
}
