package runbook

// Freezing a client process: pause consumer G and pause producer T stop a
// member or a driver's producer with SIGSTOP, as a long GC pause or a
// stopped VM would, and resume consumer G / resume producer T let it go
// on. A frozen member is the zombie of consume-transform-produce: start
// consumer G starts its successor while it is frozen.

// PauseConsumer freezes a group's running member: pause consumer G.
type PauseConsumer struct{ Group string }

// ResumeConsumer lets a group's frozen member go on: resume consumer G.
type ResumeConsumer struct{ Group string }

// PauseProducer freezes the driver process of a background produce step
// to a topic: pause producer T.
type PauseProducer struct{ Topic string }

// ResumeProducer lets it go on: resume producer T.
type ResumeProducer struct{ Topic string }

func (PauseConsumer) action()  {}
func (ResumeConsumer) action() {}
func (PauseProducer) action()  {}
func (ResumeProducer) action() {}

const (
	OpPauseConsumer  Op = "pause consumer"
	OpResumeConsumer Op = "resume consumer"
	OpPauseProducer  Op = "pause producer"
	OpResumeProducer Op = "resume producer"
)

var pauseConsumerDirective = groupDirective(OpPauseConsumer, "pause consumer x\nstart consumer x",
	"Freeze the group's running member with SIGSTOP (a long GC pause, a stopped VM): it sends nothing, its session expires and the group moves on without it. start consumer G starts its successor while it is frozen: for a transform group with --eos, the zombie case, where the successor's transactional id fences it. Undone by resume consumer G.",
	func(st *Step) Action { return PauseConsumer{Group: st.arg(0).Text} })

var resumeConsumerDirective = groupDirective(OpResumeConsumer, "resume consumer x",
	"Let the group's frozen member go on (SIGCONT) where it stopped: a fenced transform member's next send or commit fails, and it reports the error as a fenced event and exits.",
	func(st *Step) Action { return ResumeConsumer{Group: st.arg(0).Text} })

var pauseProducerDirective = producerDirective(OpPauseProducer, "pause producer",
	"produce t --acks all --from 4 --count 10 --rate 1/s --client java &\nsleep 5s\npause producer t",
	"Freeze the driver process of the background produce step to TOPIC (produce TOPIC --client java ... &) with SIGSTOP: a transactional producer frozen past transaction.timeout.ms has its open transaction aborted by the coordinator, and its commit fails once resumed. franz-go's producer runs in kafkabook's process and cannot be frozen, except on the kubernetes backend, where it runs as a process in the clients' pod.",
	func(st *Step) Action { return PauseProducer{Topic: st.arg(0).Text} })

var resumeProducerDirective = producerDirective(OpResumeProducer, "resume producer",
	"resume producer t\nwait producers --timeout 60s\nwait consumer x --timeout 60s",
	"Let the frozen producer of TOPIC go on (SIGCONT) where it stopped.",
	func(st *Step) Action { return ResumeProducer{Topic: st.arg(0).Text} })

// producerDirective is the registry entry of a step on a background
// producer's process: pause producer, resume producer.
func producerDirective(op Op, name, example, summary string, build func(*Step) Action) *Directive {
	return &Directive{Op: op, build: build, check: checkProducerFreeze, Name: name, Example: example, Summary: summary,
		Args: []ArgSpec{{Name: "TOPIC", Kind: KindTopic}}}
}

// checkProducerFreeze: a produce step to the topic comes first, and it
// runs in the background (the step waits for a foreground one).
func checkProducerFreeze(c *checker, st *Step, topic string, tp Pos) {
	if topic == "" {
		return
	}
	if !c.produced[topic] || !c.background {
		c.errorf(tp, "%s %s: no produce %s ... & above: it freezes a producer running in the background", st.Name, topic, topic)
	}
}
