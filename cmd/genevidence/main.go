// Command genevidence writes a synthetic run directory for measuring
// kafkabook render: RUNS runs of the acks article's shape, each with two
// topics of MESSAGES/2 messages on a steady schedule, a failover in the
// middle, ISR samples every 100 ms and a final read. Used by
// scripts/bench-produce.sh.
//
//	go run ./scripts/genevidence -runs 100 -messages 10000 DIR
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

const runbook = "---\ntitle: synthetic load\nrepeat: 1\n---\n\n# Synthetic load\n\n```kafka\n" +
	"topic create a --replicas 1:2:3\ntopic create b --replicas 1:2:3\n" +
	"produce a --acks 1 --rate 500/s --for 10s &\nproduce b --acks all --rate 500/s --for 10s &\n" +
	"sleep 4s\nkill k1\nsleep 2s\nstart k1\nwait producers\nexpect lost(b) == 0\n```\n"

func main() {
	runs := flag.Int("runs", 100, "number of runs")
	msgs := flag.Int("messages", 10000, "messages per run, over two topics")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genevidence [-runs N] [-messages N] DIR")
		os.Exit(3)
	}
	dir := flag.Arg(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "runbook.md"), []byte(runbook), 0o644); err != nil {
		fail(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	r := &results.Results{
		Complete: true, Title: "synthetic load",
		Runbook:    results.Runbook{Name: filepath.Base(filepath.Dir(filepath.Dir(dir))), Path: "synthetic.md", File: "runbook.md"},
		Provenance: results.Provenance{Tool: "genevidence", Kafka: "4.3.1", Backend: "local", Nodes: 3, Start: t0, Repeat: *runs},
	}
	for n := 1; n <= *runs; n++ {
		start := t0.Add(time.Duration(n-1) * 30 * time.Second)
		run := results.Run{Number: n, Start: start, End: start.Add(25 * time.Second), Complete: true,
			Tallies: []results.Tally{}, Expectations: []results.Expectation{{Pos: "synthetic.md:16:1", Expr: "lost(b) == 0", Actual: "0", Held: true}},
			Faults: []results.Fault{{At: start.Add(5 * time.Second), Op: "kill", Nodes: []string{"k1"}, Pos: "synthetic.md:14:1"},
				{At: start.Add(7 * time.Second), Op: "start", Nodes: []string{"k1"}, Pos: "synthetic.md:16:1"}},
			Logs: []results.LogLine{}, Steps: []results.StepOutput{}}
		for ti, label := range []string{"a", "b"} {
			name := fmt.Sprintf("%s-r%d-beef", label, n)
			l := &results.Ledger{}
			half := *msgs / 2
			l.Grow(half)
			for i := 0; i < half; i++ {
				in := start.Add(time.Second + time.Duration(i)*2*time.Millisecond)
				lat := time.Duration(500_000 + rng.IntN(3_000_000))
				if s := in.Sub(start); s > 5*time.Second && s < 9*time.Second { // the failover
					lat = start.Add(9*time.Second).Sub(in) + lat
				}
				l.Add(int64(i+1), []results.Acks{results.AcksLeader, results.AcksAll}[ti], false, in, in.Add(lat), results.StatusOK, "", 0, int64(i), 0)
			}
			tp := results.Topic{Name: name, Label: label, Ledger: l}
			run.Topics = append(run.Topics, tp)
			rd := &results.Records{}
			for i := 0; i < half; i++ {
				rd.Add([]byte(results.MessageID(int64(i+1))), 0, int64(i))
			}
			rd.Add([]byte("sentinel-r1"), 0, int64(half))
			final := results.ClassifyRead(tp, rd, map[int32]int64{0: int64(half) + 1}, nil, true)
			final.At, final.Final, final.Settled = run.End, true, true
			run.Final = append(run.Final, final)
			for at := start; at.Before(run.End); at = at.Add(100 * time.Millisecond) {
				leader, isr := int32(1), []int32{1, 2, 3}
				if s := at.Sub(start); s > 5*time.Second && s < 14*time.Second {
					leader, isr = 2, []int32{2, 3}
				}
				run.ISR = append(run.ISR, results.ISRSample{At: at, Topic: label, Leader: leader, ISR: isr, Replicas: []int32{1, 2, 3}})
			}
		}
		r.Runs = append(r.Runs, run)
	}
	r.Provenance.End = r.Runs[len(r.Runs)-1].End
	if err := r.Write(dir); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genevidence:", err)
	os.Exit(1)
}
