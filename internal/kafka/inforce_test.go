package kafka

import (
	"slices"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestProducerInfo: the configuration read back from a franz-go producer
// is the one the client holds: what the spec set (acks 1, three retries,
// a 30 s delivery timeout), what kafkabook set (idempotence off for acks
// 1, no linger, the request timeout from the delivery timeout, its
// metadata ages, named as kafkabook's) and franz-go's defaults for the
// rest (batch.size, as a client built with nothing set has it). No
// cluster is needed: a client connects only when it is used.
func TestProducerInfo(t *testing.T) {
	three := 3
	spec := ProduceSpec{Topic: "t", Acks: results.AcksLeader, Timeout: 30 * time.Second, Retries: &three}
	opts, err := clientOpts(Brokers{Seeds: []string{"127.0.0.1:1"}}, spec)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append(opts, kgo.DisableIdempotentWrite())...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	bare, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	info := producerInfo(cl, spec)
	want := map[string]string{
		"acks": "1", "enable.idempotence": "false", "retries": "3", "delivery.timeout.ms": "30000",
		"request.timeout.ms": "10000", "linger.ms": "0", "kgo.MetadataMinAge": "100", "kgo.MetadataMaxAge": "2000", "kgo.RetryBackoffFn": "100,100,100",
	}
	if v, ok := optText(bare.OptValue(kgo.ProducerBatchMaxBytes)); ok {
		want["batch.size"] = v
	}
	for k, v := range want {
		if info.Config[k] != v {
			t.Errorf("%s = %q in the evidence, want %q", k, info.Config[k], v)
		}
	}
	if _, ok := info.Config["transaction.timeout.ms"]; ok {
		t.Errorf("transaction.timeout.ms recorded for a producer without transactions")
	}
	for _, name := range []string{"kgo.MetadataMinAge", "linger.ms", "request.timeout.ms"} {
		if !slices.Contains(info.SetByKafkabook, name) {
			t.Errorf("%s is not named as set by kafkabook: %v", name, info.SetByKafkabook)
		}
	}
	// Every option that is not franz-go's default is the spec's or named
	// as kafkabook's: ownProducerOptions, kept by hand, misses none.
	bareInfo := producerInfo(bare, ProduceSpec{})
	fromSpec := map[string]bool{"acks": true, "enable.idempotence": true, "retries": true, "delivery.timeout.ms": true}
	for k, v := range info.Config {
		if v != bareInfo.Config[k] && !fromSpec[k] && !slices.Contains(info.SetByKafkabook, k) {
			t.Errorf("%s = %s, franz-go's default %s: neither the spec's nor named as kafkabook's", k, v, bareInfo.Config[k])
		}
	}
	if info.Client != "franz-go" || info.Library != "franz-go" || info.Runtime == "" {
		t.Errorf("client %+v: want franz-go with its runtime", info)
	}
}
