package runbook

import "time"

// The waits on the cluster: wait producers, wait leader, wait isr, wait
// healthy. wait consumer is with the group's verbs (group.go).

const (
	OpWaitProducers Op = "wait producers"
	OpWaitLeader    Op = "wait leader"
	OpWaitISR       Op = "wait isr"
	OpWaitHealthy   Op = "wait healthy"
)

// WaitLeader waits for a leader among nodes: wait leader TOPIC in NODES.
type WaitLeader struct {
	Topic   string
	In      []Target // plain nodes
	Timeout time.Duration
}

// WaitISR waits for an ISR size: wait isr TOPIC --size N.
type WaitISR struct {
	Topic   string
	Size    int
	Timeout time.Duration
}

// WaitProducers waits for the background steps: wait producers.
type WaitProducers struct{ Timeout time.Duration }

// WaitHealthy waits for a healthy cluster: wait healthy.
type WaitHealthy struct{ Timeout time.Duration }

func (WaitLeader) action() {}

func (WaitISR) action() {}

func (WaitProducers) action() {}

func (WaitHealthy) action() {}

var waitProducersDirective = &Directive{
	Op:      OpWaitProducers,
	build:   buildWaitProducers,
	check:   checkWaitProducers,
	Name:    "wait producers",
	Summary: "Wait until every background produce step started before it has finished.",
	Flags:   []FlagSpec{waitTimeout},
	Example: `wait producers --timeout 30s`,
}

var waitLeaderDirective = &Directive{
	Op:      OpWaitLeader,
	build:   buildWaitLeader,
	Name:    "wait leader",
	Summary: "Wait until the leader of the topic's partitions is one of the given nodes.",
	Args: []ArgSpec{
		{Name: "TOPIC", Kind: KindTopic},
		{Name: "in", Kind: KindKeyword},
		{Name: "NODE,NODE", Kind: KindNodes, Many: true},
	},
	Flags:   []FlagSpec{waitTimeout},
	Example: `wait leader t in k1,k2`,
}

var waitISRDirective = &Directive{
	Op:      OpWaitISR,
	build:   buildWaitISR,
	check:   checkWaitISR,
	Name:    "wait isr",
	Summary: "Wait until the ISR of the topic's partitions has exactly N members.",
	Args:    []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
	Flags: []FlagSpec{
		{Name: "size", Kind: KindInt, Meta: "N", Required: true,
			Help: "Number of in-sync replicas to wait for."},
		waitTimeout,
	},
	Example: `wait isr t --size 3`,
}

var waitHealthyDirective = &Directive{
	Op:      OpWaitHealthy,
	build:   buildWaitHealthy,
	Name:    "wait healthy",
	Summary: "Wait until every node is up and connected and every ISR is full.",
	Flags:   []FlagSpec{waitTimeout},
	Example: `wait healthy --timeout 2m`,
}

func buildWaitLeader(st *Step) Action {
	a := WaitLeader{Topic: st.arg(0).Text, Timeout: st.flagDuration("timeout")}
	for _, n := range st.Args[min(1, len(st.Args)):] {
		a.In = append(a.In, n.Target())
	}
	return a
}

func buildWaitISR(st *Step) Action {
	return WaitISR{Topic: st.arg(0).Text, Size: st.flagInt("size"), Timeout: st.flagDuration("timeout")}
}

func buildWaitProducers(st *Step) Action {
	return WaitProducers{Timeout: st.flagDuration("timeout")}
}

func buildWaitHealthy(st *Step) Action {
	return WaitHealthy{Timeout: st.flagDuration("timeout")}
}

func checkWaitISR(c *checker, st *Step, topic string, tp Pos) {
	if n, ok := st.givenInt("size"); ok && (n < 1 || n > c.d.Meta.Nodes) {
		c.errorf(st.flagPos("size"), "--size must be between 1 and %d, the number of nodes", c.d.Meta.Nodes)
	}
}

func checkWaitProducers(c *checker, st *Step, topic string, tp Pos) {
	if !c.background {
		c.errorf(st.Pos, "wait producers: no background step (a produce ending in &) comes before it")
	}
}
