package kafka

import (
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestProducerInfo: the configuration read back from a franz-go producer
// is the one the client holds: what the spec set (acks 1, three retries,
// a 30 s delivery timeout), franz-go's defaults for the rest (linger,
// metadata ages, the request timeout: as a client built with nothing set
// has them), and the one option kafkabook had to set, named as its own:
// idempotence off, which franz-go cannot have with acks 1 and the runbook
// did not give. No cluster is needed: a client connects only when used.
func TestProducerInfo(t *testing.T) {
	spec := ProduceSpec{Topic: "t", Properties: map[string]string{"acks": "1", "delivery.timeout.ms": "30000", "retries": "3"}}
	info, err := ProducerInForce(Brokers{Seeds: []string{"127.0.0.1:1"}}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	want := map[string]string{"acks": "1", "enable.idempotence": "false", "retries": "3", "delivery.timeout.ms": "30000"}
	for _, o := range []struct {
		name string
		opt  any
	}{{"request.timeout.ms", kgo.ProduceRequestTimeout}, {"linger.ms", kgo.ProducerLinger}, {"batch.size", kgo.ProducerBatchMaxBytes},
		{"kgo.MetadataMinAge", kgo.MetadataMinAge}, {"kgo.MetadataMaxAge", kgo.MetadataMaxAge}, {"kgo.DialTimeout", kgo.DialTimeout}} {
		v, ok := optText(bare.OptValue(o.opt))
		if !ok {
			t.Fatalf("%s: no value", o.name)
		}
		want[o.name] = v
	}
	for k, v := range want {
		if info.Config[k] != v {
			t.Errorf("%s = %q in the evidence, want %q", k, info.Config[k], v)
		}
	}
	if _, ok := info.Config["transaction.timeout.ms"]; ok {
		t.Errorf("transaction.timeout.ms recorded for a producer without transactions")
	}
	if _, ok := info.Config["kgo.RetryBackoffFn"]; ok {
		t.Errorf("kgo.RetryBackoffFn recorded: franz-go's own backoff is its default, not a setting")
	}
	if !reflect.DeepEqual(info.SetByKafkabook, []string{"enable.idempotence"}) {
		t.Errorf("set by kafkabook %v, want [enable.idempotence] (off for acks 1, not given)", info.SetByKafkabook)
	}
	if info.Client != "franz-go" || info.Library != "franz-go" || info.Runtime == "" {
		t.Errorf("client %+v: want franz-go with its runtime", info)
	}

	// A transactional producer: idempotent as franz-go's default, its
	// transactional id kafkabook's.
	spec = ProduceSpec{Topic: "t", Properties: map[string]string{"acks": "all"}}
	info, err = ProducerInForce(Brokers{Seeds: []string{"127.0.0.1:1"}}, spec, &TxnSpec{ID: "kafkabook-t-12-r1", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if info.Config["transactional.id"] != "kafkabook-t-12-r1" || info.Config["enable.idempotence"] != "true" || info.Config["transaction.timeout.ms"] == "" {
		t.Errorf("transactional producer's config %v", info.Config)
	}
	if !reflect.DeepEqual(info.SetByKafkabook, []string{"transactional.id"}) {
		t.Errorf("set by kafkabook %v, want [transactional.id]", info.SetByKafkabook)
	}
}

// TestMemberInfo: a group member's configuration read back is franz-go's
// defaults but for what its step decides (the group, an auto-commit every
// second) and the group timing kafkabook gives every member, named as
// kafkabook's; a transform member reads read_committed, as its step
// decides, and its transaction timeout is kafkabook's.
func TestMemberInfo(t *testing.T) {
	b := Brokers{Seeds: []string{"127.0.0.1:1"}}
	info, err := MemberInForce(b, MemberSpec{Topic: "t", Group: "g", AutoCommit: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := kgo.NewClient(kgo.ConsumerGroup("g"))
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	want := map[string]string{"group.id": "g", "enable.auto.commit": "true", "auto.commit.interval.ms": "1000",
		"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000", "isolation.level": "read_uncommitted"}
	for name, opt := range map[string]any{"fetch.max.wait.ms": kgo.FetchMaxWait, "max.poll.interval.ms": kgo.RebalanceTimeout,
		"kgo.MetadataMinAge": kgo.MetadataMinAge, "kgo.RequestRetries": kgo.RequestRetries} {
		want[name], _ = optText(bare.OptValue(opt))
	}
	for k, v := range want {
		if info.Config[k] != v {
			t.Errorf("member: %s = %q in the evidence, want %q", k, info.Config[k], v)
		}
	}
	if !reflect.DeepEqual(info.SetByKafkabook, []string{"heartbeat.interval.ms", "session.timeout.ms"}) {
		t.Errorf("member: set by kafkabook %v, want the group timing", info.SetByKafkabook)
	}

	info, err = TransformInForce(b, TransformSpec{In: "in", Out: "out", Group: "g", TxnID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if info.Config["isolation.level"] != "read_committed" || info.Config["enable.auto.commit"] != "false" || info.Config["acks"] != "all" || info.Config["transactional.id"] != "x" {
		t.Errorf("transform: config %v", info.Config)
	}
	if !reflect.DeepEqual(info.SetByKafkabook, []string{"heartbeat.interval.ms", "session.timeout.ms", "transaction.timeout.ms"}) {
		t.Errorf("transform: set by kafkabook %v, want the group timing and the transaction timeout", info.SetByKafkabook)
	}
}

// TestFranzGoProperties: the properties check lets through for franz-go
// (clientconfig.FranzGoProperties) are exactly those the producer applies,
// and each set one is in force, named as the runbook's: a linger, a
// batch size, a codec, a client id.
func TestFranzGoProperties(t *testing.T) {
	applied := append(slices.Collect(maps.Keys(producerProperties)), clientconfig.TypedProperties...)
	slices.Sort(applied)
	if checked := clientconfig.FranzGoProperties(); !slices.Equal(applied, checked) {
		t.Errorf("franz-go applies %v, check lets through %v", applied, checked)
	}
	// The reference's table (clientconfig) says the same, and names the
	// transactional.id --transactional sets.
	documented := slices.Sorted(maps.Keys(clientconfig.FranzGo(clientconfig.Producer)))
	if want := slices.Sorted(slices.Values(append(slices.Clone(applied), "transactional.id"))); !slices.Equal(documented, want) {
		t.Errorf("the reference documents %v for franz-go, want %v", documented, want)
	}
	props := map[string]string{"linger.ms": "5", "batch.size": "16384", "compression.type": "lz4", "client.id": "app-1"}
	spec := ProduceSpec{Topic: "t", Properties: props}
	info, err := ProducerInForce(Brokers{Seeds: []string{"127.0.0.1:1"}}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"linger.ms": "5", "batch.size": "16384", "compression.type": "lz4", "client.id": "app-1"} {
		if info.Config[k] != v {
			t.Errorf("%s = %q in force, want %q", k, info.Config[k], v)
		}
	}
	if len(info.SetByKafkabook) != 0 {
		t.Errorf("set by kafkabook %v, want none: the runbook gave them", info.SetByKafkabook)
	}
	if d := franzGoDefaults()["compression.type"]; d != "snappy,none" {
		t.Errorf("franz-go's default compression.type read back as %q, want snappy,none (config.go of v1.22.3)", d)
	}
}
