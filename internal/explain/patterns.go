package explain

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kafkabook/kafkabook/results"
)

// Kind is what a broker log line says, as far as an explanation needs it.
type Kind string

// The kinds of line recognised on Kafka 4.0 to 4.4. The comment of each
// quotes the line as the brokers print it.
const (
	// Election: the controller chose a leader and logged how (KRaft logs
	// only the unclean ones at INFO): "Setting new leader for topicId T,
	// partition 0 to 1 using an unclean election. Previous partition:
	// PartitionRegistration(… isr=[], … elr=[], lastKnownElr=[1], leader=-1, …)".
	Election Kind = "election"
	// BecomeLeader: a broker took a partition's leadership: "[Broker id=2]
	// Leader acks1-r1-0 with topic id Some(X) starts at leader epoch 1 from
	// offset 10 with partition epoch 1, high watermark 0, ISR [2,3], …".
	BecomeLeader Kind = "become-leader"
	// BecomeFollower: "[Broker id=3] Follower acks1-r1-0 starts at leader
	// epoch 1 from offset 10 … Current leader is 2."
	BecomeFollower Kind = "become-follower"
	// PartitionState: a state change a broker skipped, with the whole
	// partition state: "partition state LeaderAndIsrPartitionState(…
	// leader=1, leaderEpoch=2, isr=[1, 2], …)" up to 4.1, "partition
	// registration PartitionRegistration(… isr=[…], elr=[…],
	// lastKnownElr=[…], leader=2, …, leaderEpoch=1, …)" from 4.2.
	PartitionState Kind = "partition-state"
	// Fenced: "[QuorumController id=1] Fencing broker 3 at epoch 131
	// because its session has timed out."
	Fenced Kind = "fenced"
	// Unfenced: "[BrokerLifecycleManager id=1] The broker has been
	// unfenced. Transitioning from RECOVERY to RUNNING."
	Unfenced Kind = "unfenced"
	// BrokerState: another lifecycle transition: "The broker has caught
	// up. Transitioning from STARTING to RECOVERY."
	BrokerState Kind = "broker-state"
	// ControlledShutdown: the active controller granted a broker's
	// controlled shutdown, which moves the broker's leaderships to other
	// replicas before it stops: "[QuorumController id=1] Unfenced broker 3
	// has requested and been granted a controlled shutdown."
	ControlledShutdown Kind = "controlled-shutdown"
	// ReassignDone: the active controller completed a reassignment when
	// the leader's AlterPartition request brought the last new replica
	// into the ISR, in the same change taking the removed replicas out of
	// the ISR and, when the leader was one of them, electing a new one
	// from the new replicas: "[QuorumController id=1] AlterPartition
	// request from node 1 for p-0 completed the ongoing partition
	// reassignment and triggered a leadership change isr: [1, 2, 3] -> [2,
	// 3, 4], replicaSet: [4, 2, 3, 1] -> [4, 2, 3], partitionEpoch: 1 -> 2,
	// leaderEpoch: 0 -> 1." Checked on 4.3.1's lines.
	ReassignDone Kind = "reassign-done"
	// ISRShrink: "[Partition p-0 broker=1] Shrinking ISR from 1,2,3 to 1."
	// The leader proposes it; "ISR updated" says it was committed.
	ISRShrink Kind = "isr-shrink"
	// ISRExpand: "Expanding ISR from 1 to 1,2."
	ISRExpand Kind = "isr-expand"
	// ISRUpdated: "[Partition p-0 broker=2] ISR updated to 2,1 and version
	// updated to 7": the controller accepted the change.
	ISRUpdated Kind = "isr-updated"
	// UnderMinISR: an ISR update that left fewer replicas than
	// min.insync.replicas: "ISR updated to 1 (under-min-isr) and version
	// updated to 1". The same line on every release; the published runs of
	// 4.0.2, 4.1.0, 4.1.1 and 4.2.2 happen not to hold one.
	UnderMinISR Kind = "under-min-isr"
	// TruncateFetch: a follower's decision: "[ReplicaFetcher replicaId=1,
	// leaderId=2, fetcherId=0] Truncating partition p-0 with
	// TruncationState(offset=10, completed=true) due to leader epoch and
	// offset EpochEndOffset(…)" or "due to local high watermark 0".
	TruncateFetch Kind = "truncate-fetch"
	// Truncated: the log cut records: "[UnifiedLog partition=p-0, dir=…]
	// Truncating to offset 10"; or its recovery at start did, on a batch
	// that failed its checks (Reason says which segment): "[LogLoader
	// partition=p-0, dir=…] Corruption found in segment 0, truncating to
	// offset 1882" (4.3.1's line after a kill and a cut tail).
	Truncated Kind = "truncated"
	// Deleted: retention moved a partition's log start offset past
	// records, deleting them: "[UnifiedLog partition=r-0, dir=…]
	// Incremented log start offset to 100 due to SegmentDeletion"; Reason
	// is the deletion's own line when it is a segment's: "Deleting segment
	// LogSegment(baseOffset=0, …) due to log retention time 120000ms breach
	// based on the largest record timestamp in the segment" (4.3.1's lines,
	// after a broker's clock was stepped an hour forward).
	Deleted Kind = "deleted"
	// DeletingSegment: the deletion's reason, the line before Deleted's.
	DeletingSegment Kind = "deleting-segment"
	// TruncateNoop: "Truncating to 0 has no effect as the largest offset in
	// the log is -1".
	TruncateNoop Kind = "truncate-noop"
	// ControllerActive: "[QuorumController id=1] Becoming the active
	// controller at epoch 3, next write offset 97."
	ControllerActive Kind = "controller-active"
	// QuorumLeader: "[RaftManager id=1] Completed transition to
	// Leader(… epoch=3, …)": the KRaft quorum's leader.
	QuorumLeader Kind = "quorum-leader"
	// MetadataTruncated: "[RaftManager id=2] Truncated to offset 32 from
	// Fetch response from leader 3": the metadata log, not a partition.
	MetadataTruncated Kind = "metadata-truncated"
	// AppendError: "[ReplicaManager broker=1] Error processing append
	// operation on partition mis2-r1-0": the leader refused a produce (the
	// exception, NotEnoughReplicasException for one, is on the next line,
	// which the evidence does not keep).
	AppendError Kind = "append-error"
	// Noise: lines that match the capture filter but say nothing about a
	// partition: request errors the controller logs while it starts, slow
	// controller events.
	Noise Kind = "noise"
	// Unrecognised: a line that mentions a leader, an ISR, fencing or a
	// truncation and matches no pattern above. It is kept and shown.
	Unrecognised Kind = "unrecognised"
)

// Event is one recognised line and what it says. Fields that a kind does
// not carry are zero (Leader, Epoch and Node are -1 when not said).
type Event struct {
	Line      results.LogLine
	Kind      Kind
	Partition string // "acks1-r1-1996-0"; for Election, "" until a topic id resolves it
	TopicID   string
	Index     int32 // partition index, for Election
	Node      int32 // the broker the line is about (fenced, unfenced, truncating, leading)
	Leader    int32 // new or current leader
	Epoch     int32 // leader epoch (controller epoch for ControllerActive, broker epoch for Fenced)
	Offset    int64 // truncation offset; log end offset for BecomeLeader/BecomeFollower
	ISR       []int32
	From      []int32 // ISR before, for ISRShrink/ISRExpand
	ELR       []int32
	LastELR   []int32
	Replicas  []int32 // ReassignDone: the replicas after, and before in FromReplicas
	// FromReplicas are ReassignDone's replicas before the change (the
	// new ones first, then those removed).
	FromReplicas []int32
	Unclean      bool   // Election: "using an unclean election"
	Reason       string // Fenced: "its session has timed out"; TruncateFetch: "leader epoch" or "local high watermark"
	State        string // BrokerState/Unfenced: the state entered
}

type pattern struct {
	kind Kind
	re   *regexp.Regexp
	fill func(e *Event, m []string)
}

// The patterns, most specific first. Every one was checked on real lines
// of each release 4.0.0–4.4.0 (patterns_test.go).
var patterns = []pattern{
	{Noise, regexp.MustCompile(`\[ControllerApis nodeId=\d+\] Unexpected error handling request|Exceptionally slow controller event`), func(*Event, []string) {}},
	{Election, regexp.MustCompile(`Setting new leader for topicId ([\w-]+), partition (\d+) to (-?\d+) using an? (unclean|clean) election`), func(e *Event, m []string) {
		e.TopicID, e.Index, e.Leader, e.Unclean = m[1], atoi32(m[2]), atoi32(m[3]), m[4] == "unclean"
		prev := e.Line.Text
		if i := strings.Index(prev, "Previous partition:"); i >= 0 {
			prev = prev[i:]
			if j := strings.Index(prev, "change record:"); j >= 0 {
				prev = prev[:j]
			}
			e.ISR, e.ELR, e.LastELR = field(prev, "isr"), field(prev, "elr"), field(prev, "lastKnownElr")
			e.Epoch = fieldInt(prev, "leaderEpoch")
		}
	}},
	{BecomeLeader, regexp.MustCompile(`\[Broker id=(\d+)\] Leader (\S+) with topic id Some\(([\w-]+)\) starts at leader epoch (\d+) from offset (\d+) with partition epoch \d+, high watermark \d+, ISR \[([\d,]*)\]`), func(e *Event, m []string) {
		e.Node, e.Partition, e.TopicID, e.Epoch, e.Offset, e.ISR = atoi32(m[1]), m[2], m[3], atoi32(m[4]), atoi64(m[5]), ids(m[6])
		e.Leader = e.Node
	}},
	{BecomeFollower, regexp.MustCompile(`\[Broker id=(\d+)\] Follower (\S+) starts at leader epoch (\d+) from offset (\d+) .*Current leader is (-?\d+)`), func(e *Event, m []string) {
		e.Node, e.Partition, e.Epoch, e.Offset, e.Leader = atoi32(m[1]), m[2], atoi32(m[3]), atoi64(m[4]), atoi32(m[5])
	}},
	{PartitionState, regexp.MustCompile(`\[Broker id=(\d+)\] Skipped the become-(?:leader|follower) state change for (\S+) with topic id Some\(([\w-]+)\),? (?:and )?partition (?:state|registration) (.*)`), func(e *Event, m []string) {
		e.Node, e.Partition, e.TopicID = atoi32(m[1]), m[2], m[3]
		st := m[4]
		e.Leader, e.Epoch, e.ISR = fieldInt(st, "leader"), fieldInt(st, "leaderEpoch"), field(st, "isr")
		e.ELR, e.LastELR = field(st, "elr"), field(st, "lastKnownElr")
	}},
	{Fenced, regexp.MustCompile(`Fencing broker (\d+)(?: at epoch (\d+))?(?: because ([^.(]*))?`), func(e *Event, m []string) {
		e.Node, e.Reason = atoi32(m[1]), strings.TrimSpace(m[3])
		if m[2] != "" {
			e.Epoch = atoi32(m[2])
		}
	}},
	{Unfenced, regexp.MustCompile(`\[BrokerLifecycleManager id=(\d+)\] The broker has been unfenced\. Transitioning from \w+ to (\w+)`), func(e *Event, m []string) {
		e.Node, e.State = atoi32(m[1]), m[2]
	}},
	{BrokerState, regexp.MustCompile(`\[BrokerLifecycleManager id=(\d+)\] .*Transitioning from \w+ to (\w+)`), func(e *Event, m []string) {
		e.Node, e.State = atoi32(m[1]), m[2]
	}},
	{ControlledShutdown, regexp.MustCompile(`\[QuorumController id=\d+\] Unfenced broker (\d+) has requested and been granted a controlled shutdown`), func(e *Event, m []string) {
		e.Node = atoi32(m[1])
	}},
	{ReassignDone, regexp.MustCompile(`\[QuorumController id=\d+\] AlterPartition request from node (\d+) for (\S+) completed the ongoing partition reassignment and triggered a leadership change isr: \[([\d, ]*)\] -> \[([\d, ]*)\], replicaSet: \[([\d, ]*)\] -> \[([\d, ]*)\].*?leaderEpoch: -?\d+ -> (\d+)`), func(e *Event, m []string) {
		e.Node, e.Partition, e.From, e.ISR, e.FromReplicas, e.Replicas, e.Epoch = atoi32(m[1]), m[2], ids(m[3]), ids(m[4]), ids(m[5]), ids(m[6]), atoi32(m[7])
	}},
	{ISRShrink, regexp.MustCompile(`\[Partition (\S+) broker=(\d+)\] Shrinking ISR from ([\d,]+) to ([\d,]+)`), func(e *Event, m []string) {
		e.Partition, e.Node, e.From, e.ISR = m[1], atoi32(m[2]), ids(m[3]), ids(m[4])
		e.Leader = e.Node
	}},
	{ISRExpand, regexp.MustCompile(`\[Partition (\S+) broker=(\d+)\] Expanding ISR from ([\d,]+) to ([\d,]+)`), func(e *Event, m []string) {
		e.Partition, e.Node, e.From, e.ISR = m[1], atoi32(m[2]), ids(m[3]), ids(m[4])
		e.Leader = e.Node
	}},
	{UnderMinISR, regexp.MustCompile(`\[Partition (\S+) broker=(\d+)\] ISR updated to ([\d,]+) \(under-min-isr\)`), func(e *Event, m []string) {
		e.Partition, e.Node, e.ISR = m[1], atoi32(m[2]), ids(m[3])
		e.Leader = e.Node
	}},
	{ISRUpdated, regexp.MustCompile(`\[Partition (\S+) broker=(\d+)\] ISR updated to ([\d,]+)`), func(e *Event, m []string) {
		e.Partition, e.Node, e.ISR = m[1], atoi32(m[2]), ids(m[3])
		e.Leader = e.Node
	}},
	{TruncateFetch, regexp.MustCompile(`\[ReplicaFetcher replicaId=(\d+), leaderId=(\d+)[^\]]*\] Truncating partition (\S+) with TruncationState\(offset=(\d+)[^)]*\) due to (leader epoch|local high watermark)`), func(e *Event, m []string) {
		e.Node, e.Leader, e.Partition, e.Offset, e.Reason = atoi32(m[1]), atoi32(m[2]), m[3], atoi64(m[4]), m[5]
	}},
	{Truncated, regexp.MustCompile(`\[LogLoader partition=([^,\s\]]+)[^\]]*\] Corruption found in segment (\d+), truncating to offset (\d+)`), func(e *Event, m []string) {
		e.Partition, e.Offset, e.Reason = m[1], atoi64(m[3]), "its recovery found a corrupt batch in segment "+m[2]
	}},
	{Truncated, regexp.MustCompile(`\[UnifiedLog partition=([^,\s\]]+)[^\]]*\] Truncating to offset (\d+)`), func(e *Event, m []string) {
		e.Partition, e.Offset = m[1], atoi64(m[2])
	}},
	{Deleted, regexp.MustCompile(`\[UnifiedLog partition=([^,\s\]]+)[^\]]*\] Incremented log start offset to (\d+) due to (\w+)`), func(e *Event, m []string) {
		e.Partition, e.Offset, e.Reason = m[1], atoi64(m[2]), m[3]
	}},
	{DeletingSegment, regexp.MustCompile(`\[UnifiedLog partition=([^,\s\]]+)[^\]]*\] Deleting segment LogSegment\(baseOffset=(\d+)[^)]*\) due to (.*?)(?: \(org\.apache|$)`), func(e *Event, m []string) {
		e.Partition, e.Offset, e.Reason = m[1], atoi64(m[2]), m[3]
	}},
	{TruncateNoop, regexp.MustCompile(`\[UnifiedLog partition=([^,\s\]]+)[^\]]*\] Truncating to (\d+) has no effect`), func(e *Event, m []string) {
		e.Partition, e.Offset = m[1], atoi64(m[2])
	}},
	{ControllerActive, regexp.MustCompile(`\[QuorumController id=(\d+)\] Becoming the active controller at epoch (\d+)`), func(e *Event, m []string) {
		e.Node, e.Epoch = atoi32(m[1]), atoi32(m[2])
	}},
	{QuorumLeader, regexp.MustCompile(`\[RaftManager id=(\d+)\] Completed transition to Leader\(.*?\bepoch=(\d+)`), func(e *Event, m []string) {
		e.Node, e.Epoch = atoi32(m[1]), atoi32(m[2])
	}},
	{MetadataTruncated, regexp.MustCompile(`\[RaftManager id=(\d+)\] Truncated to offset (\d+)`), func(e *Event, m []string) {
		e.Node, e.Offset = atoi32(m[1]), atoi64(m[2])
	}},
	{AppendError, regexp.MustCompile(`\[ReplicaManager broker=(\d+)\] Error processing append operation on partition (\S+)`), func(e *Event, m []string) {
		e.Node, e.Partition = atoi32(m[1]), m[2]
		e.Leader = e.Node
	}},
}

// relevant marks a line that talks about what an explanation needs: a
// partition's leader or ISR, fencing, truncation. One such line that no
// pattern matches is Unrecognised.
var relevant = regexp.MustCompile(`(?i)\bisr\b|\belr\b|lastKnownElr|leader epoch|new leader|fenc|truncat|election|min\.?insync|NotEnoughReplicas|under.?min`)

// Parse reads one line. ok is false for a line that is neither recognised
// nor relevant.
func Parse(l results.LogLine) (e Event, ok bool) {
	e = Event{Line: l, Node: -1, Leader: -1, Epoch: -1, Offset: -1, Index: -1}
	for _, p := range patterns {
		if m := p.re.FindStringSubmatch(l.Text); m != nil {
			e.Kind = p.kind
			p.fill(&e, m)
			return e, true
		}
	}
	if relevant.MatchString(l.Text) {
		e.Kind = Unrecognised
		return e, true
	}
	return e, false
}

// stateFields read the fields of a partition state that field and
// fieldInt are asked for.
var stateFields = map[string]*regexp.Regexp{
	"isr":          regexp.MustCompile(`\bisr=\[([\d, ]*)\]`),
	"elr":          regexp.MustCompile(`\belr=\[([\d, ]*)\]`),
	"lastKnownElr": regexp.MustCompile(`\blastKnownElr=\[([\d, ]*)\]`),
	"leader":       regexp.MustCompile(`\bleader=(-?\d+)`),
	"leaderEpoch":  regexp.MustCompile(`\bleaderEpoch=(-?\d+)`),
}

// field reads a broker list "name=[1, 2]" from a partition state; nil when
// absent, empty when the list is.
func field(s, name string) []int32 {
	m := stateFields[name].FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	return ids(m[1])
}

// fieldInt reads "name=-1" from a partition state; -1 when absent.
func fieldInt(s, name string) int32 {
	m := stateFields[name].FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	return atoi32(m[1])
}

// ids reads "1,2,3" or "1, 2, 3"; an empty list is empty, not nil.
func ids(s string) []int32 {
	out := []int32{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		out = append(out, atoi32(f))
	}
	return out
}

func atoi32(s string) int32 {
	n, _ := strconv.ParseInt(s, 10, 32)
	return int32(n)
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
