package site

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/runbook"
)

// Plan is what `kafkabook plan` prints: a CI matrix's include list
// (GitHub Actions reads it as `matrix: include: ${{ fromJSON(plan).include }}`)
// and the batch every cell belongs to.
type Plan struct {
	Batch   string `json:"batch"`
	Include []Cell `json:"include"`
	seen    map[string]bool
}

// Cell is one job of a matrix: one run of one runbook on one Kafka
// release with one client. Client is empty for franz-go, the default, so
// that the ids of cells from before clients were a dimension stay the
// same; another client's id has it between runbook and release.
type Cell struct {
	ID      string `json:"id"`
	Runbook string `json:"runbook"` // the path, as given to plan
	// Name is the name its evidence goes under: the runbook's, with a
	// sweep's combination after it (producer-acks.acks-1.mis-2).
	Name   string `json:"name"`
	Kafka  string `json:"kafka"`
	Client string `json:"client,omitempty"`
	Repeat int    `json:"repeat"` // which repeat of the cell's runbook and release, 1-based
	Batch  string `json:"batch"`
}

// NewPlan is an empty plan of batch.
func NewPlan(batch string) *Plan {
	return &Plan{Batch: batch, Include: []Cell{}, seen: map[string]bool{}}
}

// Add lists the cells of the runbook at path, named name (RunbookName, or
// with a sweep a combination's name, producer-acks.acks-1.mis-2):
// release, then client, then repeat. A release or client given twice
// makes one cell, one CI artifact.
func (p *Plan) Add(path, name string, kafka, clients []string, repeat int) {
	for _, v := range kafka {
		for _, client := range clients {
			if client == runbook.FranzGo {
				client = ""
			}
			for r := 1; r <= repeat; r++ {
				id := CellID(name, client, v, r)
				if p.seen[id] {
					continue
				}
				p.seen[id] = true
				p.Include = append(p.Include, Cell{ID: id, Runbook: path, Name: name, Kafka: v, Client: client, Repeat: r, Batch: p.Batch})
			}
		}
	}
}

// CellID is the stable id of a cell: producer-acks.kafka-4.3.1.r1,
// producer-acks.java.kafka-4.3.1.r1.
func CellID(runbook, client, kafka string, repeat int) string {
	parts := []string{runbook}
	if client != "" {
		parts = append(parts, client)
	}
	return strings.Join(append(parts, "kafka-"+kafka, fmt.Sprintf("r%d", repeat)), ".")
}

// ParseCellID splits a cell id into its runbook (with the client, when the
// id has one), release and repeat, the inverse of CellID.
func ParseCellID(id string) (prefix, kafka string, repeat int, err error) {
	bad := func() (string, string, int, error) {
		return "", "", 0, fmt.Errorf("--cell %q: want RUNBOOK.kafka-VERSION.rN, as `kafkabook plan` prints, e.g. producer-acks.kafka-4.3.1.r1", id)
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
