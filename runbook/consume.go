package runbook

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// consumeProperties are a consume step's consumer properties: the front
// matter's consumer: map, then the step's -X values, the later winning.
func consumeProperties(st *Step, meta map[string]string) map[string]string {
	props := maps.Clone(meta)
	if props == nil {
		props = map[string]string{}
	}
	maps.Copy(props, st.flagKeyValues("property"))
	return props
}

// checkConsumeClient checks what a consume step asks of its client: the
// client exists, its -X names are the client's own consumer properties,
// and the step's settings are ones that client has (--commit greedy is
// franz-go's, --ack-mode Spring's, properties a driver's).
func checkConsumeClient(c *checker, st *Step) {
	if st.given("client") {
		if _, _, err := ParseClient(st.flagStr("client")); err != nil {
			c.errorf(st.flagPos("client"), "--client: %v", err)
			return
		}
	}
	clients := c.stepClients(st)
	commit := st.flagStr("commit")
	hasProps := len(st.Flags["property"]) > 0 || len(c.d.Meta.Consumer) > 0
	seen := map[string]bool{}
	for _, cl := range clients {
		name, _, err := ParseClient(cl)
		if err != nil || seen[name] {
			continue
		}
		seen[name] = true
		switch {
		case commit == "greedy" && name != FranzGo:
			c.errorf(st.flagPos("commit"), "--commit greedy runs through %s: greedy is franz-go's GreedyAutoCommit; java/spring/librdkafka: use --commit auto", name)
		case commit == "before" && name == Spring && st.given("ack-mode") && !strings.HasPrefix(st.flagStr("ack-mode"), "manual"):
			c.errorf(st.flagPos("ack-mode"), "--commit before with --ack-mode %s: the container commits after the listener returns; committing before handling is acknowledge() first, which needs --ack-mode manual_immediate (the default with --commit before) or manual", st.flagStr("ack-mode"))
		}
		if st.given("ack-mode") && name != Spring {
			c.errorf(st.flagPos("ack-mode"), "--ack-mode runs through %s: it is Spring Kafka's ContainerProperties.AckMode; give --client spring", name)
		}
		if st.given("ack-mode") && name == Spring && commit == "auto" {
			c.errorf(st.flagPos("ack-mode"), "--ack-mode with --commit auto: the container leaves committing to the client's auto-commit and ignores its AckMode; use --commit after")
		}
		if name == FranzGo && hasProps {
			p := st.lineEnd()
			if a := st.Flags["property"]; len(a) > 0 {
				p = a[0].Pos
			}
			c.errorf(p, "consumer properties run through franz-go: kafkabook's franz-go member takes none (its settings are the consume flags); use --client java, spring or librdkafka")
		}
	}
	// franz-go was refused above when the step has properties; the others
	// check each name against their catalogue.
	clients = slices.DeleteFunc(slices.Clone(clients), func(cl string) bool { return cl == FranzGo })
	if st.given("client") && !slices.Contains(c.d.Meta.Client, st.flagStr("client")) {
		// The front matter's consumer: was checked for the run's clients,
		// not for this step's own.
		for _, name := range slices.Sorted(maps.Keys(c.d.Meta.Consumer)) {
			checkClientProperty(c.caps, &c.d.Meta, clients, RoleConsumer, name, c.d.Meta.Consumer[name], st.flagPos("client"), func(p Pos, msg string) {
				c.errorf(p, "consumer: %s (from the front matter): %s", name, msg)
			})
		}
	}
	allowed := map[string]Pos{}
	for _, a := range st.Flags["allow-unknown"] {
		allowed[a.Text] = a.Pos
	}
	given := map[string]bool{}
	for _, a := range st.Flags["property"] {
		name, value, ok := strings.Cut(a.Text, "=")
		if !ok || name == "" {
			continue // reported as a bad -X value
		}
		given[name] = true
		if pos, ok := allowed[name]; ok {
			checkAllowedUnknown(c, clients, name, value, a.Pos, pos)
			continue
		}
		checkClientProperty(c.caps, &c.d.Meta, clients, RoleConsumer, name, value, a.Pos, func(p Pos, msg string) {
			c.errorf(p, "-X %s: %s", name, msg)
		})
	}
	for _, a := range st.Flags["allow-unknown"] {
		if !given[a.Text] {
			c.errorf(a.Pos, "--allow-unknown %s: the step sets no -X %s=VALUE to let through (it applies to the step's own -X, not the front matter's consumer:)", a.Text, a.Text)
		}
	}
}

// checkAllowedUnknown checks a -X property the step lets through with
// --allow-unknown: the catalogue's "unknown" is what the flag is for, so
// it is not reported; anything else is, and a name every client of the
// step knows is refused, so that the flag never hides a real setting.
func checkAllowedUnknown(c *checker, clients []string, name, value string, p, flagPos Pos) {
	unknown, refused := false, false
	checkClientProperty(c.caps, &c.d.Meta, clients, RoleConsumer, name, value, p, func(p Pos, msg string) {
		if strings.Contains(msg, "unknown ") {
			unknown = true
			return
		}
		refused = true
		c.errorf(p, "-X %s: %s", name, msg)
	})
	if !unknown && !refused && c.caps.ClientProperty != nil && len(clients) > 0 {
		c.errorf(flagPos, "--allow-unknown %s: %s is a consumer property the client knows: drop --allow-unknown", name, name)
	}
}

const OpConsume Op = "consume"

// Consume starts a consumer group member: consume TOPIC --group G ...
type Consume struct {
	Topic, Group string
	Commit       string        // auto, greedy, after or before
	AutoCommit   time.Duration // with --commit auto or greedy; else 0
	Batch        int
	Work         time.Duration // 0: none
	Dedup        string        // none, table or transactional
	CrashAt      int           // 0: no crash
	CrashPoint   string        // with CrashAt: work, effect or handled
	// Client is the step's own --client (java, spring, librdkafka@2.15.1);
	// "": the client the run is for.
	Client string
	// Properties are the consumer's properties by the client's own names:
	// the front matter's consumer: map, then the step's -X values. A
	// driver gets them as they are; franz-go's member takes none.
	Properties map[string]string
	Handoff    bool   // records handled by a worker thread, not the poll loop
	AckMode    string // spring's container AckMode (record, batch, ..., manual_immediate); "": its default
	// AllowUnknown are the -X names let through although the client's
	// catalogue does not know them (--allow-unknown): the member starts
	// with them, and the client's reaction is recorded instead.
	AllowUnknown []string
	// Settings are the settings that shape the experiment as written, for
	// the evidence: those given, and the defaults that apply (the batch
	// always, the interval when the client commits on a timer).
	Settings map[string]string
}

func (Consume) action() {}

var consumeDirective = &Directive{
	Op:         OpConsume,
	build:      buildConsume,
	check:      checkConsume,
	Name:       "consume",
	Summary:    "Start a consumer group member as a process of its own that reads the topic, applies each message's effect to the group's SQLite store (a like count per key, an applied count per event id) and commits offsets as --commit says; it runs until crash consumer, stop consumer or the end of the run, so it ends in &.",
	Background: true,
	Args:       []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
	Flags: []FlagSpec{
		{Name: "group", Kind: KindGroup, Meta: "G", Required: true,
			Help: "The consumer group: the name expectations and the other consumer steps use."},
		{Name: "client", Kind: KindClient, Meta: "CLIENT[@V]",
			Help: "Run the member through this client instead of the run's (kafkabook run --client, front matter client:): franz-go (kafkabook's own member), java[@kafka-clients version] (KafkaConsumer), spring[@spring-kafka version] (Spring Kafka's KafkaMessageListenerContainer) or librdkafka[@confluent-kafka version] (confluent-kafka's Consumer). Every client does the same work on the same store (docs/driver-protocol.md, \"Consumer group members\")."},
		{Name: "property", Short: "X", Kind: KindProperty, Meta: "NAME=VALUE", Many: true,
			Help: "A consumer property by the client's own name: -X group.protocol=consumer -X session.timeout.ms=10000; over the front matter's consumer: map. check refuses a name the client does not have, and any property for franz-go, whose member takes none."},
		{Name: "allow-unknown", Kind: KindText, Meta: "NAME", Many: true,
			Help: "Let the step's -X NAME through although the client's catalogue has no such consumer property (the second article's value-serializer): the client gets it unchanged, and instead of failing the step kafkabook records what the client does with it (its unknown_properties, and the lines its own log writes naming it) in the step's output. check still refuses a NAME the client knows, or one the step does not set with -X."},
		{Name: "commit", Kind: KindWord, Meta: "auto|greedy|after|before", Required: true, Choices: []string{"auto", "greedy", "after", "before"},
			Help: "auto: the client's own auto-commit (enable.auto.commit=true; franz-go's commits the records of the polls before the last one, as the Java client's poll does); greedy: franz-go only, its GreedyAutoCommit, which commits everything polled, processed or not (the article's timeline); after: commit each message's offset once it is handled (the article's manual ack; with spring, the container commits as --ack-mode says); before: commit, then handle (spring: acknowledge() first, with --ack-mode manual_immediate, its default, or manual)."},
		{Name: "handoff", Kind: KindBool,
			Help: "Hand each record to one worker thread and keep polling, as applications that process on their own threads do; commits are still made by the poll loop (after: of the records the worker finished; auto: the client's own). spring: the listener hands the record over and returns at once, so the container commits as its --ack-mode says (record, batch: before the work is done); with manual ack modes the worker acknowledges once the record is handled."},
		{Name: "ack-mode", Kind: KindWord, Meta: "record|batch|time|count|manual|manual_immediate", Choices: []string{"record", "batch", "time", "count", "manual", "manual_immediate"},
			Help: "spring only, with --commit after: the container's ContainerProperties.AckMode; with manual and manual_immediate the listener calls acknowledge() once the record is handled (the second article's listener). Default: Spring's (batch)."},
		{Name: "auto-commit-interval", Kind: KindDuration, Meta: "DUR", Default: "5s",
			Help: "With --commit auto or greedy: how often offsets are committed (auto.commit.interval.ms)."},
		{Name: "batch", Kind: KindInt, Meta: "N", Default: "10",
			Help: "At most this many messages a poll (max.poll.records)."},
		{Name: "work", Kind: KindDuration, Meta: "DUR",
			Help: "Time each message's processing takes before its effect is applied, so that a crash can land mid-batch; default: none."},
		{Name: "dedup", Kind: KindWord, Meta: "none|table|transactional", Default: "none", Choices: []string{"none", "table", "transactional"},
			Help: "none: apply every delivery; table: the article's handler: skip an event id found in event_handled, else apply the effect, then insert the id in a second transaction; transactional: apply the effect and insert the id in one transaction."},
		{Name: "crash-at", Kind: KindInt, Meta: "N",
			Help: "Kill this member with SIGKILL while it handles the N-th message it receives, at --crash-point."},
		{Name: "crash-point", Kind: KindWord, Meta: "work|effect|handled", Default: "handled", Choices: []string{"work", "effect", "handled"},
			Help: "work: during the message's processing, before its effect (after its commit with --commit before); effect: right after the effect, before the event_handled insert and the commit; handled: after the effect and the insert, before the commit."},
	},
	Example: `consume t --group g --commit after --work 10ms --crash-at 2 &`,
}

// consumeSettings are the consume flags recorded with the evidence.
var consumeSettings = []string{"client", "batch", "work", "auto-commit-interval", "crash-at", "crash-point", "handoff", "ack-mode"}

func buildConsume(st *Step) Action {
	a := Consume{
		Topic: st.arg(0).Text, Group: st.flagStr("group"),
		Commit: st.flagStr("commit"), Dedup: st.flagStr("dedup"),
		Batch: st.flagInt("batch"), Work: st.flagDuration("work"),
		Client: st.flagStr("client"), Handoff: st.flagBool("handoff"), AckMode: st.flagStr("ack-mode"),
		Settings: map[string]string{},
	}
	timer := a.Commit == "auto" || a.Commit == "greedy"
	if timer {
		a.AutoCommit = st.flagDuration("auto-commit-interval")
	}
	if st.given("crash-at") {
		a.CrashAt, a.CrashPoint = st.flagInt("crash-at"), st.flagStr("crash-point")
	}
	for _, f := range st.Flags["allow-unknown"] {
		a.AllowUnknown = append(a.AllowUnknown, f.Text)
	}
	if len(a.AllowUnknown) > 0 {
		a.Settings["allow-unknown"] = strings.Join(a.AllowUnknown, ",")
	}
	for _, f := range consumeSettings {
		applies := st.given(f) || f == "batch" || f == "auto-commit-interval" && timer
		if v := st.flagStr(f); applies && v != "" {
			a.Settings[f] = v
		}
	}
	return a
}

// checkConsume: a consumer runs until it is crashed or stopped, so it runs
// in the background; its group names one consumer.
func checkConsume(c *checker, st *Step, topic string, tp Pos) {
	c.positive(st, "batch")
	c.positive(st, "crash-at")
	if !st.Background {
		c.errorf(st.Pos, "consume runs until crash consumer, stop consumer or the end of the run: end the step with &")
	}
	if mode := st.flagStr("commit"); st.given("auto-commit-interval") && mode != "auto" && mode != "greedy" {
		c.errorf(st.flagPos("auto-commit-interval"), "--auto-commit-interval needs --commit auto or greedy")
	}
	if st.given("crash-point") && !st.given("crash-at") {
		c.errorf(st.flagPos("crash-point"), "--crash-point needs --crash-at N: the message to crash at")
	}
	checkConsumeClient(c, st)
	c.declareGroup(st, topic)
}
