package runbook

// elect: a leader election an operator asks for, as
// kafka-leader-election.sh does.

const OpElect Op = "elect"

// Elect asks the controller to elect leaders of a topic's partitions:
// elect TOPIC (--preferred | --unclean) [--partition P].
type Elect struct {
	Topic     string // label
	Partition int    // -1: every partition of the topic
	Unclean   bool   // a live replica out of the ISR, when no ISR replica is left; else the preferred one
}

func (Elect) action() {}

var electDirective = &Directive{
	Op:    OpElect,
	build: buildElect,
	check: checkElect,
	Name:  "elect",
	Summary: "Ask the controller for a leader election of the topic's partitions, as kafka-leader-election.sh --election-type does: " +
		"the preferred replica (the first of the assignment) where it is in the ISR and does not lead (--preferred), " +
		"or, for a partition with no leader and no in-sync replica alive, a live replica out of the ISR (--unclean), which takes the partition with whatever its log holds. " +
		"The step fails on an error of the controller's other than that no election was needed. The fault event names the partitions whose leader changed, read from fresh metadata.",
	Args: []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
	Flags: []FlagSpec{
		{Name: "preferred", Kind: KindBool, Help: "Elect the preferred replica (PREFERRED)."},
		{Name: "unclean", Kind: KindBool, Help: "Elect a live replica of a partition that has no leader, in the ISR or not (UNCLEAN)."},
		{Name: "partition", Kind: KindInt, Meta: "P", Help: "This partition only; every partition of the topic without it."},
	},
	Lands: []FaultKind{
		{Op: "elect", Phrase: "leader election of ",
			Observed: "each partition's leader and leader epoch before and after, from fresh metadata; an election that changed no partition's leader (the controller answered ELECTION_NOT_NEEDED, or elected no one) makes it unproven"},
	},
	Example: `topic create e --replicas 2:1:3
reassign e --replicas 1:2:3
wait reassigned e
elect e --preferred`,
	Hurts: true,
}

func buildElect(st *Step) Action {
	e := Elect{Topic: st.arg(0).Text, Partition: -1, Unclean: st.flagBool("unclean")}
	if st.given("partition") {
		e.Partition = st.flagInt("partition")
	}
	return e
}

// checkElect wants exactly one of --preferred and --unclean.
func checkElect(c *checker, st *Step, _ string, _ Pos) {
	switch p, u := st.flagBool("preferred"), st.flagBool("unclean"); {
	case !p && !u:
		c.errorf(st.lineEnd(), "elect needs --preferred or --unclean")
	case p && u:
		c.errorf(st.flagPos("unclean"), "elect takes --preferred or --unclean, not both")
	}
}
