package results

import (
	"slices"
	"time"
)

// Consumer is one consumer group of a run: the consume step that started
// it, every member process, everything the members did (deliveries,
// effects, skips, commits, crashes), the committed offsets the admin API
// reported over time, and the tally made after the run. The members are
// processes of their own; the engine records what they report on their
// pipes, and reads their SQLite store at the end.
type Consumer struct {
	Group   string          `json:"group"`  // real group name, with the per-run suffix
	Label   string          `json:"label"`  // as written in the runbook
	Topic   string          `json:"topic"`  // label of the topic it reads
	Commit  string          `json:"commit"` // auto, after or before
	Dedup   string          `json:"dedup"`  // none, table or transactional
	Store   string          `json:"store"`  // the SQLite file, relative to results.json
	Pos     string          `json:"pos"`    // the consume step's file:line:col
	Members []Member        `json:"members"`
	Events  []ConsumerEvent `json:"events"`
	Offsets []OffsetSample  `json:"offsets"` // change points of the committed offsets, sampled through the admin API
	// OffsetSampling says how finely Offsets was sampled; nil while
	// Offsets holds every sample taken.
	OffsetSampling *Sampling      `json:"offsets_sampling,omitempty"`
	Tally          *ConsumerTally `json:"tally,omitempty"`
	// Input is what the tally was derived from besides Events (a
	// group_input event), kept in events.jsonl only, for Recheck.
	Input    *GroupInput       `json:"-"`
	Settings map[string]string `json:"settings,omitempty"` // the consume step's other flags: batch, work, auto-commit-interval
}

// Member is one process of a consumer group.
type Member struct {
	N     int       `json:"n"` // 1 for the consume step's member, then 2, 3... per start consumer
	PID   int       `json:"pid"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end,omitempty"`
	// How is how the process ended: "crashed" (SIGKILL, by crash consumer
	// or --crash-at), "stopped" (cleanly, by stop consumer or the end of
	// the run) or "failed" (it exited with an error of its own).
	How    string `json:"how,omitempty"`
	Reason string `json:"reason,omitempty"` // what crashed or stopped it, or its error
	// ClientErrors are the lines a driver member's client logged at ERROR
	// (its stderr), each with the exception lines after it, the first
	// few: what the client said when the listener or the client failed.
	ClientErrors []string `json:"client_errors,omitempty"`
}

// Member ends.
const (
	MemberCrashed = "crashed"
	MemberStopped = "stopped"
	MemberFailed  = "failed"
)

// ConsumerEvent is one thing a member did, reported on its pipe as it
// happened. Offset is the record's offset, except for commit events, where
// it is the committed offset: the next record the group will read.
type ConsumerEvent struct {
	At        time.Time `json:"at"`
	Member    int       `json:"member"`
	Kind      string    `json:"kind"`
	Partition int32     `json:"partition"`
	Offset    int64     `json:"offset"`
	ID        string    `json:"id,omitempty"`    // message id, m-001
	Event     string    `json:"event,omitempty"` // event id, when not the message id
	Error     string    `json:"error,omitempty"` // fenced: the error that fenced the member
}

// Consumer event kinds, in the order a record meets them.
const (
	EventDeliver = "deliver" // the record was handed to the handler by a poll
	EventSkip    = "skip"    // its event id was in event_handled: not applied again
	EventEffect  = "effect"  // its effect (like count, applied count) is committed to the store
	EventHandled = "handled" // its event id is in event_handled (dedup table and transactional)
	EventCommit  = "commit"  // the group's offset for the partition was committed
	EventCrash   = "crash"   // the member was killed here (--crash-at)
	EventAbort   = "abort"   // a transform member's transaction holding this record's derived record was aborted (the group rebalanced): the record comes again
	EventFenced  = "fenced"  // a transform member's producer was fenced by a successor with its transactional.id (Error says how); partition and offset -1, ID the record whose derived write was refused (none when fenced at begin or commit)
)

// OffsetSample is a group's committed offset of one partition, asked of
// the group coordinator (OffsetFetch, with require_stable since Sent was
// recorded, as a successor's KafkaConsumer asks); -1 when none. The
// answer holds for some moment between Sent and At: a commit acknowledged
// before Sent is in it, one acknowledged after At is not, and one
// acknowledged in between may or may not be.
type OffsetSample struct {
	At        time.Time `json:"at"`            // when the answer came back; a sample's partitions share it
	Sent      time.Time `json:"sent,omitzero"` // when the question was sent; zero in evidence that did not record it
	Partition int32     `json:"partition"`
	Committed int64     `json:"committed"`
}

// Consumer returns the group of the run by its label.
func (r Run) Consumer(label string) (*Consumer, bool) {
	i := slices.IndexFunc(r.Consumers, func(c Consumer) bool { return c.Label == label })
	if i < 0 {
		return nil, false
	}
	return &r.Consumers[i], true
}
