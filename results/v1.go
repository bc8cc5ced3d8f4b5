package results

import (
	"encoding/json"
	"time"
)

// Schema version 1 (kafkabook before the checker) called every acknowledged
// message that a read did not find "lost", and had error and timeout
// statuses. Its files are upgraded as they are read: statuses map onto
// failed and unknown, and each read is classified again from what it
// recorded (the offsets where each id was found, the high watermarks), so a
// message acknowledged above the high watermark becomes unseen. Version 1
// has no final read: its runs are judged by their last read.

// upgradeStatus maps version 1 statuses onto version 2.
func upgradeStatus(s Status) Status {
	switch s {
	case "error":
		return StatusFailed
	case "timeout":
		return StatusUnknown
	}
	return s
}

// v1Tally is the tally of a version 1 file, as far as an upgrade needs it.
type v1Tally struct {
	Topic          string             `json:"topic"`
	Label          string             `json:"label"`
	At             time.Time          `json:"at"`
	Via            string             `json:"via,omitempty"`
	HighWatermarks map[int32]int64    `json:"high_watermarks"`
	Seen           map[string][]int64 `json:"seen"`
}

// upgrade classifies the read again against the run's ledger of the topic.
// Version 1 did not record partitions of what it read: an id is placed in
// the partition its ledger entry names, partition 0 when it has none.
func (o v1Tally) upgrade(r *Run) Tally {
	var ledger Topic
	for _, t := range r.Topics {
		if t.Name == o.Topic {
			ledger = t
		}
	}
	part := map[string]int32{}
	for _, m := range ledger.All() {
		part[m.ID] = m.Partition
	}
	var recs []Record
	for id, offs := range o.Seen {
		for _, off := range offs {
			recs = append(recs, Record{ID: id, Partition: part[id], Offset: off})
		}
	}
	ledger.Name, ledger.Label = o.Topic, o.Label
	t := Classify(ledger, recs, o.HighWatermarks, nil, false)
	t.Via, t.At = o.Via, o.At
	return t
}

// v1Results is a version 1 results.json: Results with version 1 tallies.
type v1Results struct {
	Results
	Runs []struct {
		Run
		Tallies []v1Tally `json:"tallies"`
	} `json:"runs"`
}

// decodeV1 reads a version 1 results.json and upgrades it.
func decodeV1(data []byte) (*Results, error) {
	var old v1Results
	if err := json.Unmarshal(data, &old); err != nil {
		return nil, err
	}
	r := old.Results
	r.Schema = SchemaVersion
	r.Runs = make([]Run, len(old.Runs))
	for i, o := range old.Runs {
		run := o.Run
		run.Final = []Tally{}
		for ti := range run.Topics {
			for mi := range run.Topics[ti].Messages {
				m := &run.Topics[ti].Messages[mi]
				m.Status = upgradeStatus(m.Status)
			}
		}
		run.Tallies = make([]Tally, len(o.Tallies))
		for ti, t := range o.Tallies {
			run.Tallies[ti] = t.upgrade(&run)
		}
		r.Runs[i] = run
	}
	return &r, nil
}
