package main

import (
	"cmp"
	"encoding/json"
	"io"
	"net/http"

	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/kafkabook/kafkabook/runbook"

	"github.com/kafkabook/kafkabook/internal/site"
	"github.com/spf13/cobra"
)

// runbookName is site.RunbookName as a usage error (exit 3).
func runbookName(path string) (string, error) {
	name, err := site.RunbookName(path)
	if err != nil {
		return "", usageErr("%v", err)
	}
	return name, nil
}

func planCmd() *cobra.Command {
	var kafka, clients []string
	var repeat int
	var batch string
	var fresh freshFlags
	c := &cobra.Command{
		Use:   "plan RUNBOOK.md...",
		Short: "Print the cells of a matrix (runbooks × Kafka releases × clients × repeats) as JSON for a CI matrix",
		Long: `Plan checks each runbook and prints, as one line of JSON, the cells of
the matrix they make: one cell per runbook, Kafka release (the front
matter's kafka:, or --kafka), client (the front matter's client:, or
--client; a client other than franz-go is in the cell's "client" and id,
producer-acks.java.kafka-4.3.1.r1) and repeat (1 to the front matter's
repeat:, or --repeat), each with a stable id:

  {"batch":"B","include":[{"id":"producer-acks.kafka-4.3.1.r1",
    "runbook":"examples/producer-acks.md","kafka":"4.3.1","repeat":1,"batch":"B"}, ...]}

A CI job runs one cell with 'kafkabook run --cell ID --batch B RUNBOOK.md'
(one run, on that release) and keeps its output directory; 'kafkabook merge'
joins the directories of every cell into one site. In GitHub Actions:
matrix: include: ${{ fromJSON(needs.plan.outputs.plan).include }}.

With --new-releases the releases are those published to Maven Central
(from --since on) that the site (--site) has no run of for the cell's
runbook and client: a scheduled CI job that runs this plan keeps the site
current as Kafka releases.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if fresh.on && len(kafka) > 0 {
				return usageErr("--new-releases lists the releases itself: drop --kafka")
			}
			var releases []string
			if fresh.on {
				var err error
				if releases, err = kafkadist.Releases(cmd.Context(), http.DefaultClient, fresh.maven, fresh.since); err != nil {
					return err
				}
			}
			p, err := makePlan(args, runbookFlags{kafka: kafka, client: clients, repeat: repeat}, batch, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if fresh.on {
				p = newReleases(p, releases, fresh.site)
			}
			if err != nil {
				return err
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(p)
		},
	}
	c.Flags().Var(listFlag{&kafka}, "kafka", "Kafka releases, overriding every runbook's front matter (comma-separated)")
	c.Flags().Var(listFlag{&clients}, "client", "clients, overriding every runbook's front matter (comma-separated): franz-go, java[@VERSION], librdkafka[@VERSION], spring[@VERSION]")
	c.Flags().IntVar(&repeat, "repeat", 0, "cells per runbook and release, overriding every runbook's repeat:")
	c.Flags().StringVar(&batch, "batch", "local", "the batch name every cell records in its provenance (e.g. the CI run's id)")
	c.Flags().BoolVar(&fresh.on, "new-releases", false, "list only the cells of Kafka releases on Maven Central that the site has no run of")
	c.Flags().StringVar(&fresh.site, "site", "output", "with --new-releases: the evidence tree whose runs count as done")
	c.Flags().StringVar(&fresh.since, "since", "4.0.0", "with --new-releases: the oldest release to list")
	c.Flags().StringVar(&fresh.maven, "maven", kafkadist.Central, "with --new-releases: the Maven repository to list releases from")
	return c
}

// freshFlags are plan's --new-releases and the flags that go with it.
type freshFlags struct {
	on                 bool
	site, since, maven string
}

// newReleases replaces the releases of plan p's cells by every release of
// releases that the site has no run of, per runbook and client: the cells
// that would bring the site up to date.
func newReleases(p *site.Plan, releases []string, root string) *site.Plan {
	out := site.NewPlan(p.Batch)
	type series struct{ path, name, client string }
	var all []series // in the plan's order
	repeats := map[series]int{}
	for _, c := range p.Include {
		k := series{c.Runbook, c.Name, c.Client}
		if _, ok := repeats[k]; !ok {
			all = append(all, k)
		}
		repeats[k] = max(repeats[k], c.Repeat)
	}
	for _, k := range all {
		for _, v := range releases {
			if !site.HasRuns(root, k.name, v, k.client) {
				out.Add(k.path, k.name, []string{v}, []string{cmp.Or(k.client, runbook.FranzGo)}, repeats[k])
			}
		}
	}
	return out
}

// makePlan checks the runbooks and lists their cells (site.Plan), in the
// order the runbooks were given; ov are the command line's --kafka,
// --client and --repeat.
func makePlan(paths []string, ov runbookFlags, batch string, stderr io.Writer) (*site.Plan, error) {
	p := site.NewPlan(batch)
	if ov.repeat < 0 {
		return p, usageErr("--repeat %d: must be positive", ov.repeat)
	}
	seen := map[string]string{}
	for _, path := range paths {
		name, err := runbookName(path)
		if err != nil {
			return p, err
		}
		if other, ok := seen[name]; ok {
			return p, usageErr("%s and %s have the same name %q: their cells and evidence directories would collide", other, path, name)
		}
		seen[name] = path
		f := ov
		doc, err := f.load(path, stderr)
		if err != nil {
			return p, err
		}
		combos := runbook.Combinations(doc.Meta.Sweep)
		if len(combos) == 0 {
			p.Add(path, name, doc.Meta.Kafka, doc.Meta.Client, doc.Meta.Repeat)
		}
		for _, c := range combos { // a cell per combination of the sweep
			p.Add(path, name+"."+c.Name(), doc.Meta.Kafka, doc.Meta.Client, doc.Meta.Repeat)
		}
	}
	return p, nil
}
