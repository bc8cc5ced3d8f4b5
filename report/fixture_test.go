package report

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

var update = flag.Bool("update", false, "rewrite golden files and fixtures in testdata")

// fixtureStart is when the simulated invocation began.
var fixtureStart = time.Date(2026, 11, 29, 21, 35, 0, 0, time.UTC)

// stepPos finds each step of a runbook in file order, through runbook.Load,
// so a simulated run carries the positions and block numbers (indices into
// Doc.Blocks) that the engine records.
type stepPos struct {
	steps []located
	next  int
}

type located struct {
	pos   string
	block int
	text  string
}

func newStepPos(path, src string) *stepPos {
	doc, _ := runbook.Load(path, []byte(src), runbook.Overrides{})
	sp := &stepPos{}
	for i, b := range doc.Blocks {
		switch b.Kind {
		case runbook.Kafka:
			for _, st := range b.Steps {
				sp.steps = append(sp.steps, located{st.Pos.String(), i, st.Text})
			}
		case runbook.Shell:
			sp.steps = append(sp.steps, located{b.Pos.String(), i, strings.TrimSpace(b.Text)})
		}
	}
	return sp
}

// sha256Hex is the sha256 the engine records for a runbook source.
func sha256Hex(src string) string {
	h := sha256.Sum256([]byte(src))
	return hex.EncodeToString(h[:])
}

func bare(text string) string {
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), "&"))
}

// find returns the position and block of the next step written as text.
func (sp *stepPos) find(text string) (string, int) {
	for i := sp.next; i < len(sp.steps); i++ {
		if bare(sp.steps[i].text) == bare(text) {
			sp.next = i + 1
			return sp.steps[i].pos, sp.steps[i].block
		}
	}
	panic("step not in runbook: " + text)
}

// sim records one simulated run.
type sim struct {
	run   *results.Run
	pos   *stepPos
	topic map[string]*results.Topic
	log   map[string][]results.Record // what each topic's log holds, in offset order
	seen  map[string]map[results.At]string
}

func (s *sim) at(sec float64) time.Time {
	return s.run.Start.Add(time.Duration(sec * float64(time.Second)))
}

// step records a step's output and returns its position.
func (s *sim) step(text string, from, to float64, out ...string) string {
	pos, block := s.pos.find(text)
	bg := strings.HasSuffix(text, " &")
	s.run.Steps = append(s.run.Steps, results.StepOutput{Pos: pos, Block: block, Text: strings.TrimSuffix(text, " &"),
		Start: s.at(from), End: s.at(to), Output: out, Background: bg})
	return pos
}

func (s *sim) fault(text string, sec float64, op string, nodes ...string) {
	pos := s.step(text, sec, sec+0.05, op+" "+strings.Join(nodes, " ")+": done")
	s.run.Faults = append(s.run.Faults, results.Fault{At: s.at(sec), Op: op, Nodes: nodes, Pos: pos})
}

// produce records count messages from number first, the i-th intended at
// start+i*gap and acked lat(i) later, at offsets from offset0.
func (s *sim) produce(label, acks string, first, count int, start, gap float64, lat func(i int) time.Duration, offset0 int64, epoch int32) []string {
	t := s.topic[label]
	var out []string
	for i := 0; i < count; i++ {
		id := fmt.Sprintf("m-%03d", first+i)
		intended := s.at(start + float64(i)*gap)
		acked := intended.Add(lat(i))
		t.Messages = append(t.Messages, results.Message{ID: id, Acks: acks, Intended: intended, Acked: acked,
			Status: results.StatusOK, Partition: 0, Offset: offset0 + int64(i), LeaderEpoch: epoch})
		out = append(out, fmt.Sprintf("%5.1fs %s ok offset=%d", acked.Sub(s.at(start)).Seconds(), id, offset0+int64(i)))
	}
	return out
}

// isr records samples every 250 ms from..to with a fixed state.
func (s *sim) isr(label string, from, to float64, leader int32, isr ...int32) {
	for x := from; x < to; x += 0.25 {
		s.run.ISR = append(s.run.ISR, results.ISRSample{At: s.at(x), Topic: label, Partition: 0, Leader: leader,
			ISR: isr, Replicas: []int32{1, 2, 3}})
	}
}

// classify reads label's log up to hw, as the engine's read does.
func (s *sim) classify(label string, sec float64, hw int64, final bool) results.Tally {
	t := s.topic[label]
	var recs []results.Record
	for _, r := range s.log[label] {
		if r.Offset < hw {
			recs = append(recs, r)
		}
	}
	if s.seen[label] == nil {
		s.seen[label] = map[results.At]string{}
	}
	tl := results.Classify(*t, recs, map[int32]int64{0: hw}, s.seen[label], final)
	results.Remember(s.seen[label], recs)
	tl.At, tl.Via, tl.Settled, tl.Final = s.at(sec), "k2", true, final
	return tl
}

// tallyLines is what a read prints.
func tallyLines(tl results.Tally) []string {
	o := tl.Outcomes()
	hw := tl.HighWatermarks[0]
	out := []string{fmt.Sprintf("high watermark=%d, read %d records", hw, tl.Read)}
	line := fmt.Sprintf("acked %d: present %d", tl.Acked, o.Present)
	if o.Unseen > 0 {
		line += fmt.Sprintf(", unseen %d (%s ... %s: acknowledged at or above the high watermark; the final read decides)", o.Unseen, tl.Unseen[0], tl.Unseen[len(tl.Unseen)-1])
	}
	if o.Lost > 0 {
		line += fmt.Sprintf(", lost %d (%s ... %s)", o.Lost, tl.Lost[0].ID, tl.Lost[len(tl.Lost)-1].ID)
	}
	return append(out, line)
}

// read is a `read` step: a snapshot of label's log at high watermark hw.
func (s *sim) read(text, label string, sec float64, hw int64) {
	tl := s.classify(label, sec, hw, false)
	tl.Pos = s.step(text, sec, sec+0.2, tallyLines(tl)...)
	s.run.Tallies = append(s.run.Tallies, tl)
}

// final is the final read on the healed cluster: sentinels move every
// topic's log past its highest acknowledged offset, then every topic is
// read to its high watermark.
func (s *sim) final(sec float64, labels ...string) {
	var out []string
	for i, label := range labels {
		var last int64 = -1
		for _, m := range s.topic[label].Messages {
			last = max(last, m.Offset)
		}
		next := int64(len(s.log[label]))
		for off := next; off == next || off <= last; off++ {
			s.log[label] = append(s.log[label], results.Record{ID: fmt.Sprintf("sentinel-r%d", s.run.Number), Offset: off})
		}
		tl := s.classify(label, sec+0.3*float64(i), int64(len(s.log[label])), true)
		s.run.Final = append(s.run.Final, tl)
		out = append(out, label+":")
		for _, l := range tallyLines(tl) {
			out = append(out, "  "+l)
		}
	}
	s.run.Steps = append(s.run.Steps, results.StepOutput{Pos: "", Block: -1, Text: "final read", Start: s.at(sec - 1), End: s.at(sec + 0.6), Output: out})
}

func (s *sim) expect(text string, sec float64, actual string, held bool) {
	word := "held"
	if !held {
		word = "FAILED"
	}
	pos := s.step(text, sec, sec, fmt.Sprintf("%s: %s (was %s)", strings.TrimPrefix(text, "expect "), word, actual))
	s.run.Expectations = append(s.run.Expectations, results.Expectation{Pos: pos, Expr: strings.TrimPrefix(text, "expect "), Actual: actual, Held: held})
}

// acksFixture simulates the acks article's runbook (DESIGN.md §2) four
// times: acks=1 loses 10, 10, 20, 20 messages; acks=all loses none.
func acksFixture(src string) *results.Results {
	rng := rand.New(rand.NewSource(1))
	ms := func(lo, hi float64) func(int) time.Duration {
		return func(int) time.Duration {
			return time.Duration((lo + rng.Float64()*(hi-lo)) * float64(time.Millisecond))
		}
	}
	r := &results.Results{
		Schema: results.SchemaVersion, Complete: true,
		Title:   "Does acks=1 lose acknowledged messages?",
		Runbook: results.Runbook{Name: "producer-acks", Path: "examples/producer-acks.md", SHA256: sha256Hex(src), File: "runbook.md"},
		Provenance: results.Provenance{Tool: "v0.1.0", Commit: "4e2a9c1", Kafka: "4.3.1", Backend: "local", Nodes: 3,
			Broker: map[string]string{"replica.lag.time.max.ms": "3000"}, FranzGo: "v1.22.3",
			Params: map[string]string{"count": "10"}, Host: "lab-1", GoVersion: "go1.26.8", Java: "17.0.13",
			Start: fixtureStart, Repeat: 4},
	}
	lostAll := []bool{false, false, true, true} // runs 3 and 4: followers cut before fetching m-001..m-010
	for n := 1; n <= 4; n++ {
		start := fixtureStart.Add(time.Duration(n-1) * 70 * time.Second).Add(2 * time.Second)
		run := &results.Run{Number: n, Start: start, Complete: true}
		s := &sim{run: run, pos: newStepPos("examples/producer-acks.md", src), topic: map[string]*results.Topic{},
			log: map[string][]results.Record{}, seen: map[string]map[results.At]string{}}
		for _, l := range []string{"acks1", "acksall"} {
			run.Topics = append(run.Topics, results.Topic{Name: fmt.Sprintf("%s-r%d", l, n), Label: l})
		}
		s.topic["acks1"], s.topic["acksall"] = &run.Topics[0], &run.Topics[1]

		// Experiment 1.
		s.step("topic create acks1 --partitions 1 --replicas 1:2:3", 0, 0.4, "created acks1 (partitions=1 replicas=1:2:3)")
		out := s.produce("acks1", "1", 1, 10, 0.5, 0.1, ms(2, 8), 0, 0)
		s.step("produce acks1 --acks 1 --count ${count}", 0.5, 1.6, out...)
		s.step("isr acks1", 1.7, 1.75, "acks1 partition 0: leader=1 replicas=[1, 2, 3] isr=[1, 2, 3]")
		s.fault("isolate k2 k3", 2.0, "isolate", "k2", "k3")
		out = s.produce("acks1", "1", 11, 10, 2.2, 0.01, ms(1, 4), 10, 0)
		s.step("produce acks1 --acks 1 --from 11 --count ${count}", 2.2, 2.4, out...)
		s.fault("kill k1", 3.5, "kill", "k1")
		s.fault("rejoin k2 k3", 4.0, "rejoin", "k2", "k3")
		s.step("wait leader acks1 in k2,k3 --timeout 60s", 4.1, 10.5, "leader of acks1 is 2 after 6.4s")
		s.step("isr acks1", 10.6, 10.65, "acks1 partition 0: leader=2 replicas=[1, 2, 3] isr=[2, 3]")
		// The new leader k2 holds what it fetched before it was cut off.
		hw, lost := int64(10), 10
		if lostAll[n-1] {
			hw, lost = 0, 20
		}
		for _, m := range s.topic["acks1"].Messages[:hw] {
			s.log["acks1"] = append(s.log["acks1"], results.Record{ID: m.ID, Offset: m.Offset})
		}
		s.read("read acks1 --via k2", "acks1", 10.8, hw)
		s.expect("expect lost(acks1) > 0", 11.0, fmt.Sprint(lost), lost > 0) // judged after the final read
		s.isr("acks1", 0.25, 3.5, 1, 1, 2, 3)
		s.isr("acks1", 3.5, 10.5, -1, 2, 3)
		s.isr("acks1", 10.5, 17.0, 2, 2, 3)
		s.isr("acks1", 17.0, 51.5, 2, 2, 3, 1)

		// Experiment 2.
		s.fault("start k1", 12.0, "start", "k1")
		s.step("wait isr acks1 --size 3 --timeout 60s", 12.1, 17.0, "isr of acks1 has 3 members after 4.9s")
		s.step("topic create acksall --partitions 1 --replicas 1:2:3", 18.5, 18.9, "created acksall (partitions=1 replicas=1:2:3)")
		out = s.produce("acksall", "all", 1, 10, 19.0, 0.1, ms(8, 20), 0, 0)
		s.step("produce acksall --acks all --count ${count}", 19.0, 20.2, out...)
		s.fault("isolate k2 k3", 20.5, "isolate", "k2", "k3")
		out = s.produce("acksall", "all", 11, 10, 20.6, 0.001, func(i int) time.Duration {
			return 29300*time.Millisecond - time.Duration(i)*time.Millisecond + ms(0, 3)(i)
		}, 10, 1)
		s.step("produce acksall --acks all --from 11 --count ${count} --timeout 120s &", 20.6, 49.95, out...)
		s.step("sleep 5s", 20.6, 25.6)
		s.step("isr acksall", 25.6, 25.65, "acksall partition 0: leader=1 replicas=[1, 2, 3] isr=[1, 2, 3]")
		s.fault("kill k1", 26.0, "kill", "k1")
		s.fault("rejoin k2 k3", 26.5, "rejoin", "k2", "k3")
		s.step("wait leader acksall in k2,k3 --timeout 60s", 26.6, 33.0, "leader of acksall is 2 after 6.4s")
		s.step("wait producers --timeout 120s", 33.0, 49.95, "1 background producer finished after 29.3s")
		for _, m := range s.topic["acksall"].Messages {
			s.log["acksall"] = append(s.log["acksall"], results.Record{ID: m.ID, Offset: m.Offset})
		}
		s.read("read acksall --via k2", "acksall", 50.2, 20)
		s.expect("expect lost(acksall) == 0", 50.4, "0", true)
		s.expect("expect acked(acksall) == 20", 50.45, "20", true)
		s.isr("acksall", 18.75, 26.0, 1, 1, 2, 3)
		s.isr("acksall", 26.0, 33.0, -1, 2, 3)
		s.isr("acksall", 33.0, 51.5, 2, 2, 3)

		// Experiment 3, and the brokers' notable log lines of the run, as
		// the engine captures them (paths under the cluster's state
		// directory redacted): new topics' followers truncating their empty
		// logs, k1 shrinking the ISR it cannot change, k1 fenced, k2 leading,
		// k1 restarted and cutting its log back to what k2 holds (the loss),
		// controller records replayed on every node.
		run.Logs = s.brokerLogs(hw)
		logs := run.Logs
		var lines []string
		for _, l := range logs {
			if l.Node == "k1" && strings.Contains(l.Text, "Shrinking ISR") {
				lines = append(lines, l.Text)
			}
		}
		s.step(`logs k1 --grep "Shrinking ISR"`, 50.6, 50.8, lines...)
		s.step(`kcat -b "$KAFKA_BOOTSTRAP" -C -t acksall -e -q -f '%o %s\n' | tail -n 3`, 50.9, 51.3,
			"17 m-018", "18 m-019", "19 m-020")
		s.final(52.5, "acks1", "acksall")
		run.End = s.at(53.2)
		r.Runs = append(r.Runs, *run)
	}
	r.Provenance.End = r.Runs[len(r.Runs)-1].End.Add(2 * time.Second)
	return r
}

// logLine is a broker log line in the layout kafkabook gives log4j2.
func (s *sim) logLine(sec float64, node, level, format string, args ...any) results.LogLine {
	at := s.at(sec).Round(time.Millisecond)
	return results.LogLine{At: at, Node: node, Text: "[" + at.UTC().Format("2006-01-02T15:04:05.000Z") + "] " + level + " " + fmt.Sprintf(format, args...)}
}

// registration is the controller's record of a broker starting: one long
// line, replayed by every node.
const registration = "[QuorumController id=%d] Replayed RegisterBrokerRecord establishing a new incarnation of broker 1: RegisterBrokerRecord(brokerId=1, isMigratingZkBroker=false, incarnationId=TiTwSdDhSECAm2OQeLtYVA, brokerEpoch=55, endPoints=[BrokerEndpoint(name='PLAINTEXT', host='10.213.165.11', port=9092, securityProtocol=0)], features=[BrokerFeature(name='eligible.leader.replicas.version', minSupportedVersion=0, maxSupportedVersion=1), BrokerFeature(name='metadata.version', minSupportedVersion=7, maxSupportedVersion=30), BrokerFeature(name='share.version', minSupportedVersion=0, maxSupportedVersion=1), BrokerFeature(name='kraft.version', minSupportedVersion=0, maxSupportedVersion=1), BrokerFeature(name='group.version', minSupportedVersion=0, maxSupportedVersion=1), BrokerFeature(name='streams.version', minSupportedVersion=0, maxSupportedVersion=1), BrokerFeature(name='transaction.version', minSupportedVersion=0, maxSupportedVersion=2)], rack=null, fenced=true, inControlledShutdown=false, logDirs=[4OwBXb5PkEP8gjli_qQ4gQ], cordonedLogDirs=null) (org.apache.kafka.controller.ClusterControlManager)"

// brokerLogs is what the brokers of one simulated run logged that the
// engine keeps; hw is where k2's copy of acks1 ended when it took over.
func (s *sim) brokerLogs(hw int64) []results.LogLine {
	n := s.run.Number
	a1, aa := fmt.Sprintf("acks1-r%d-0", n), fmt.Sprintf("acksall-r%d-0", n)
	var ls []results.LogLine
	add := func(l results.LogLine) { ls = append(ls, l) }
	newTopic := func(sec float64, part string) {
		add(s.logLine(sec, "k1", "INFO", "[Broker id=1] Leader %s with topic id Some(51M6TbCaSY6PAQhUpFCfdg) starts at leader epoch 0 from offset 0 with partition epoch 0, high watermark 0, ISR [1,2,3], adding replicas [] and removing replicas [] . Previous leader None and previous leader epoch was -1. (state.change.logger)", part))
		for i, node := range []string{"k2", "k3"} {
			at := sec + 0.05 + 0.01*float64(i)
			add(s.logLine(at, node, "INFO", "[Broker id=%d] Follower %s starts at leader epoch 0 from offset 0 with partition epoch 0 and high watermark 0. Current leader is 1. Previous leader None and previous leader epoch was -1. (state.change.logger)", i+2, part))
			add(s.logLine(at+0.02, node, "INFO", "[ReplicaFetcher replicaId=%d, leaderId=1, fetcherId=0] Truncating partition %s with TruncationState(offset=0, completed=true) due to local high watermark 0 (kafka.server.ReplicaFetcherThread)", i+2, part))
			add(s.logLine(at+0.023, node, "INFO", "[UnifiedLog partition=%s, dir=$KAFKABOOK_STATE/%s/data] Truncating to 0 has no effect as the largest offset in the log is -1 (org.apache.kafka.storage.internals.log.UnifiedLog)", part, node))
		}
	}
	fenced := func(sec float64, epoch, fence int) {
		add(s.logLine(sec, "k3", "INFO", "[QuorumController id=3] Fencing broker 1 at epoch %d because its session has timed out. (org.apache.kafka.controller.ReplicationControlManager)", epoch))
		for i, node := range []string{"k2", "k3"} {
			add(s.logLine(sec+0.01+0.005*float64(i), node, "INFO", "[QuorumController id=%d] Replayed BrokerRegistrationChangeRecord modifying the registration for broker 1: BrokerRegistrationChangeRecord(brokerId=1, brokerEpoch=%d, fenced=%d, inControlledShutdown=0, logDirs=[], cordonedLogDirs=null) (org.apache.kafka.controller.ClusterControlManager)", i+2, epoch, fence))
		}
	}
	newLeader := func(sec float64, part string, from, hw int64) {
		add(s.logLine(sec, "k2", "INFO", "[Broker id=2] Leader %s with topic id Some(51M6TbCaSY6PAQhUpFCfdg) starts at leader epoch 1 from offset %d with partition epoch 1, high watermark %d, ISR [2,3], adding replicas [] and removing replicas [] . Previous leader Some(1) and previous leader epoch was 0. (state.change.logger)", part, from, hw))
		add(s.logLine(sec+0.02, "k3", "INFO", "[Broker id=3] Follower %s starts at leader epoch 1 from offset %d with partition epoch 1 and high watermark %d. Current leader is 2. Previous leader Some(1) and previous leader epoch was 0. (state.change.logger)", part, from, hw))
	}

	// Experiment 1: k1 leads acks1, cut off from its followers, then killed.
	newTopic(0.2, a1)
	add(s.logLine(3.3, "k1", "INFO", "[Partition %s broker=1] Shrinking ISR from 3,1,2 to 1. Leader: (highWatermark: %d, endOffset: 20). Out of sync replicas: (brokerId: 2, endOffset: %d) (brokerId: 3, endOffset: %d). (kafka.cluster.Partition)", a1, hw, hw, hw))
	add(s.logLine(3.4, "k1", "WARN", "[Partition %s broker=1] Failed to alter partition to PendingShrinkIsr(...) since the controller quorum is unreachable. Retrying. (kafka.cluster.Partition)", a1))
	fenced(10.3, 10, 1)
	newLeader(10.4, a1, hw, 0)
	// k1 restarted: a follower of k2 now, it cuts its log back to k2's.
	for i, node := range []string{"k1", "k2", "k3"} {
		add(s.logLine(12.4+0.01*float64(i), node, "INFO", registration, i+1))
	}
	add(s.logLine(12.6, "k1", "INFO", "[BrokerLifecycleManager id=1] The broker has caught up. Transitioning from STARTING to RECOVERY. (org.apache.kafka.server.BrokerLifecycleManager)"))
	add(s.logLine(12.65, "k1", "INFO", "[Broker id=1] Follower %s starts at leader epoch 1 from offset 20 with partition epoch 1 and high watermark 0. Current leader is 2. Previous leader None and previous leader epoch was -1. (state.change.logger)", a1))
	add(s.logLine(12.7, "k1", "INFO", "[ReplicaFetcher replicaId=1, leaderId=2, fetcherId=0] Truncating partition %s with TruncationState(offset=%d, completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=0, leaderEpoch=0, endOffset=%d) (kafka.server.ReplicaFetcherThread)", a1, hw, hw))
	add(s.logLine(12.702, "k1", "INFO", "[UnifiedLog partition=%s, dir=$KAFKABOOK_STATE/k1/data] Truncating to offset %d (org.apache.kafka.storage.internals.log.UnifiedLog)", a1, hw))
	add(s.logLine(12.9, "k1", "INFO", "[BrokerLifecycleManager id=1] The broker has been unfenced. Transitioning from RECOVERY to RUNNING. (org.apache.kafka.server.BrokerLifecycleManager)"))
	for i, node := range []string{"k2", "k3"} {
		add(s.logLine(12.95+0.01*float64(i), node, "INFO", "[QuorumController id=%d] Replayed BrokerRegistrationChangeRecord modifying the registration for broker 1: BrokerRegistrationChangeRecord(brokerId=1, brokerEpoch=55, fenced=-1, inControlledShutdown=0, logDirs=[], cordonedLogDirs=null) (org.apache.kafka.controller.ClusterControlManager)", i+2))
	}
	add(s.logLine(16.9, "k2", "INFO", "[Partition %s broker=2] ISR updated to 2,3,1  and version updated to 2 (kafka.cluster.Partition)", a1))
	if n > 1 { // the cluster is reused: the previous run's topic rejoins its ISR too
		add(s.logLine(16.95, "k2", "INFO", "[Partition acks1-r%d-0 broker=2] ISR updated to 2,3,1  and version updated to %d (kafka.cluster.Partition)", n-1, 4*n-2))
	}

	// Experiment 2: acks=all; k1 killed with the second batch unreplicated.
	newTopic(18.7, aa)
	add(s.logLine(23.6, "k1", "INFO", "[Partition %s broker=1] Shrinking ISR from 3,1,2 to 1. Leader: (highWatermark: 10, endOffset: 20). Out of sync replicas: (brokerId: 2, endOffset: 10) (brokerId: 3, endOffset: 10). (kafka.cluster.Partition)", aa))
	fenced(32.8, 55, 1)
	newLeader(32.9, aa, 20, 10)
	// The engine reads one node's log after the other.
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].Node != ls[j].Node {
			return ls[i].Node < ls[j].Node
		}
		return ls[i].At.Before(ls[j].At)
	})
	return ls
}

// simulated makes the fixture of dir from its runbook.md with simulate,
// writes it there with -update, and returns it with the stored one, as
// results.Load reads it.
func simulated(t *testing.T, dir string, simulate func(src string) *results.Results) (want, got *results.Results) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "runbook.md"))
	if err != nil {
		t.Fatal(err)
	}
	want = simulate(string(src))
	if *update {
		if err := want.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	got, err = results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return want, got
}

// TestFixture regenerates testdata/acks/results.json with -update, and
// otherwise checks that the stored fixture is what the simulation makes.
func TestFixture(t *testing.T) {
	_, got := simulated(t, filepath.Join("testdata", "acks"), acksFixture)
	if lost := got.LostPerRun("acks1"); fmt.Sprint(lost) != "[10 10 20 20]" {
		t.Errorf("acks1 lost per run = %v, want [10 10 20 20]", lost)
	}
	if lost := got.LostPerRun("acksall"); fmt.Sprint(lost) != "[0 0 0 0]" {
		t.Errorf("acksall lost per run = %v, want [0 0 0 0]", lost)
	}
	if held, runs := got.Verdict(); held != 4 || runs != 4 {
		t.Errorf("verdict %d of %d", held, runs)
	}
	// The read step saw the second batch above its high watermark: unseen,
	// not lost; the final read proves it lost.
	snap, final := got.Runs[0].Tallies[0], got.Runs[0].Final[0]
	if len(snap.Unseen) != 10 || len(snap.Lost) != 0 || snap.Final || snap.Pos != "examples/producer-acks.md:38:1" {
		t.Errorf("run 1 snapshot: unseen %d lost %d final %v pos %s", len(snap.Unseen), len(snap.Lost), snap.Final, snap.Pos)
	}
	if l := final.Lost[0]; !final.Final || len(final.Lost) != 10 || l.ID != "m-011" || l.Offset != 10 || l.HighWatermark != 20 || l.Found != "sentinel-r1" {
		t.Errorf("run 1 final: %+v", final.Lost)
	}
}

// synthetic makes a large run set: runs × msgs messages in one topic, with
// faults, ISR samples and per-message step output, as a stress test.
func synthetic(runs, msgs int) *results.Results {
	rng := rand.New(rand.NewSource(7))
	r := &results.Results{Schema: results.SchemaVersion, Complete: true, Title: "Synthetic load",
		Runbook:    results.Runbook{Name: "synthetic", File: "runbook.md"},
		Provenance: results.Provenance{Kafka: "4.3.1", Backend: "local", Nodes: 3, Start: fixtureStart, Repeat: runs}}
	for n := 1; n <= runs; n++ {
		start := fixtureStart.Add(time.Duration(n) * time.Minute)
		run := results.Run{Number: n, Start: start, End: start.Add(60 * time.Second), Complete: true}
		topic := results.Topic{Name: fmt.Sprintf("load-r%d", n), Label: "load"}
		out := make([]string, 0, msgs)
		var recs []results.Record
		for i := 0; i < msgs; i++ {
			intended := start.Add(time.Duration(i) * 5 * time.Millisecond)
			lat := time.Duration(rng.ExpFloat64() * float64(3*time.Millisecond))
			if i > msgs/2 && i < msgs/2+msgs/20 {
				lat += 2 * time.Second
			}
			id := fmt.Sprintf("m-%05d", i+1)
			topic.Messages = append(topic.Messages, results.Message{ID: id, Acks: "1", Intended: intended,
				Acked: intended.Add(lat), Status: results.StatusOK, Offset: int64(i)})
			out = append(out, fmt.Sprintf("%5.1fs %s ok offset=%d", intended.Add(lat).Sub(start).Seconds(), id, i))
			if i%100 != 0 {
				recs = append(recs, results.Record{ID: id, Offset: int64(i)})
			}
		}
		run.Topics = []results.Topic{topic}
		snap := results.Classify(topic, recs[:len(recs)/2], map[int32]int64{0: int64(msgs / 2)}, nil, false)
		snap.At, snap.Pos, snap.Via = start.Add(30*time.Second), "synthetic.md:11:1", "k2"
		recs = append(recs, results.Record{ID: fmt.Sprintf("sentinel-r%d", n), Offset: int64(msgs)})
		final := results.Classify(topic, recs, map[int32]int64{0: int64(msgs + 1)}, nil, true)
		final.At, final.Final, final.Via = run.End.Add(-time.Second), true, "k2"
		run.Tallies, run.Final = []results.Tally{snap}, []results.Tally{final}
		run.Expectations = []results.Expectation{{Pos: "synthetic.md:12:1", Expr: "lost(load) == 0", Actual: fmt.Sprint(len(run.Tallies[0].Lost)), Held: false}}
		run.Faults = []results.Fault{
			{At: start.Add(20 * time.Second), Op: "isolate", Nodes: []string{"k2"}, Pos: "synthetic.md:9:1"},
			{At: start.Add(30 * time.Second), Op: "rejoin", Nodes: []string{"k2"}, Pos: "synthetic.md:10:1"},
		}
		for x := 0; x < 240; x++ {
			isr := []int32{1, 2, 3}
			if x > 80 && x < 130 {
				isr = []int32{1, 3}
			}
			run.ISR = append(run.ISR, results.ISRSample{At: start.Add(time.Duration(x) * 250 * time.Millisecond), Topic: "load", Leader: 1, ISR: isr, Replicas: []int32{1, 2, 3}})
		}
		run.Steps = []results.StepOutput{
			{Pos: "synthetic.md:8:1", Block: 0, Text: "produce load --acks 1 --count 10000", Start: start, End: run.End, Output: out},
			{Pos: "synthetic.md:12:1", Block: 0, Text: "expect lost(load) == 0", Output: []string{"FAILED"}},
		}
		r.Runs = append(r.Runs, run)
	}
	return r
}

const syntheticRunbook = "---\ntitle: Synthetic load\n---\n\n# Synthetic\n\n```kafka\nproduce load --acks 1 --count 10000\nisolate k2\nrejoin k2\nread load\nexpect lost(load) == 0\n```\n"

// busyTimeline is four runs of a few seconds with many fault windows close
// together, each run shifted a little, and several reads: the worst case
// for the labels of the time charts.
func busyTimeline() *results.Results {
	r := synthetic(4, 200)
	r.Title = "Busy timeline"
	for i := range r.Runs {
		run := &r.Runs[i]
		at := func(sec float64) time.Time {
			return run.Start.Add(time.Duration((sec + 0.37*float64(i)) * float64(time.Second)))
		}
		run.Faults = nil
		for j, f := range []struct {
			sec   float64
			op    string
			nodes []string
		}{
			{1.0, "isolate", []string{"k2", "k3"}}, {1.2, "pause", []string{"k1"}}, {1.5, "kill", []string{"k3"}},
			{1.6, "stop", []string{"k2"}}, {2.0, "resume", []string{"k1"}}, {2.2, "rejoin", []string{"k2", "k3"}},
			{2.3, "start", []string{"k2", "k3"}}, {4.0, "isolate", []string{"k1"}}, {4.1, "pause", []string{"k2"}},
			{4.3, "resume", []string{"k2"}}, {4.4, "rejoin", []string{"k1"}}, {6.0, "kill", []string{"k1"}},
		} {
			run.Faults = append(run.Faults, results.Fault{At: at(f.sec), Op: f.op, Nodes: f.nodes, Pos: fmt.Sprintf("synthetic.md:%d:1", 9+j)})
		}
		snaps := []results.Tally{}
		for k, sec := range []float64{1.8, 2.1, 4.2, 4.25} {
			tl := run.Tallies[0]
			tl.At, tl.Pos = at(sec), fmt.Sprintf("synthetic.md:%d:1", 30+k)
			snaps = append(snaps, tl)
		}
		run.Tallies = snaps
		run.Final[0].At = at(7.5)
		run.End = at(8)
	}
	return r
}
