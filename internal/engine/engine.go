// Package engine runs a checked runbook against a cluster: every run from a
// healed cluster, steps in order (produce steps in the background when they
// end in &), faults through the cluster backend, and the evidence streamed
// to events.jsonl as it happens. Each directive of the runbook language has
// its step function here, one file per family, each registered in its file
// (steps.go).
package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

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
	if opts.UntilDecided {
		prov.Repeat = max(doc.Meta.Repeat, opts.MaxRuns) // the most runs asked for
	}
	prov.Params = doc.Meta.Params
	prov.Broker = doc.Meta.Broker
	prov.Nodes = doc.Meta.Nodes
	if st, err := opts.Backend.Status(ctx); err == nil {
		prov.Quorum = st.Quorum
	}
	prov.ReadsStored = true // every read and group tally stores its input first (read, group_input events)
	if opts.Client != runbook.FranzGo {
		prov.Client = opts.Client
	}
	start := results.StartEvent{
		Title: doc.Meta.Title,
		Runbook: results.Runbook{
			Name:        doc.Name(),
			Sweep:       doc.SweepName(),
			Combination: doc.Combination.String(),
			Path:        runbookPath(doc.Path),
			SHA256:      fmt.Sprintf("%x", sum),
			File:        "runbook.md",
		},
		Provenance: prov,
	}
	ev.Emit(results.KindStart, 0, start)

	id := make([]byte, 2)
	rand.Read(id) // never fails (crypto/rand)
	clients := &drivers{}
	runErr := func() error {
		for n := 1; n <= doc.Meta.Repeat || opts.UntilDecided && n <= opts.MaxRuns; n++ {
			r := &runner{
				env: &env{opts: opts, ev: ev, num: n, suffix: fmt.Sprintf("-r%d-%x", n, id)},
				out: opts.Out,
			}
			if err := r.run(ctx, clients); err != nil {
				return fmt.Errorf("run %d: %w", n, err)
			}
			undecided := ev.Run(n).Undecided()
			if opts.UntilDecided && n >= doc.Meta.Repeat {
				if len(undecided) == 0 {
					fmt.Fprintf(opts.Out, "--- every rate decided after %d runs ---\n", n)
					break
				}
				if n == opts.MaxRuns {
					fmt.Fprintf(opts.Out, "--- still undecided after %d runs (--max): %s ---\n", n, exprList(undecided))
				}
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

// exprList lists expectations' expressions.
func exprList(es []results.Expectation) string {
	var out []string
	for _, e := range es {
		out = append(out, e.Expr)
	}
	return strings.Join(out, "; ")
}
