package runbook

import (
	"math"
	"time"
)

// produce: numbered messages through the run's client or the step's,
// recorded in the ledger; transactional with --transactional.

const OpProduce Op = "produce"

// Produce sends numbered messages: produce TOPIC --acks ...
type Produce struct {
	Topic string
	// Client is the step's own --client (java, librdkafka@2.15.1);
	// "": the client the run is for.
	Client string
	// Properties are the producer's properties by the client's own names:
	// the front matter's producer: map, the step's -X values and what its
	// shorthand flags (--acks, --idempotent, --retries, --max-in-flight,
	// --delivery-timeout) stand for; what they do not give is the
	// client's default. They are the step's one copy of its settings: a
	// driver gets them as they are, franz-go as
	// clientconfig.ParseFranzGoProducer reads them, and the ledger
	// records the acks and idempotence the client reports in force.
	Properties map[string]string
	From       int     // number of the first message
	Count      int     // messages to send; with --for, rate × duration
	Rate       float64 // messages a second; 0: every message at once
	For        time.Duration
	Size       int    // value size in bytes; 0: the id alone
	Keys       int    // distinct keys given in turn; 0: no key
	Key        string // the key of every message; "": none (or Keys)
	EventID    string // the event-id header of every message; "": none
	Via        Target // zero: any node
	// Transactional sends in transactions of TxnSize records, aborting
	// every AbortEvery-th on purpose (0: none).
	Transactional bool
	TxnSize       int
	AbortEvery    int
}

func (Produce) action() {}

var produceDirective = &Directive{
	Op:         OpProduce,
	build:      buildProduce,
	check:      checkProduceTxn,
	Name:       "produce",
	Summary:    "Send numbered messages m-NNN, all at once or at a fixed rate, and record the result of each in the ledger.",
	Background: true,
	Args:       []ArgSpec{{Name: "TOPIC", Kind: KindTopic}},
	Flags: []FlagSpec{
		{Name: "acks", Kind: KindAcks, Meta: "0|1|all",
			Help: "Producer acks: 0 (none), 1 (the leader), all (every in-sync replica); the property acks. Without it the client applies its own default and the evidence records the value in force: franz-go and the Java client (kafka-clients 4.x, the releases kafkabook's runs used): all, with idempotence unless enable.idempotence=false is given; librdkafka: all, without idempotence."},
		{Name: "client", Kind: KindClient, Meta: "CLIENT[@V]",
			Help: "Produce through this client instead of the run's (kafkabook run --client, front matter client:): franz-go, java[@kafka-clients version] (KafkaProducer), spring[@spring-kafka version] (Spring Kafka's KafkaTemplate on the kafka-clients it depends on) or librdkafka[@confluent-kafka version]. java defaults to the cluster's Kafka version."},
		{Name: "property", Short: "X", Kind: KindProperty, Meta: "NAME=VALUE", Many: true,
			Help: "A client property by the client's own name, as kcat's -X: -X linger.ms=5 -X compression.type=lz4; over the front matter's producer: map. check refuses a name the client does not have. The flags --acks, --idempotent, --retries, --max-in-flight and --delivery-timeout are shorthands for acks, enable.idempotence, retries, max.in.flight.requests.per.connection and delivery.timeout.ms; franz-go takes only these five and request.timeout.ms, linger.ms, batch.size, buffer.memory, compression.type, client.id and transaction.timeout.ms (kafkabook maps each onto its kgo option)."},
		{Name: "from", Kind: KindInt, Meta: "N", Default: "1",
			Help: "Number of the first message."},
		{Name: "count", Kind: KindInt, Meta: "N", Default: "10",
			Help: "Number of messages (with --for: as many as the rate sends in that time)."},
		{Name: "rate", Kind: KindRate, Meta: "N/s",
			Help: "Send on a fixed schedule, N messages a second; without it every message is meant to be sent at once. Latency counts from each message's scheduled time, so a producer held back is charged for the wait."},
		{Name: "for", Kind: KindDuration, Meta: "DUR",
			Help: "With --rate: keep sending for this long (rate × DUR messages) instead of --count."},
		{Name: "size", Kind: KindInt, Meta: "BYTES", Max: maxSize,
			Help: "Value size: the message id, a blank, then filler up to BYTES (the id alone when BYTES is smaller); at most 1,000,000."},
		{Name: "keys", Kind: KindInt, Meta: "N",
			Help: "Give messages N distinct keys in turn, so they spread over the partitions by the key hash; default: no key."},
		{Name: "key", Kind: KindText, Meta: "KEY",
			Help: "Give every message this key (the article's product id), so they all go to one partition in order."},
		{Name: "event-id", Kind: KindText, Meta: "ID",
			Help: "Give every message this event id (header event-id) instead of its message id: the same event sent again, for a consumer's dedup."},
		{Name: "idempotent", Kind: KindBool,
			Help: "Enable producer idempotence (enable.idempotence; needs --acks all)."},
		{Name: "retries", Kind: KindRetries, Meta: "N|max", Default: "max",
			Help: "How many times a message's batch is tried again before its messages fail (retries); max: until the delivery timeout (the clients' default). franz-go counts every try, a metadata refresh that finds the partition without a leader included (so a leaderless partition spends them at the pace of its metadata refreshes, where the Java client waits), and does not enforce the limit while it cannot tell whether a try was written: after REQUEST_TIMED_OUT or NOT_ENOUGH_REPLICAS_AFTER_APPEND, and with idempotence after a request that got no answer."},
		{Name: "max-in-flight", Kind: KindInt, Meta: "N",
			Help: "Produce requests in flight per broker (max.in.flight.requests.per.connection); default: franz-go's, 1 without idempotence and up to 5 with it (one until a broker's first produce response; franz-go takes no other number with idempotence)."},
		{Name: "delivery-timeout", Kind: KindDuration, Meta: "DUR",
			Help: "How long each message may wait for its ack, retries included (delivery.timeout.ms); without it each client applies its own default: franz-go none (a record is tried until it is acknowledged or its retries run out), the Java client 120s, librdkafka 300s."},
		{Name: "transactional", Kind: KindBool,
			Help: "Send in transactions, with a transactional.id made of the topic, the step's line and the run; every transaction's outcome (committed, aborted, unknown) is recorded with its records, producer id and epoch. Needs --acks all (a transactional producer is idempotent), and a client other than spring (its KafkaTemplate sends outside transactions). Only records of committed transactions count as acknowledged; those of aborted ones are failed in the ledger."},
		{Name: "txn-size", Kind: KindInt, Meta: "N", Default: "10",
			Help: "With --transactional: records per transaction (the last may hold fewer)."},
		{Name: "abort-every", Kind: KindInt, Meta: "K",
			Help: "With --transactional: abort every K-th transaction on purpose (the K-th, 2K-th, ...); default: commit them all."},
		viaFlag,
		{Name: "timeout", Kind: KindDuration, Meta: "DUR", Deprecated: "delivery-timeout",
			Help: "The old name of --delivery-timeout."},
	},
	Example: `produce t --acks all --count 3 --rate 10/s --via k1 &`,
}

func buildProduce(st *Step) Action {
	a := Produce{
		Topic:   st.arg(0).Text,
		Client:  st.flagStr("client"),
		From:    st.flagInt("from"),
		Count:   st.flagInt("count"),
		For:     st.flagDuration("for"),
		Size:    st.flagInt("size"),
		Keys:    st.flagInt("keys"),
		Key:     st.flagStr("key"),
		EventID: st.flagStr("event-id"),
		Via:     st.flagTarget("via"),
	}
	if st.flagBool("transactional") {
		a.Transactional, a.TxnSize, a.AbortEvery = true, st.flagInt("txn-size"), st.flagInt("abort-every")
	}
	a.Rate, _ = parseRate(st.flagStr("rate"))
	if a.Rate > 0 && a.For > 0 {
		a.Count = forCount(a.Rate, a.For)
	}
	return a
}

// forCount is how many messages --rate R --for D sends.
func forCount(rate float64, d time.Duration) int {
	return int(math.Round(rate * d.Seconds()))
}

func checkProduce(c *checker, st *Step, topic string, tp Pos) {
	c.positive(st, "count")
	c.positive(st, "from")
	c.positive(st, "keys")
	if st.given("for") && !st.given("rate") {
		c.errorf(st.flagPos("for"), "--for needs --rate: it says how long a scheduled producer keeps sending")
	}
	if st.given("for") && st.given("count") {
		c.errorf(st.flagPos("count"), "give --count or --for, not both")
	}
	if r, msg := parseRate(st.flagStr("rate")); msg == "" && st.given("for") {
		switch n := forCount(r, st.flagDuration("for")); {
		case n < 1:
			c.errorf(st.flagPos("for"), "--rate %s for %s sends no message", st.flagStr("rate"), st.flagStr("for"))
		case n > maxInt:
			c.errorf(st.flagPos("for"), "--rate %s for %s sends %d messages: at most %s", st.flagStr("rate"), st.flagStr("for"), n, limitText(maxInt))
		}
	}
	checkClientProperties(c, st)
	if st.given("key") && st.given("keys") {
		c.errorf(st.flagPos("key"), "give --key (one key for every message) or --keys (N keys in turn), not both")
	}
	for _, f := range []string{"key", "event-id"} {
		if st.given(f) && st.flagStr(f) == "" {
			c.errorf(st.flagPos(f), "--%s is empty: give a word, or leave the flag out", f)
		}
	}
	if n, ok := st.givenInt("max-in-flight"); ok && n == 0 {
		c.errorf(st.flagPos("max-in-flight"), "--max-in-flight 0 would never send: give 1 or more, or leave it out for the client's default")
	}
	if topic != "" {
		c.produced[topic] = true
	}
	if st.Background {
		c.background = true
	}
}

// springTransactions is why a transactional produce step does not run
// through spring; the spring driver refuses a transactional spec at start
// for the same reason (internal/driver/spring/SpringProducer.java).
const springTransactions = "--transactional runs through spring: kafkabook's spring producer sends with KafkaTemplate.send outside transactions (Spring runs them through executeInTransaction on producers whose transactional.id it makes from a prefix, which kafkabook's transaction records do not follow); use --client java, librdkafka or franz-go"

// checkProduceTxn checks a produce step, and what its transaction flags
// need: --txn-size and --abort-every mean nothing without --transactional,
// and a transactional producer runs through a client that kafkabook
// drives in transactions (not spring). What a transactional producer
// needs of its properties (acks=all, and franz-go's fixed number of
// requests in flight) checkProducer checks with the others.
func checkProduceTxn(c *checker, st *Step, topic string, tp Pos) {
	checkProduce(c, st, topic, tp)
	if !st.flagBool("transactional") {
		for _, f := range []string{"txn-size", "abort-every"} {
			if st.given(f) {
				c.errorf(st.flagPos(f), "--%s needs --transactional: it shapes the producer's transactions", f)
			}
		}
		return
	}
	c.positive(st, "txn-size")
	c.positive(st, "abort-every")
	for _, cl := range c.stepClients(st) {
		if name, _, _ := ParseClient(cl); name == Spring {
			c.errorf(st.flagPos("transactional"), "%s", springTransactions)
			break
		}
	}
}
