package runbook

import "regexp"

// logs: a node's broker log lines since the run began.

const OpLogs Op = "logs"

// Logs shows a node's broker log: logs NODE.
type Logs struct {
	Node Target
	Grep *regexp.Regexp // nil: every line
}

func (Logs) action() {}

var logsDirective = &Directive{
	Op:      OpLogs,
	build:   buildLogs,
	Name:    "logs",
	Summary: "Show the node's broker log lines since the run began.",
	Args:    []ArgSpec{{Name: "NODE", Kind: KindNode}},
	Flags: []FlagSpec{
		{Name: "grep", Kind: KindRegex, Meta: "REGEX",
			Help: "Only lines matching this regular expression (Go syntax; quote it if it has blanks)."},
	},
	Example: `logs k1 --grep ISR`,
}

func buildLogs(st *Step) Action {
	a := Logs{Node: st.arg(0).Target()}
	if g := st.flagStr("grep"); g != "" {
		a.Grep, _ = regexp.Compile(g)
	}
	return a
}
