package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/internal/safetext"
	"github.com/kafkabook/kafkabook/report"
	"github.com/kafkabook/kafkabook/runbook"
	"github.com/spf13/cobra"
)

// matrixPlan is what `kafkabook plan` prints: a CI matrix's include list
// (GitHub Actions reads it as `matrix: include: ${{ fromJSON(plan).include }}`)
// and the batch every cell belongs to.
type matrixPlan struct {
	Batch   string `json:"batch"`
	Include []cell `json:"include"`
}

// cell is one job of a matrix: one run of one runbook on one Kafka
// release with one client. Client is empty for franz-go, the default, so
// that the ids of cells from before clients were a dimension stay the
// same; another client's id has it between runbook and release.
type cell struct {
	ID      string `json:"id"`
	Runbook string `json:"runbook"` // the path, as given to plan
	Kafka   string `json:"kafka"`
	Client  string `json:"client,omitempty"`
	Repeat  int    `json:"repeat"` // which repeat of the cell's runbook and release, 1-based
	Batch   string `json:"batch"`
}

// cellID is the stable id of a cell: producer-acks.kafka-4.3.1.r1,
// producer-acks.java.kafka-4.3.1.r1.
func cellID(runbook, client, kafka string, repeat int) string {
	parts := []string{runbook}
	if client != "" {
		parts = append(parts, client)
	}
	return strings.Join(append(parts, "kafka-"+kafka, fmt.Sprintf("r%d", repeat)), ".")
}

// parseCellID splits a cell id into its runbook (with the client, when the
// id has one), release and repeat, the inverse of cellID.
func parseCellID(id string) (prefix, kafka string, repeat int, err error) {
	bad := func() (string, string, int, error) {
		return "", "", 0, usageErr("--cell %q: want RUNBOOK.kafka-VERSION.rN, as `kafkabook plan` prints, e.g. producer-acks.kafka-4.3.1.r1", id)
	}
	dot := strings.LastIndex(id, ".r")
	if dot < 0 {
		return bad()
	}
	repeat, err = strconv.Atoi(id[dot+2:])
	if err != nil || repeat < 1 || strconv.Itoa(repeat) != id[dot+2:] {
		return bad()
	}
	k := strings.LastIndex(id[:dot], ".kafka-")
	if k <= 0 || k+len(".kafka-") == dot {
		return bad()
	}
	return id[:k], id[k+len(".kafka-") : dot], repeat, nil
}

// runbookName is the directory name a runbook's evidence goes under: its
// file name without the extension. A name that could climb out of the
// output directory or hide in it (`..`, `.x`, empty) is refused.
func runbookName(path string) (string, error) {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if why := siteNameProblem(name); why != "" {
		return "", usageErr("%s: the runbook's name %q cannot name its evidence directory (%s): rename the file", path, name, why)
	}
	return name, nil
}

// reservedNames are the names a site uses beside its runbooks' directories.
var reservedNames = []string{"assets", report.IndexFile, report.LatestLink, report.SummaryFile, "comparisons.json"}

// siteNameProblem says why name cannot be a directory of a site (a
// runbook's, under which its evidence goes), or "" when it can.
func siteNameProblem(name string) string {
	switch {
	case name == "" || strings.HasPrefix(name, "."):
		return "it is empty or starts with a dot"
	case strings.ContainsAny(name, `/\`) || !safetext.IsLine(name):
		return "it holds a path separator, a line break or another control character"
	case slices.Contains(reservedNames, name):
		return "the site uses that name itself"
	}
	return ""
}

func planCmd() *cobra.Command {
	var kafka, clients []string
	var repeat int
	var batch string
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
matrix: include: ${{ fromJSON(needs.plan.outputs.plan).include }}.`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := makePlan(args, runbookFlags{kafka: kafka, client: clients, repeat: repeat}, batch, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return json.NewEncoder(cmd.OutOrStdout()).Encode(p)
		},
	}
	c.Flags().Var(listFlag{&kafka}, "kafka", "Kafka releases, overriding every runbook's front matter (comma-separated)")
	c.Flags().Var(listFlag{&clients}, "client", "clients, overriding every runbook's front matter (comma-separated): franz-go, java[@VERSION], librdkafka[@VERSION]")
	c.Flags().IntVar(&repeat, "repeat", 0, "cells per runbook and release, overriding every runbook's repeat:")
	c.Flags().StringVar(&batch, "batch", "local", "the batch name every cell records in its provenance (e.g. the CI run's id)")
	return c
}

// makePlan checks the runbooks and lists their cells, in the order the
// runbooks were given, then release, then client, then repeat; ov are the
// command line's --kafka, --client and --repeat.
func makePlan(paths []string, ov runbookFlags, batch string, stderr io.Writer) (matrixPlan, error) {
	p := matrixPlan{Batch: batch, Include: []cell{}}
	if ov.repeat < 0 {
		return p, usageErr("--repeat %d: must be positive", ov.repeat)
	}
	seen := map[string]string{}
	cells := map[string]bool{}
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
		for _, v := range doc.Meta.Kafka {
			for _, client := range doc.Meta.Client {
				if client == runbook.FranzGo {
					client = ""
				}
				for r := 1; r <= doc.Meta.Repeat; r++ {
					id := cellID(name, client, v, r)
					if cells[id] { // a release or client given twice: one cell, one CI artifact
						continue
					}
					cells[id] = true
					p.Include = append(p.Include, cell{ID: id, Runbook: path, Kafka: v, Client: client, Repeat: r, Batch: batch})
				}
			}
		}
	}
	return p, nil
}
