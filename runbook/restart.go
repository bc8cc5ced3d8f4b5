package runbook

import (
	"strings"
	"time"

	"github.com/kafkabook/kafkabook/internal/kafkaconfig"
)

// restart and roll: nodes stopped and started again on their data, one at
// a time, as an operator restarts a cluster to change a setting or
// upgrades it to another Kafka release.

const (
	OpRestart Op = "restart"
	OpRoll    Op = "roll"
)

// Restart stops and starts nodes one after the other: restart NODE...
// [--to VERSION] [--clean=false], and roll [NODE...] [--to VERSION]
// [--clean=false] [--wait isr|healthy|none] [--pause DUR]. A restart is a
// roll that waits for nothing between nodes.
type Restart struct {
	Targets []Target // nil: every node, k1 first (roll)
	// To is the Kafka release each node starts on ("": the one it ran).
	To string
	// Clean shuts a node down with SIGTERM (controlled shutdown) and
	// waits for it to exit; false kills it (SIGKILL).
	Clean bool
	// Wait is what must hold before the next node goes down: RollISR
	// (every partition's ISR full), RollHealthy (wait healthy) or
	// RollNone.
	Wait    string
	Pause   time.Duration // slept after the wait, before the next node
	Timeout time.Duration // for each wait
	// Set are broker settings each node starts with from this restart on
	// (server.properties), on top of the front matter's broker: — the
	// change a rolling restart is made for.
	Set map[string]string
}

// What a roll waits for between nodes.
const (
	RollISR     = "isr"
	RollHealthy = "healthy"
	RollNone    = "none"
)

func (Restart) action() {}

// Flags restart and roll share.
var (
	toFlag = FlagSpec{Name: "to", Kind: KindRelease, Meta: "VERSION",
		Help: "Start each node on this Kafka release, from the same log directories, as a rolling upgrade (or downgrade) does; the evidence records each node's release from then on. The local, docker and kubernetes backends can (docker: the node's container is made again on the other release's image, same volume, address and ports; kubernetes: the node's pod is made again from the StatefulSet on that image and the same volume claim, one pod at a time), and an external cluster whose file has a release command."}
	setFlag = FlagSpec{Name: "set", Kind: KindKeyValue, Meta: "KEY=VALUE", Many: true,
		Help: "A broker setting each node starts with from this restart on, on top of the front matter's `broker:`, checked against the node's release: the change a rolling restart is made for. The local, docker and kubernetes backends can (docker: the node's container is made again on the same volume, address and ports; kubernetes: a file on the node's volume that the broker's supervisor reads at each start)."}
	cleanFlag = FlagSpec{Name: "clean", Kind: KindBool, Default: "true",
		Help: "Shut each node down cleanly (SIGTERM: controlled shutdown moves its leaderships away first) and wait for it to exit; `--clean=false` kills it (SIGKILL) instead, as a crashed host or an impatient operator does."}
)

var restartDirective = &Directive{
	Op:    OpRestart,
	build: buildRestart,
	check: checkRestart,
	Name:  "restart",
	Summary: "Restart the nodes one after the other: each is shut down and started again on its data before the next; the evidence records each stop and start. " +
		"It does not wait for the ISR between nodes (roll does): add wait isr or wait healthy after it, or restart one node a step.",
	Args:    []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true}},
	Flags:   []FlagSpec{toFlag, setFlag, cleanFlag},
	Example: "restart k2\nwait healthy --timeout 2m",
	Hurts:   true,
}

var rollDirective = &Directive{
	Op:    OpRoll,
	build: buildRoll,
	check: checkRestart,
	Name:  "roll",
	Summary: "Restart the nodes one at a time as an operator rolls a cluster (every node, k1 first, when none is named): " +
		"each next node goes down only once the previous one is back and --wait holds.",
	Args: []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true, Optional: true}},
	Flags: []FlagSpec{toFlag, setFlag, cleanFlag,
		{Name: "wait", Kind: KindWord, Meta: "WHAT", Default: RollISR, Choices: []string{RollISR, RollHealthy, RollNone},
			Help: "Before the next node: `isr` waits until every partition's ISR is full again, `healthy` also until every broker sees every other, `none` waits for nothing (a careless roll)."},
		{Name: "pause", Kind: KindDuration, Meta: "DUR",
			Help: "Sleep this long after the wait, before the next node."},
		{Name: "timeout", Kind: KindDuration, Meta: "DUR", Default: "3m",
			Help: "Give up, failing the run, when a wait between nodes takes longer."},
	},
	Example: "roll k3 --wait isr --pause 1s",
	Hurts:   true,
}

func buildRestart(st *Step) Action {
	return Restart{Targets: st.targets(), To: st.flagStr("to"), Clean: st.flagBool("clean"), Wait: RollNone, Set: st.flagKeyValues("set")}
}

func buildRoll(st *Step) Action {
	return Restart{Targets: st.targets(), To: st.flagStr("to"), Clean: st.flagBool("clean"),
		Wait: st.flagStr("wait"), Pause: st.flagDuration("pause"), Timeout: st.flagDuration("timeout"),
		Set: st.flagKeyValues("set")}
}

// checkRestart checks each --set against the releases the nodes will run:
// the run's, or the one --to names.
func checkRestart(c *checker, st *Step, _ string, _ Pos) {
	releases := c.d.Meta.Kafka
	if to := st.flagStr("to"); to != "" {
		releases = []string{to}
	}
	for _, a := range st.Flags["set"] {
		name, val, ok := strings.Cut(a.Text, "=")
		if !ok || name == "" {
			continue // reported with the value
		}
		for _, m := range settingErrors(kafkaconfig.Broker, name, val, releases) {
			p := a.Pos
			if !m.onName {
				p.Col += len(name) + 1
			}
			c.errorf(p, "--set: %s", m.text)
		}
	}
}
