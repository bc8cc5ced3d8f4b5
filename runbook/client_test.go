package runbook

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/results"
)

// clientDoc is a runbook with the given front matter lines and produce step.
func clientDoc(front, step string) []byte {
	return []byte("---\n" + front + "---\n\n```kafka\ntopic create t\n" + step + "\n```\n")
}

// fakeCatalogue knows linger.ms, max.block.ms and compression.type for producers and
// value.deserializer for consumers, and records what it was asked.
type fakeCatalogue struct{ asked []string }

func (f *fakeCatalogue) check(client, version, role, name, value string) error {
	f.asked = append(f.asked, fmt.Sprintf("%s@%s %s %s=%s", client, version, role, name, value))
	known := map[string]bool{"producer linger.ms": true, "producer max.block.ms": true, "producer compression.type": true, "producer acks": true,
		"consumer value.deserializer": true}
	if client == FranzGo && name == "max.block.ms" {
		return fmt.Errorf("franz-go has no counterpart for %s: use --client java", name)
	}
	if !known[role+" "+name] {
		return fmt.Errorf("%s has no %s property %q", client, role, name)
	}
	return nil
}

// TestClientProperties checks -X, --client, the front matter's client:,
// producer: and consumer:, and what becomes of the shorthand flags.
func TestClientProperties(t *testing.T) {
	var cat fakeCatalogue
	src := clientDoc("client: [java, librdkafka@2.15.1]\nproducer:\n  linger.ms: 5\nconsumer:\n  value.deserializer: x\n",
		"produce t -X compression.type=lz4 --idempotent --count 3")
	d, err := LoadFor("c.md", src, Overrides{}, Capabilities{ClientProperty: cat.check})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"java", "librdkafka@2.15.1"}; !reflect.DeepEqual(d.Meta.Client, want) {
		t.Errorf("Meta.Client = %v, want %v", d.Meta.Client, want)
	}
	p := d.Blocks[0].Steps[1].Action.(Produce)
	wantProps := map[string]string{"linger.ms": "5", "compression.type": "lz4", "enable.idempotence": "true"}
	if !reflect.DeepEqual(p.Properties, wantProps) {
		t.Errorf("Produce = %+v, want properties %v", p, wantProps)
	}
	// java without a version is checked at the cluster's release.
	for _, want := range []string{"java@4.3.1 producer linger.ms=5", "librdkafka@2.15.1 consumer value.deserializer=x",
		"java@4.3.1 producer compression.type=lz4"} {
		if !strings.Contains(strings.Join(cat.asked, "\n"), want) {
			t.Errorf("catalogue not asked %q; asked:\n%s", want, strings.Join(cat.asked, "\n"))
		}
	}
}

// TestClientPropertyErrors checks what check refuses, each at its
// file:line:col.
func TestClientPropertyErrors(t *testing.T) {
	var cat fakeCatalogue
	caps := Capabilities{ClientProperty: cat.check}
	for _, tc := range []struct {
		front, step string
		ov          Overrides
		want        string
	}{
		{"", "produce t --count 3", Overrides{}, ""},
		{"client: java\n", "produce t -X linger.ms=5 -X lnger.ms=5", Overrides{}, `c.md:7:29: -X lnger.ms: java has no producer property "lnger.ms"`},
		{"", "produce t --acks 1 -X max.block.ms=5", Overrides{}, "c.md:6:23: -X max.block.ms: franz-go has no counterpart for max.block.ms: use --client java"},
		// franz-go takes the properties kafkabook maps onto its options.
		{"", "produce t --acks 1 -X linger.ms=5 -X compression.type=lz4", Overrides{}, ""},
		{"", "produce t --acks 1 -X compression.type=brotli", Overrides{}, `c.md:6:23: -X compression.type: bad value "brotli" for compression.type: want none, gzip, snappy, lz4 or zstd`},
		// A name franz-go does not map is asked of the catalogue, which
		// tells a typo from a property of the other clients.
		{"", "produce t --acks 1 -X lnger.ms=5", Overrides{}, `c.md:6:23: -X lnger.ms: franz-go has no producer property "lnger.ms"`},
		{"", "produce t --acks 1 --client java -X linger.ms=5", Overrides{}, ""},
		{"", "produce t --acks 1", Overrides{Client: []string{"java", "kafka-go"}}, `--client: client "kafka-go": want one of franz-go, java, librdkafka`},
		{"client: [java, franz-go@1.0.0]\n", "produce t --acks 1", Overrides{}, `c.md:2:16: client: client "franz-go@1.0.0": franz-go is built into kafkabook`},
		{"consumer:\n  value-serializer: x\n", "produce t --acks 1", Overrides{}, `c.md:3:3: consumer: franz-go has no consumer property "value-serializer"`},
		{"", "produce t --acks 1 -X acks=all", Overrides{}, "c.md:6:23: -X acks and --acks set the same property: give one"},
		{"", "produce t --client java -X acks=2", Overrides{}, `c.md:6:28: -X acks: bad value "2" for acks: want 0, 1, all or -1`},
		{"client: java\n", "produce t --acks all --transactional", Overrides{}, ""},
		{"client: [java, librdkafka]\n", "produce t --acks all --transactional", Overrides{}, ""},
		{"client: java\nproducer: {max.block.ms: 5}\n", "produce t --acks 1 --client franz-go", Overrides{}, "c.md:8:29: producer: max.block.ms (from the front matter): franz-go has no counterpart for max.block.ms"},
		{"", "produce t --client jav", Overrides{}, `c.md:6:20: --client: client "jav": want one of franz-go, java, librdkafka, spring, optionally with @version (java@4.3.1) (did you mean "java"?)`},
		// Consumers: each client's own settings, the properties by its names.
		{"", "consume t --group g --commit greedy --client java &", Overrides{}, "c.md:6:30: --commit greedy runs through java: greedy is franz-go's GreedyAutoCommit; java/spring/librdkafka: use --commit auto"},
		{"client: spring\n", "consume t --group g --commit greedy &", Overrides{}, "greedy is franz-go's GreedyAutoCommit; java/spring/librdkafka: use --commit auto"},
		{"", "consume t --group g --commit after --ack-mode manual &", Overrides{}, "c.md:6:47: --ack-mode runs through franz-go: it is Spring Kafka's ContainerProperties.AckMode; give --client spring"},
		{"", "consume t --group g --commit after --client spring --ack-mode manual &", Overrides{}, ""},
		{"", "consume t --group g --commit auto --client spring --ack-mode manual &", Overrides{}, "--ack-mode with --commit auto"},
		{"", "consume t --group g --commit before --client spring &", Overrides{}, ""},
		{"", "consume t --group g --commit before --client spring --ack-mode manual &", Overrides{}, ""},
		{"", "consume t --group g --commit before --client spring --ack-mode record &", Overrides{}, "--commit before with --ack-mode record: the container commits after the listener returns"},
		{"", "consume t --group g --commit after --client java -X value-serializer=x &", Overrides{}, `c.md:6:53: -X value-serializer: java has no consumer property "value-serializer"`},
		{"", "consume t --group g --commit after --client java -X value.deserializer=x --handoff &", Overrides{}, ""},
		{"consumer: {value-serializer: x}\n", "consume t --group g --commit after --client librdkafka &", Overrides{}, `c.md:7:45: consumer: value-serializer (from the front matter): librdkafka has no consumer property "value-serializer"`},
		{"", "consume t --group g --commit after --handoff &", Overrides{}, ""},
		{"", "consume t --group g --commit auto --client spring --handoff &", Overrides{}, ""},
		{"", "consume t --group g --commit after -X value.deserializer=x &", Overrides{}, "c.md:6:39: consumer properties run through franz-go: kafkabook's franz-go member takes none"},
		{"", "consume t --group g --commit after --client java -X group.id=x &", Overrides{}, "c.md:6:53: -X group.id: java has no consumer property \"group.id\""}, // the test's catalogue; the real one refuses it (check.txtar)
		// spring produces through Spring Kafka's KafkaTemplate, with
		// kafka-clients' properties (spring-kafka 4.1.2's 4.2.2) and its
		// rule between idempotence and acks; not in transactions.
		{"", "produce t --client spring", Overrides{}, ""},
		{"client: spring\n", "produce t --acks all --count 3 --rate 10/s &", Overrides{}, ""},
		{"client: spring\nproducer: {linger.ms: 5}\n", "produce t -X max.block.ms=100", Overrides{}, ""},
		{"", "produce t --client spring -X lnger.ms=5", Overrides{}, `c.md:6:30: -X lnger.ms: spring passes it to kafka-clients: java has no producer property "lnger.ms"`},
		{"client: spring\n", "produce t -X value-serializer=x", Overrides{}, `c.md:7:14: -X value-serializer: spring passes it to kafka-clients: java has no producer property "value-serializer"`},
		{"client: spring\nproducer: {lnger.ms: 5}\n", "produce t", Overrides{}, `c.md:3:12: producer: spring passes it to kafka-clients: java has no producer property "lnger.ms"`},
		{"", "produce t --client spring --acks 1 --idempotent", Overrides{}, "c.md:6:36: --idempotent: idempotence needs acks=all"},
		{"", "produce t --client spring --acks all --transactional", Overrides{}, "c.md:6:38: --transactional runs through spring: kafkabook's spring producer sends with KafkaTemplate.send outside transactions"},
		{"client: [java, spring]\n", "produce t --acks all --transactional", Overrides{}, "--transactional runs through spring"},
	} {
		_, err := LoadFor("c.md", clientDoc(tc.front, tc.step), tc.ov, caps)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q %q: %v", tc.front, tc.step, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q %q: got %v\nwant %s", tc.front, tc.step, err, tc.want)
		}
	}
}

// TestConsumeClient checks what a consume step through a driver carries:
// its client, the front matter's consumer: map under its -X values and
// the ack mode.
func TestConsumeClient(t *testing.T) {
	var cat fakeCatalogue
	src := clientDoc("consumer:\n  value.deserializer: a\n", "consume t --group g --commit after --client spring --ack-mode manual -X value.deserializer=b &")
	d, err := LoadFor("c.md", src, Overrides{}, Capabilities{ClientProperty: cat.check})
	if err != nil {
		t.Fatal(err)
	}
	c := d.Blocks[0].Steps[1].Action.(Consume)
	if c.Client != Spring || c.AckMode != "manual" || !reflect.DeepEqual(c.Properties, map[string]string{"value.deserializer": "b"}) {
		t.Errorf("Consume = %+v", c)
	}
	// spring's properties are the Java client's.
	if got := strings.Join(cat.asked, "\n"); !strings.Contains(got, "java@4.2.2 consumer value.deserializer=b") {
		t.Errorf("catalogue asked:\n%s", got)
	}
}

// TestSpringProducer checks what a produce step through spring carries
// (its client and properties as given, nothing else) and that its
// properties are asked of the catalogue of the kafka-clients release
// spring-kafka depends on.
func TestSpringProducer(t *testing.T) {
	var cat fakeCatalogue
	src := clientDoc("producer:\n  linger.ms: 5\n", "produce t --client spring --acks all -X max.block.ms=100 --count 3")
	d, err := LoadFor("c.md", src, Overrides{}, Capabilities{ClientProperty: cat.check})
	if err != nil {
		t.Fatal(err)
	}
	p := d.Blocks[0].Steps[1].Action.(Produce)
	want := map[string]string{"linger.ms": "5", "acks": "all", "max.block.ms": "100"}
	if p.Client != Spring || !reflect.DeepEqual(p.Properties, want) {
		t.Errorf("Produce = %+v, want client spring and properties %v", p, want)
	}
	got := strings.Join(cat.asked, "\n")
	for _, w := range []string{"java@4.2.2 producer linger.ms=5", "java@4.2.2 producer max.block.ms=100"} {
		if !strings.Contains(got, w) {
			t.Errorf("catalogue not asked %q; asked:\n%s", w, got)
		}
	}
}

// TestClientAcksDefault checks that java and librdkafka run without
// --acks, and that the acks a step gives by property reaches franz-go.
func TestClientAcksDefault(t *testing.T) {
	d, err := Load("c.md", clientDoc("client: [java, librdkafka]\n", "produce t --count 3"), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p := d.Blocks[0].Steps[1].Action.(Produce); len(p.Properties) != 0 {
		t.Errorf("Properties = %v, want none: the clients' defaults apply", p.Properties)
	}
	// Without a catalogue, franz-go still refuses what it would ignore.
	if _, err := Load("c.md", clientDoc("", "produce t --acks 1 -X max.block.ms=5"), Overrides{}); err == nil || !strings.Contains(err.Error(), "kafkabook does not map max.block.ms onto franz-go") {
		t.Errorf("franz-go took -X max.block.ms: %v", err)
	}
	// And what it cannot run: acks -1 from the front matter leaves
	// idempotence on, where franz-go keeps up to 5 requests in flight. The
	// error points at the -X that asks for one.
	_, err = Load("c.md", clientDoc("producer: {acks: -1}\n", "produce t -X max.in.flight.requests.per.connection=1"), Overrides{})
	if err == nil || !strings.Contains(err.Error(), "c.md:7:14: -X max.in.flight.requests.per.connection: 1 with idempotence: franz-go keeps up to 5") {
		t.Errorf("franz-go took one request in flight with idempotence: %v", err)
	}
	d, err = Load("c.md", clientDoc("producer: {acks: -1}\n", "produce t -X max.in.flight.requests.per.connection=1 -X enable.idempotence=false"), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	p := d.Blocks[0].Steps[1].Action.(Produce)
	if c, errs := clientconfig.ParseFranzGoProducer(p.Properties, false); len(errs) > 0 || c.Acks != results.AcksAll || c.MaxInFlight != 1 || c.Idempotent {
		t.Errorf("franz-go's configuration = %+v %v, want acks all, max in flight 1, no idempotence", c, errs)
	}
}

// TestFranzGoRequestTimeout checks that request.timeout.ms reaches
// franz-go's producer, by -X or the front matter's producer: map.
func TestFranzGoRequestTimeout(t *testing.T) {
	for _, tc := range []struct{ front, step string }{
		{"", "produce t --acks all -X request.timeout.ms=7000"},
		{"producer: {request.timeout.ms: 7000}\n", "produce t --acks all"},
	} {
		d, err := Load("c.md", clientDoc(tc.front, tc.step), Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		p := d.Blocks[0].Steps[1].Action.(Produce)
		if c, _ := clientconfig.ParseFranzGoProducer(p.Properties, false); c.RequestTimeout != 7*time.Second {
			t.Errorf("%q: RequestTimeout = %v, want 7s", tc.step, c.RequestTimeout)
		}
	}
}
