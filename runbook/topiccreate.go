package runbook

// topic create: a topic with an explicit replica assignment or a
// replication factor.

const OpTopicCreate Op = "topic create"

// TopicCreate creates a topic: topic create NAME.
type TopicCreate struct {
	Topic             string
	Partitions        int32
	Replicas          [][]int32         // broker ids per partition; nil: ReplicationFactor
	ReplicationFactor int16             // 0: every node
	Config            map[string]string // topic configurations
}

func (TopicCreate) action() {}

var topicCreateDirective = &Directive{
	Op:      OpTopicCreate,
	build:   buildTopicCreate,
	check:   checkTopicCreate,
	Name:    "topic create",
	Summary: "Create a topic, with an explicit replica assignment or a replication factor.",
	Args:    []ArgSpec{{Name: "NAME", Kind: KindTopic}},
	Flags: []FlagSpec{
		{Name: "partitions", Kind: KindInt, Meta: "N", Default: "1",
			Help: "Number of partitions."},
		{Name: "replicas", Kind: KindReplicas, Meta: "1:2:3",
			Help: "Broker ids of the replicas, preferred leader first; separate partitions with commas (1:2:3,2:3:1)."},
		{Name: "replication-factor", Kind: KindInt, Meta: "N",
			Help: "Number of replicas when --replicas is not given; default: all nodes."},
		{Name: "config", Kind: KindKeyValue, Meta: "K=V", Many: true,
			Help: "A topic configuration, such as min.insync.replicas=2."},
	},
	Example: `topic create t --replicas 1:2:3 --config min.insync.replicas=2`,
}

func buildTopicCreate(st *Step) Action {
	a := TopicCreate{
		Topic:      st.arg(0).Text,
		Partitions: int32(st.flagInt("partitions")),
		Config:     st.flagKeyValues("config"),
	}
	if st.given("replicas") {
		a.Replicas, _ = parseReplicas(st.flagStr("replicas"), 0)
	}
	if st.given("replication-factor") {
		a.ReplicationFactor = int16(st.flagInt("replication-factor"))
	}
	return a
}

func checkTopicCreate(c *checker, st *Step, topic string, tp Pos) {
	c.positive(st, "partitions")
	rf, hasRF := st.givenInt("replication-factor")
	if hasRF && (rf < 1 || rf > c.d.Meta.Nodes) {
		c.errorf(st.flagPos("replication-factor"), "--replication-factor must be between 1 and %d, the number of nodes", c.d.Meta.Nodes)
	}
	if st.given("replicas") && st.given("replication-factor") {
		c.errorf(st.flagPos("replication-factor"), "give --replicas or --replication-factor, not both")
	}
	if r, msg := parseReplicas(st.flagStr("replicas"), c.d.Meta.Nodes); st.given("replicas") && msg == "" {
		if n, ok := st.givenInt("partitions"); ok && n != len(r) {
			c.errorf(st.flagPos("partitions"), "--partitions %d does not match --replicas, which assigns %d partition(s)", n, len(r))
		}
	}
	if topic != "" {
		if p, dup := c.created[topic]; dup {
			c.errorf(tp, "topic %q is already created on line %d", topic, p.Line)
		} else {
			c.created[topic] = tp
		}
	}
}
