package runbook

import "time"

// sleep: a fixed wait.

const OpSleep Op = "sleep"

// Sleep waits a fixed time: sleep DUR.
type Sleep struct{ For time.Duration }

func (Sleep) action() {}

var sleepDirective = &Directive{
	Op:      OpSleep,
	build:   buildSleep,
	Name:    "sleep",
	Summary: "Wait for a fixed time.",
	Args:    []ArgSpec{{Name: "DUR", Kind: KindDuration}},
	Example: `sleep 1s`,
}

func buildSleep(st *Step) Action {
	d, _ := time.ParseDuration(st.arg(0).Text)
	return Sleep{For: d}
}
