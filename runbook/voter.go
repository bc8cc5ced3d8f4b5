package runbook

// voter add and voter remove: the KRaft controller quorum changed while the
// cluster runs (KIP-853), as Kafka's own kafka-metadata-quorum.sh does it.

const (
	OpVoterAdd    Op = "voter add"
	OpVoterRemove Op = "voter remove"
)

// VoterAdd makes a node one of the quorum's voters: voter add kN [--kafka
// VERSION]. A node the cluster does not have yet is started first, a broker
// and controller formatted to join as an observer.
type VoterAdd struct {
	Node  string // kN: the next id, or a node that was a voter
	Kafka string // a new node's release; "" the one k1 runs now
}

// VoterRemove takes a node out of the quorum's voters: voter remove NODE.
// The node runs on, a broker and an observer of the quorum.
type VoterRemove struct {
	Node Target // kN or controller()
}

func (VoterAdd) action() {}

func (VoterRemove) action() {}

var voterAddDirective = &Directive{
	Op:    OpVoterAdd,
	build: func(st *Step) Action { return VoterAdd{Node: st.arg(0).Text, Kafka: st.flagStr("kafka")} },
	check: checkVoterAdd,
	Name:  "voter add",
	Summary: "Make a node one of the controller quorum's voters, as `kafka-metadata-quorum.sh add-controller` does (KIP-853; Kafka's own tool runs on the node). " +
		"The next node id (k4 on three nodes) is started first, a broker and controller like the others, formatted to follow the quorum as an observer; " +
		"the step waits until it is registered and has caught up, and after the tool until the quorum lists it among its voters. " +
		"A node removed by `voter remove` can be added back. Needs `quorum: dynamic`; the local, docker and kubernetes backends can.",
	Args: []ArgSpec{{Name: "NODE", Kind: KindText}},
	Flags: []FlagSpec{
		{Name: "kafka", Kind: KindRelease, Meta: "VERSION",
			Help: "Run a new node on this Kafka release; default: the release k1 runs now."},
	},
	Example: "voter add k4",
	Alone:   "it needs a dynamic quorum (quorum: dynamic); the engine's TestOperations runs it on a cluster of its own",
	Lands: []FaultKind{
		{Op: "voter add", Phrase: "addition to the controller quorum of "},
	},
	Hurts: true,
}

var voterRemoveDirective = &Directive{
	Op:    OpVoterRemove,
	build: func(st *Step) Action { return VoterRemove{Node: st.arg(0).Target()} },
	check: checkDynamicQuorum,
	Name:  "voter remove",
	Summary: "Take a node out of the controller quorum's voters, as `kafka-metadata-quorum.sh remove-controller` does (KIP-853; Kafka's own tool, on a running node, with the voter's directory id from DescribeQuorum). " +
		"`voter remove controller()` removes the active controller, which resigns once the new voter set is committed. " +
		"The step waits until the quorum no longer lists the node and has a leader; the node runs on as a broker and observer. Needs `quorum: dynamic`; the local, docker and kubernetes backends can.",
	Args:    []ArgSpec{{Name: "NODE", Kind: KindNode}},
	Example: "voter remove controller()",
	Alone:   "it needs a dynamic quorum (quorum: dynamic); the engine's TestOperations runs it on a cluster of its own",
	Lands: []FaultKind{
		{Op: "voter remove", Phrase: "removal from the controller quorum of "},
	},
	Hurts: true,
}

// checkVoterAdd: a node the cluster has, or the next one, which the
// cluster grows by; and a dynamic quorum.
func checkVoterAdd(c *checker, st *Step, text string, pos Pos) {
	checkDynamicQuorum(c, st, text, pos)
	a := st.arg(0)
	next := c.nodeCount() + 1
	t, ok := parseTarget(a.Text)
	switch {
	case !ok || t.Node == "":
		c.errorf(a.Pos, "voter add %s: name a node, k1..k%d, or the next one, k%d", a.Text, c.nodeCount(), next)
	case t.ID() == next && next > MaxNodes:
		c.errorf(a.Pos, "voter add %s: a cluster has at most %d nodes", a.Text, MaxNodes)
	case t.ID() == next:
		c.added++
	case t.ID() > next:
		c.errorf(a.Pos, "voter add %s: the next node is k%d (node ids follow the cluster's)", a.Text, next)
	}
}

// checkDynamicQuorum: the voter steps change the quorum, which only a
// dynamic one allows.
func checkDynamicQuorum(c *checker, st *Step, _ string, _ Pos) {
	if c.d.Meta.Quorum != QuorumDynamic {
		c.errorf(st.Pos, "%s changes the controller quorum's voters, which needs a dynamic quorum: add `quorum: %s` to the front matter", st.dir.Name, QuorumDynamic)
	}
}
