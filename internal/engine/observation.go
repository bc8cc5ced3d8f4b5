package engine

import (
	"sync"

	"github.com/kafkabook/kafkabook/results"
)

// The observation is the part of a run that looks at the cluster without
// touching what the clients under test do: the leader and ISR sampler,
// the broker log lines, the cluster's features, the waits on leaders and
// ISRs, and the reads, snapshots and the final read that classify every
// message of the ledger. It reads the workload's history through history
// and nothing else of it.
type observation struct {
	*env
	history history

	mu        sync.Mutex
	seen      map[string]*results.Seen // by label: what reads found at each offset
	snapshots map[string][]snapshot    // by label: the `read` steps' tallies
	finals    map[string]results.Tally // by label: the final read's tallies
	sampler   *sampler
}

// history is what the observation reads of the workload: the ledger a
// read classifies, the transactions it checks, and which topics there are.
type history interface {
	ledger(label string) results.Topic
	transactions(label string) []results.Transaction
	producedTo() []string          // labels of the topics produced to, in order of first use
	realTopics() []string          // cluster names of every topic so far, sorted
	liveGroups() map[string]string // group → topic, cluster names, of the groups whose member runs
}

func newObservation(e *env, h history) *observation {
	return &observation{env: e, history: h, seen: map[string]*results.Seen{},
		snapshots: map[string][]snapshot{}, finals: map[string]results.Tally{}}
}

// epoch is the last sampled leader epoch of a partition, -1 before the
// sampler runs or answers.
func (o *observation) epoch(topic string, partition int32) int32 {
	if o.sampler == nil {
		return -1
	}
	return o.sampler.epoch(topic, partition)
}
