package runbook

// corrupt: a stopped node's newest segment of a partition damaged.

const OpCorrupt Op = "corrupt"

// Corrupt damages the newest segment of a partition on a stopped node:
// corrupt NODE TOPIC [--partition P] (--bytes N | --truncate BYTES).
type Corrupt struct {
	Node      Target
	Topic     string // label
	Partition int
	Flip      int   // bytes to invert
	Truncate  int64 // bytes to cut off the end
}

func (Corrupt) action() {}

var corruptDirective = &Directive{
	Op:    OpCorrupt,
	build: buildCorrupt,
	check: checkCorrupt,
	Name:  "corrupt",
	Summary: "Damage the newest segment of the topic's partition in a stopped node's log directory, as a disk or a write cut short would: " +
		"invert N bytes at random offsets of its last 4 KiB (--bytes), or cut BYTES off its end (--truncate). " +
		"The node must be down (stop or kill it first); the step says which file and which offsets. " +
		"Whether the broker finds it depends on how it went down: Kafka recovers the segments after its recovery point on a start after an unclean shutdown, not after a clean one. Needs the local backend, the docker backend with its daemon on this machine, or the kubernetes backend (from inside the node's pod, whose faults container mounts its volume).",
	Args: []ArgSpec{{Name: "NODE", Kind: KindNode}, {Name: "TOPIC", Kind: KindTopic}},
	Flags: []FlagSpec{
		{Name: "partition", Kind: KindInt, Meta: "P", Default: "0", Help: "The partition."},
		{Name: "bytes", Kind: KindInt, Meta: "N", Max: 4096, Help: "Invert this many bytes (each at its own offset) in the segment's last 4 KiB."},
		{Name: "truncate", Kind: KindInt, Meta: "BYTES", Help: "Cut this many bytes off the segment's end."},
	},
	Example: `kill k3
corrupt k3 t --truncate 10
start k3
wait healthy --timeout 2m`,
	Lands: []FaultKind{
		{Op: "corrupt", Phrase: "corruption of the newest segment on ",
			Observed: "the segment file damaged, its size, and the offsets of the bytes inverted or the size it was cut to",
			Cannot:   map[string]string{"external": "applies only the node faults of its cluster file"}},
	},
	Hurts: true,
}

func buildCorrupt(st *Step) Action {
	return Corrupt{Node: st.arg(0).Target(), Topic: st.arg(1).Text, Partition: st.flagInt("partition"), Flip: st.flagInt("bytes"), Truncate: int64(st.flagInt("truncate"))}
}

// checkCorrupt wants one of --bytes and --truncate, a node the runbook
// took down when it names one, and a backend that reaches the node's
// files from this machine.
func checkCorrupt(c *checker, st *Step, _ string, _ Pos) {
	switch b, t := st.given("bytes"), st.given("truncate"); {
	case !b && !t:
		c.errorf(st.lineEnd(), "corrupt needs --bytes N or --truncate BYTES")
	case b && t:
		c.errorf(st.flagPos("truncate"), "corrupt takes --bytes or --truncate, not both")
	case b && st.flagInt("bytes") == 0, t && st.flagInt("truncate") == 0:
		c.errorf(st.Pos, "corrupt with nothing to damage: give --bytes or --truncate above 0")
	}
	if n := st.arg(0).Target().Node; n != "" {
		if _, down := c.down[n]; !down {
			c.errorf(st.arg(0).Pos, "%s is running here: a running broker holds its segment open; add \"stop %s\" or \"kill %s\" before this step", n, n, n)
		}
	}
}
