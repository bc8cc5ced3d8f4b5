package kafka

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A franz-go producer's configuration in force, read back from the client
// (kgo.Client.OptValue), so that a franz-go run's evidence says what its
// client ran with, defaults included, as the drivers' startup_complete
// does for the Java client and librdkafka. Options are named by the Java
// client's property where kafkabook maps one onto franz-go (clientconfig's
// franz-go table), else by the kgo option.

// producerOptions are the options read back, with the name the evidence
// gives each (optText prints the value; the retry backoff, a function, is
// printed by its first waits).
var producerOptions = []struct {
	name string
	opt  any
}{
	{"acks", kgo.RequiredAcks},
	{"enable.idempotence", kgo.DisableIdempotentWrite},
	{"retries", kgo.RecordRetries},
	{"max.in.flight.requests.per.connection", kgo.MaxProduceRequestsInflightPerBroker},
	{"delivery.timeout.ms", kgo.RecordDeliveryTimeout},
	{"request.timeout.ms", kgo.ProduceRequestTimeout},
	{"linger.ms", kgo.ProducerLinger},
	{"batch.size", kgo.ProducerBatchMaxBytes},
	{"buffer.memory", kgo.MaxBufferedBytes},
	{"transaction.timeout.ms", kgo.TransactionTimeout},
	{"kgo.MaxBufferedRecords", kgo.MaxBufferedRecords},
	{"kgo.MetadataMinAge", kgo.MetadataMinAge},
	{"kgo.MetadataMaxAge", kgo.MetadataMaxAge},
	{"kgo.RequestRetries", kgo.RequestRetries},
	{"kgo.RetryTimeout", kgo.RetryTimeout},
	{"kgo.RequestTimeoutOverhead", kgo.RequestTimeoutOverhead},
	{"kgo.DialTimeout", kgo.DialTimeout},
	{"kgo.UnknownTopicRetries", kgo.UnknownTopicRetries},
}

// producerInfo is the client entry of the evidence for a franz-go
// producer: its version and configuration in force, and which of its
// options kafkabook set: every option off franz-go's default that the
// runbook did not give (spec.Given), found by comparing the client with
// one built with nothing set, so that no hand-kept list can miss one.
func producerInfo(cl *kgo.Client, spec ProduceSpec) results.ClientInfo {
	config := configInForce(cl)
	var ours []string
	for name, v := range config {
		if d, ok := franzGoDefaults()[name]; (!ok || d != v) && !slices.Contains(spec.Given, name) {
			ours = append(ours, name)
		}
	}
	slices.Sort(ours)
	version := FranzGoVersion()
	if version == "" {
		version = "unknown"
	}
	return results.ClientInfo{Client: "franz-go", Library: "franz-go", Version: version, Runtime: runtime.Version(),
		Config: config, SetByKafkabook: ours}
}

// ProducerInForce is the client entry of a franz-go producer for spec
// (transactional with txn), read back from a client built as Produce and
// ProduceTransactional build theirs, for a producer that reports it before
// it starts (franz-go's driver). The client connects to nothing.
func ProducerInForce(b Brokers, spec ProduceSpec, txn *TxnSpec) (results.ClientInfo, error) {
	if txn != nil {
		spec.Idempotent = true // as ProduceTransactional has it
	}
	opts, err := clientOpts(b, spec)
	if err != nil {
		return results.ClientInfo{}, err
	}
	if txn != nil {
		opts = append(opts, kgo.TransactionalID(txn.ID))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return results.ClientInfo{}, err
	}
	defer cl.Close()
	return producerInfo(cl, spec), nil
}

// configInForce reads a producer's options back from the client.
func configInForce(cl *kgo.Client) map[string]string {
	config := make(map[string]string, len(producerOptions))
	for _, o := range producerOptions {
		if v, ok := optText(cl.OptValue(o.opt)); ok {
			config[o.name] = v
		}
	}
	// The retry backoff is a function: its first three waits say it
	// (franz-go's own are jittered, so they are named, not compared).
	if fn, ok := cl.OptValue(kgo.RetryBackoffFn).(func(int) time.Duration); ok && fn != nil && !defaultBackoff(cl) {
		config["kgo.RetryBackoffFn"] = fmt.Sprintf("%d,%d,%d", fn(1).Milliseconds(), fn(2).Milliseconds(), fn(3).Milliseconds())
	}
	// franz-go keeps "disable", the evidence says what is enabled.
	if v, ok := cl.OptValue(kgo.DisableIdempotentWrite).(bool); ok {
		config["enable.idempotence"] = strconv.FormatBool(!v)
	}
	if id, _ := cl.OptValue(kgo.TransactionalID).(string); id != "" {
		config["transactional.id"] = id
	} else {
		delete(config, "transaction.timeout.ms") // not a transactional producer: it means nothing
	}
	return config
}

// defaultBackoff says whether cl backs off as franz-go does by default:
// its waits grow and are jittered, so two calls for the same try differ.
func defaultBackoff(cl *kgo.Client) bool {
	fn, _ := cl.OptValue(kgo.RetryBackoffFn).(func(int) time.Duration)
	return fn != nil && fn(5) != fn(5)
}

// franzGoDefaults is the configuration of a producer built with nothing
// set, read as configInForce reads any other.
var franzGoDefaults = sync.OnceValue(func() map[string]string {
	cl, err := kgo.NewClient()
	if err != nil {
		return map[string]string{}
	}
	defer cl.Close()
	d := configInForce(cl)
	// A producer without a transactional id has no transaction timeout
	// to speak of; a transactional one compares with the default.
	d["transaction.timeout.ms"], _ = optText(cl.OptValue(kgo.TransactionTimeout))
	return d
})

// optText prints an option's value the way the Java client's properties
// read: durations in milliseconds, acks as 0, 1 or all (-1 in the Java
// client's own dump), an unbounded count as max.
func optText(v any) (string, bool) {
	switch x := v.(type) {
	case kgo.Acks:
		switch x {
		case kgo.NoAck():
			return "0", true
		case kgo.LeaderAck():
			return "1", true
		case kgo.AllISRAcks():
			return "all", true
		}
		return fmt.Sprint(x), true
	case time.Duration:
		return strconv.FormatInt(x.Milliseconds(), 10), true
	case int64:
		if x == math.MaxInt64 {
			return "max", true
		}
		return strconv.FormatInt(x, 10), true
	case int:
		if x == math.MaxInt {
			return "max", true
		}
		return strconv.Itoa(x), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}
