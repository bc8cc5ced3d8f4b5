package explain

import (
	"slices"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// releases are the Kafka releases whose published runs the line table
// holds; every one must show every kind in required.
var releases = []string{"4.0.0", "4.0.1", "4.0.2", "4.1.0", "4.1.1", "4.1.2", "4.2.0", "4.2.1", "4.2.2", "4.3.0", "4.3.1", "4.4.0"}

var required = []Kind{BecomeLeader, BecomeFollower, PartitionState, Fenced, Unfenced, BrokerState, ISRShrink, ISRUpdated,
	TruncateFetch, Truncated, TruncateNoop, ControllerActive, QuorumLeader, AppendError}

// TestLineTable parses one real line per release and kind, from the
// published runs (testdata/lines.txt), and checks that every release shows
// every kind the explanations use. Elections are logged only when unclean,
// and 4.0.x, with ELR off, never logged one.
func TestLineTable(t *testing.T) {
	rows := readLineTable(t)
	have := map[string]map[Kind]bool{}
	for _, r := range rows {
		e, ok := Parse(r.line)
		if !ok || e.Kind != r.kind {
			t.Errorf("%s: Parse(%q) = %q, %v; want %q", r.release, r.line.Text, e.Kind, ok, r.kind)
		}
		if have[r.release] == nil {
			have[r.release] = map[Kind]bool{}
		}
		have[r.release][r.kind] = true
	}
	for _, rel := range releases {
		want := required
		if rel >= "4.1" {
			want = append(slices.Clone(required), Election)
		}
		for _, k := range want {
			if !have[rel][k] {
				t.Errorf("release %s: no %s line in testdata/lines.txt", rel, k)
			}
		}
	}
}

// TestParseFields checks what Parse reads from real lines of each form.
func TestParseFields(t *testing.T) {
	tests := []struct {
		name, text string
		want       Event
	}{
		{"election 4.4.0", `[2026-11-30T08:42:56.769Z] INFO Setting new leader for topicId QK8SOB_aQeCHo7ffwK7ffw, partition 0 to 3 using an unclean election. Previous partition: PartitionRegistration(replicas=[1, 2, 3], directories=[m0okE6arHXSWZTVc1NH_mQ, sqBQNGagLzxGOJEZBVh0EQ, kdzHB-Yr5TdVTWveF-trFw], isr=[], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[3], leader=-1, leaderRecoveryState=RECOVERED, leaderEpoch=3, partitionEpoch=5), change record: PartitionChangeRecord(partitionId=0, topicId=QK8SOB_aQeCHo7ffwK7ffw, isr=null, leader=-2, replicas=null, removingReplicas=null, addingReplicas=null, leaderRecoveryState=-1, directories=null, eligibleLeaderReplicas=null, lastKnownElr=null) (org.apache.kafka.controller.PartitionChangeBuilder)`,
			Event{Kind: Election, TopicID: "QK8SOB_aQeCHo7ffwK7ffw", Index: 0, Node: -1, Leader: 3, Epoch: 3, Offset: -1, ISR: []int32{}, ELR: []int32{}, LastELR: []int32{3}, Unclean: true}},
		{"reassignment done 4.3.1", `[2026-12-06T01:22:14.835Z] INFO [QuorumController id=1] AlterPartition request from node 1 for a-r1-96ef-0 completed the ongoing partition reassignment and triggered a leadership change isr: [1, 2, 3] -> [2, 3, 4], replicaSet: [4, 2, 3, 1] -> [4, 2, 3], partitionEpoch: 1 -> 2, leaderEpoch: 0 -> 1. Returning NEW_LEADER_ELECTED. (org.apache.kafka.controller.ReplicationControlManager)`,
			Event{Kind: ReassignDone, Partition: "a-r1-96ef-0", Index: -1, Node: 1, Leader: -1, Epoch: 1, Offset: -1, ISR: []int32{2, 3, 4}, From: []int32{1, 2, 3}, Replicas: []int32{4, 2, 3}, FromReplicas: []int32{4, 2, 3, 1}}},
		{"partition state 4.0.0", `[2026-11-30T08:09:23.892Z] INFO [Broker id=3] Skipped the become-follower state change for acksall-r1-ccdc-0 with topic id Some(MVeCbdpCREa_gOysfXH5uQ) and partition state LeaderAndIsrPartitionState(topicName='acksall-r1-ccdc', partitionIndex=0, controllerEpoch=-1, leader=2, leaderEpoch=1, isr=[2, 3, 1], partitionEpoch=2, replicas=[1, 2, 3], addingReplicas=[], removingReplicas=[], isNew=false, leaderRecoveryState=0) since it is already a follower with leader epoch 1. (state.change.logger)`,
			Event{Kind: PartitionState, Partition: "acksall-r1-ccdc-0", TopicID: "MVeCbdpCREa_gOysfXH5uQ", Index: -1, Node: 3, Leader: 2, Epoch: 1, Offset: -1, ISR: []int32{2, 3, 1}}},
		{"partition registration 4.4.0", `[2026-11-30T08:41:36.251Z] INFO [Broker id=3] Skipped the become-follower state change for acks1-r1-6ac3-0 with topic id Some(GIO4LF8GR7S67bNoEzD01w), partition registration PartitionRegistration(replicas=[1, 2, 3], directories=[eEQ7rfbCy6QK9YOjaX2dig, GDjFZFE7IUHdFv7wUacvkQ, h7jHV2t5WZwBA-4NYRwLvg], isr=[1, 2, 3], removingReplicas=[], addingReplicas=[], elr=[], lastKnownElr=[], leader=2, leaderRecoveryState=RECOVERED, leaderEpoch=1, partitionEpoch=2) and isNew=false since it is already a follower with leader epoch 1. (state.change.logger)`,
			Event{Kind: PartitionState, Partition: "acks1-r1-6ac3-0", TopicID: "GIO4LF8GR7S67bNoEzD01w", Index: -1, Node: 3, Leader: 2, Epoch: 1, Offset: -1, ISR: []int32{1, 2, 3}, ELR: []int32{}, LastELR: []int32{}}},
		{"new leader 4.4.0", `[2026-11-30T08:39:00.496Z] INFO [Broker id=1] Leader auto-r1-8768-0 with topic id Some(5jIyNaU5SL6o4nP7FJ9yRQ) starts at leader epoch 0 from offset 0 with partition epoch 0, high watermark 0, ISR [1,2,3], adding replicas [] and removing replicas [] . Previous leader None and previous leader epoch was -1. (state.change.logger)`,
			Event{Kind: BecomeLeader, Partition: "auto-r1-8768-0", TopicID: "5jIyNaU5SL6o4nP7FJ9yRQ", Index: -1, Node: 1, Leader: 1, Epoch: 0, Offset: 0, ISR: []int32{1, 2, 3}}},
		{"fencing 4.0.0", `[2026-11-30T08:09:07.494Z] INFO [QuorumController id=3] Fencing broker 1 at epoch 7 because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)`,
			Event{Kind: Fenced, Index: -1, Node: 1, Leader: -1, Epoch: 7, Offset: -1, Reason: "its session has timed out"}},
		{"shrink 4.4.0", `[2026-11-30T08:41:56.901Z] INFO [Partition mis2-r1-4da1-0 broker=1] Shrinking ISR from 1,3,2 to 1. Leader: (highWatermark: 10, endOffset: 20). Out of sync replicas: (brokerId: 2, endOffset: 10, lastCaughtUpTimeMs: 1796028112500) (brokerId: 3, endOffset: 10, lastCaughtUpTimeMs: 1796028112502). (kafka.cluster.Partition)`,
			Event{Kind: ISRShrink, Partition: "mis2-r1-4da1-0", Index: -1, Node: 1, Leader: 1, Epoch: -1, Offset: -1, From: []int32{1, 3, 2}, ISR: []int32{1}}},
		{"fetcher truncation 4.0.0", `[2026-11-30T08:06:47.967Z] INFO [ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Truncating partition auto-r1-2f11-0 with TruncationState(offset=0, completed=true) due to local high watermark 0 (kafka.server.ReplicaFetcherThread)`,
			Event{Kind: TruncateFetch, Partition: "auto-r1-2f11-0", Index: -1, Node: 2, Leader: 1, Epoch: -1, Offset: 0, Reason: "local high watermark"}},
		{"truncation 4.4.0", `[2026-11-30T08:43:48.362Z] INFO [UnifiedLog partition=plast-r1-fb9d-0, dir=$KAFKABOOK_STATE/k3/data] Truncating to offset 0 (org.apache.kafka.storage.internals.log.UnifiedLog)`,
			Event{Kind: Truncated, Partition: "plast-r1-fb9d-0", Index: -1, Node: -1, Leader: -1, Epoch: -1, Offset: 0}},
		{"retention deletion 4.3.1", `[2026-12-06T08:35:57.768Z] INFO [UnifiedLog partition=r-0, dir=$KAFKABOOK_STATE/k1/data] Incremented log start offset to 100 due to SegmentDeletion (org.apache.kafka.storage.internals.log.UnifiedLog)`,
			Event{Kind: Deleted, Partition: "r-0", Index: -1, Node: -1, Leader: -1, Epoch: -1, Offset: 100, Reason: "SegmentDeletion"}},
		{"retention segment 4.3.1", `[2026-12-06T08:35:57.767Z] INFO [UnifiedLog partition=r-0, dir=$KAFKABOOK_STATE/k1/data] Deleting segment LogSegment(baseOffset=0, size=1295, lastModifiedTime=1796542534402, largestRecordTimestamp=1796542534163) due to log retention time 120000ms breach based on the largest record timestamp in the segment (org.apache.kafka.storage.internals.log.UnifiedLog)`,
			Event{Kind: DeletingSegment, Partition: "r-0", Index: -1, Node: -1, Leader: -1, Epoch: -1, Offset: 0, Reason: "log retention time 120000ms breach based on the largest record timestamp in the segment"}},
		{"recovery truncation 4.3.1", `[2026-12-06T07:15:15.460Z] WARN [LogLoader partition=c-r1-6e61-0, dir=$KAFKABOOK_STATE/k3/data] Corruption found in segment 0, truncating to offset 0 (org.apache.kafka.storage.internals.log.LogLoader)`,
			Event{Kind: Truncated, Partition: "c-r1-6e61-0", Index: -1, Node: -1, Leader: -1, Epoch: -1, Offset: 0, Reason: "its recovery found a corrupt batch in segment 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := results.LogLine{At: time.Unix(0, 0).UTC(), Node: "k1", Text: tt.text}
			got, ok := Parse(l)
			tt.want.Line = l
			if !ok || !sameEvent(got, tt.want) {
				t.Errorf("Parse = %+v, %v\nwant  %+v", got, ok, tt.want)
			}
		})
	}
}

func sameEvent(a, b Event) bool {
	eq := func(x, y []int32) bool { return (x == nil) == (y == nil) && slices.Equal(x, y) }
	return a.Line == b.Line && a.Kind == b.Kind && a.Partition == b.Partition && a.TopicID == b.TopicID && a.Index == b.Index &&
		a.Node == b.Node && a.Leader == b.Leader && a.Epoch == b.Epoch && a.Offset == b.Offset && eq(a.ISR, b.ISR) &&
		eq(a.From, b.From) && eq(a.ELR, b.ELR) && eq(a.LastELR, b.LastELR) && a.Unclean == b.Unclean && a.Reason == b.Reason && a.State == b.State
}

// TestParseUnrecognised keeps a relevant line no pattern knows, and leaves
// out one that says nothing about replication.
func TestParseUnrecognised(t *testing.T) {
	relevantLine := results.LogLine{Node: "k2", Text: "[2026-11-30T08:00:00.000Z] INFO [Partition p-0 broker=2] ISR change deferred (kafka.cluster.Partition)"}
	if e, ok := Parse(relevantLine); !ok || e.Kind != Unrecognised {
		t.Errorf("Parse(%q) = %q, %v; want unrecognised", relevantLine.Text, e.Kind, ok)
	}
	other := results.LogLine{Node: "k2", Text: "[2026-11-30T08:00:00.000Z] INFO [SocketServer listenerType=BROKER, nodeId=2] Enabling request processing. (kafka.network.SocketServer)"}
	if e, ok := Parse(other); ok {
		t.Errorf("Parse(%q) = %q; want not relevant", other.Text, e.Kind)
	}
	x := Run(results.Run{Logs: []results.LogLine{relevantLine, other}})
	if len(x.Unrecognised) != 1 || x.Unrecognised[0] != relevantLine {
		t.Errorf("Run(...).Unrecognised = %v, want the ISR line", x.Unrecognised)
	}
}
