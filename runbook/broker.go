package runbook

// broker add and broker remove: the cluster grown by a broker, and an
// added broker taken out again.

const (
	OpBrokerAdd    Op = "broker add"
	OpBrokerRemove Op = "broker remove"
)

// BrokerAdd starts a new broker-only node: broker add kN [--kafka VERSION].
type BrokerAdd struct {
	Node  string // kN, the next id
	Kafka string // its release; "" the cluster's
}

// BrokerRemove takes an added broker out: broker remove kN.
type BrokerRemove struct {
	Node string
}

func (BrokerAdd) action() {}

func (BrokerRemove) action() {}

var brokerAddDirective = &Directive{
	Op:    OpBrokerAdd,
	build: func(st *Step) Action { return BrokerAdd{Node: st.arg(0).Text, Kafka: st.flagStr("kafka")} },
	check: checkBrokerAdd,
	Name:  "broker add",
	Summary: "Start a new broker, the next node id after the cluster's (k4 on three nodes), and wait until it is registered: a broker only, on the controller quorum the cluster was made with, " +
		"holding no replica until one is assigned to it (reassign). The steps after it may name it. The local, docker and kubernetes backends can (docker: a container made as k1's is, with its own address, port and volume; kubernetes: a pod of a broker pool, a StatefulSet of its own).",
	Args: []ArgSpec{{Name: "NODE", Kind: KindText}},
	Flags: []FlagSpec{
		{Name: "kafka", Kind: KindRelease, Meta: "VERSION",
			Help: "Run the new broker on this Kafka release; default: the release k1 runs now (after a rolling upgrade, the new one)."},
	},
	Example: "broker add k4",
	Alone:   "it grows the cluster, which the next run then makes new; the engine's TestOperations runs it on a cluster of its own",
	Lands: []FaultKind{
		{Op: "broker add", Phrase: "addition of broker "},
	},
	Hurts: true,
}

var brokerRemoveDirective = &Directive{
	Op:    OpBrokerRemove,
	build: func(st *Step) Action { return BrokerRemove{Node: st.arg(0).Text} },
	Name:  "broker remove",
	Summary: "Take a broker out as an operator does: a clean shutdown (its leaderships move away first), then its registration removed from the controller (UnregisterBroker). " +
		"Move its replicas away first (reassign): a replica on a removed broker stays offline. The nodes the cluster was made with are its controllers: " +
		"with a static quorum they stay; with `quorum: dynamic` one can go once `voter remove` has taken it out of the voters.",
	Args:    []ArgSpec{{Name: "NODE", Kind: KindNode}},
	Example: "broker add k4\nbroker remove k4",
	Alone:   "it needs an added broker; the engine's TestOperations runs it on a cluster of its own",
	Lands: []FaultKind{
		{Op: "broker remove", Phrase: "removal of broker "},
	},
	Hurts: true,
}

// checkBrokerAdd: the node is the next id, and the cluster stays within
// the local backend's size.
func checkBrokerAdd(c *checker, st *Step, _ string, _ Pos) {
	next := NodeName(c.nodeCount() + 1)
	switch a := st.arg(0); {
	case a.Text != next:
		c.errorf(a.Pos, "broker add %s: the next node is %s (node ids follow the cluster's)", a.Text, next)
	case c.nodeCount()+1 > MaxNodes:
		c.errorf(a.Pos, "broker add %s: a cluster has at most %d nodes", a.Text, MaxNodes)
	default:
		c.added++
	}
}
