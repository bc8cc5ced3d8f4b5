package kafka

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A franz-go client's configuration in force, read back from the client
// (kgo.Client.OptValue), so that a franz-go run's evidence says what its
// client ran with, defaults included, as the drivers' startup_complete
// does for the Java client and librdkafka. Options are named by the Java
// client's property where kafkabook maps one onto franz-go (clientconfig's
// franz-go table), else by the kgo option.

// option is an option read back, with the name the evidence gives it
// (optText prints the value; the retry backoff, a function, is printed by
// its first waits).
type option struct {
	name string
	opt  any
}

// everyClient are the options of every role: how it finds brokers and
// leaders and how it retries.
var everyClient = []option{
	{"client.id", kgo.ClientID},
	{"kgo.MetadataMinAge", kgo.MetadataMinAge},
	{"kgo.MetadataMaxAge", kgo.MetadataMaxAge},
	{"kgo.RequestRetries", kgo.RequestRetries},
	{"kgo.RetryTimeout", kgo.RetryTimeout},
	{"kgo.RequestTimeoutOverhead", kgo.RequestTimeoutOverhead},
	{"kgo.DialTimeout", kgo.DialTimeout},
}

// producing are the options of a client that writes, a producer's or a
// transform member's writing side.
var producing = []option{
	{"acks", kgo.RequiredAcks},
	{"retries", kgo.RecordRetries},
	{"max.in.flight.requests.per.connection", kgo.MaxProduceRequestsInflightPerBroker},
	{"delivery.timeout.ms", kgo.RecordDeliveryTimeout},
	{"request.timeout.ms", kgo.ProduceRequestTimeout},
	{"linger.ms", kgo.ProducerLinger},
	{"batch.size", kgo.ProducerBatchMaxBytes},
	{"buffer.memory", kgo.MaxBufferedBytes},
	{"transaction.timeout.ms", kgo.TransactionTimeout},
	{"kgo.MaxBufferedRecords", kgo.MaxBufferedRecords},
	{"kgo.UnknownTopicRetries", kgo.UnknownTopicRetries},
}

// producerOptions are a producer's.
var producerOptions = slices.Concat(producing, everyClient)

// memberOptions are a group member's.
var memberOptions = append([]option{
	{"group.id", kgo.ConsumerGroup},
	{"session.timeout.ms", kgo.SessionTimeout},
	{"heartbeat.interval.ms", kgo.HeartbeatInterval},
	{"max.poll.interval.ms", kgo.RebalanceTimeout},
	{"auto.commit.interval.ms", kgo.AutoCommitInterval},
	{"fetch.max.wait.ms", kgo.FetchMaxWait},
	{"fetch.min.bytes", kgo.FetchMinBytes},
	{"fetch.max.bytes", kgo.FetchMaxBytes},
	{"max.partition.fetch.bytes", kgo.FetchMaxPartitionBytes},
}, everyClient...)

// transformOptions are a transform member's: a member's that also writes.
var transformOptions = slices.Concat(memberOptions, producing)

// clientInfo is the client entry of the evidence for a franz-go client
// with the options of table: its version, its configuration in force and
// which of its options kafkabook set: every option off franz-go's default
// that the runbook did not give, found by comparing the client with one
// built with nothing set, so that no hand-kept list can miss one.
func clientInfo(cl *kgo.Client, table []option, given []string) results.ClientInfo {
	config := configInForce(cl, table)
	defaults := franzGoDefaults()
	if config["enable.idempotence"] == "false" {
		// Without idempotence franz-go's own in-flight default is 1
		// (config.go of v1.22.3), not the 5 it keeps with it.
		defaults = maps.Clone(defaults)
		defaults["max.in.flight.requests.per.connection"] = "1"
	}
	var ours []string
	for name, v := range config {
		if d, ok := defaults[name]; (!ok || d != v) && !slices.Contains(given, name) {
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
	_, opts, err := producerOpts(b, spec, txn)
	if err != nil {
		return results.ClientInfo{}, err
	}
	return inForce(opts, producerOptions, slices.Sorted(maps.Keys(spec.Properties)))
}

// MemberInForce is the client entry of a franz-go group member for spec,
// read back from a client built as JoinGroup builds one. The group and the
// commits are the step's, the group timing kafkabook's (SessionTimeout).
func MemberInForce(b Brokers, spec MemberSpec) (results.ClientInfo, error) {
	return inForce(memberOpts(b, spec), memberOptions, stepSets)
}

// stepSets are a member's options its step decides: its group, how it
// commits (consume --commit, or a transform's own commits) and what it
// reads (a transform reads read_committed).
var stepSets = []string{"group.id", "enable.auto.commit", "auto.commit.interval.ms", "isolation.level"}

// TransformInForce is MemberInForce for a transform member.
func TransformInForce(b Brokers, spec TransformSpec) (results.ClientInfo, error) {
	given := slices.Clone(stepSets)
	if spec.TxnID != "" {
		given = append(given, "transactional.id")
	}
	return inForce(transformOpts(b, spec), transformOptions, given)
}

// inForce builds a client with opts, connecting to nothing, and reads its
// configuration back.
func inForce(opts []kgo.Opt, table []option, given []string) (results.ClientInfo, error) {
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return results.ClientInfo{}, err
	}
	defer cl.Close()
	return clientInfo(cl, table, given), nil
}

// configInForce reads the options of table back from the client, and
// those that are not a plain value where the client has them.
func configInForce(cl *kgo.Client, table []option) map[string]string {
	config := make(map[string]string, len(table)+4)
	for _, o := range table {
		if v, ok := optText(cl.OptValue(o.opt)); ok {
			config[o.name] = v
		}
	}
	// The retry backoff is a function: its first three waits say it
	// (franz-go's own are jittered, so they are named, not compared).
	if fn, ok := cl.OptValue(kgo.RetryBackoffFn).(func(int) time.Duration); ok && fn != nil && !defaultBackoff(cl) {
		config["kgo.RetryBackoffFn"] = fmt.Sprintf("%d,%d,%d", fn(1).Milliseconds(), fn(2).Milliseconds(), fn(3).Milliseconds())
	}
	if _, ok := config["acks"]; ok {
		// franz-go keeps "disable", the evidence says what is enabled.
		if v, ok := cl.OptValue(kgo.DisableIdempotentWrite).(bool); ok {
			config["enable.idempotence"] = strconv.FormatBool(!v)
			if !v {
				// With idempotence franz-go takes no in-flight
				// number and keeps up to 5 requests per broker
				// (newSink and firstRespCheck in sink.go of v1.22.3).
				config["max.in.flight.requests.per.connection"] = "5"
			}
		}
		if cs, ok := cl.OptValue(kgo.ProducerBatchCompression).([]kgo.CompressionCodec); ok {
			// The codecs in order of preference: franz-go uses the first
			// the broker takes (snappy, then none, by default).
			var names []string
			for _, c := range cs {
				names = append(names, codecName(c))
			}
			config["compression.type"] = strings.Join(names, ",")
		}
		if id, _ := cl.OptValue(kgo.TransactionalID).(string); id != "" {
			config["transactional.id"] = id
		} else {
			delete(config, "transaction.timeout.ms") // not a transactional producer: it means nothing
		}
	}
	if _, ok := config["group.id"]; ok {
		if v, ok := cl.OptValue(kgo.DisableAutoCommit).(bool); ok {
			config["enable.auto.commit"] = strconv.FormatBool(!v)
			if v {
				delete(config, "auto.commit.interval.ms") // no auto-commit: no interval in force
			}
		}
		// franz-go holds the level as Kafka's number: 1 read_committed.
		if v, ok := cl.OptValue(kgo.FetchIsolationLevel).(int8); ok {
			config["isolation.level"] = string(results.ReadUncommitted)
			if v == 1 {
				config["isolation.level"] = string(results.ReadCommitted)
			}
		}
		if bs, ok := cl.OptValue(kgo.Balancers).([]kgo.GroupBalancer); ok {
			var names []string
			for _, b := range bs {
				names = append(names, b.ProtocolName())
			}
			config["partition.assignment.strategy"] = strings.Join(names, ",")
		}
	}
	return config
}

// defaultBackoff says whether cl backs off as franz-go does by default:
// its waits grow and are jittered, so two calls for the same try differ.
func defaultBackoff(cl *kgo.Client) bool {
	fn, _ := cl.OptValue(kgo.RetryBackoffFn).(func(int) time.Duration)
	return fn != nil && fn(5) != fn(5)
}

// franzGoDefaults is the configuration of a client built with nothing
// set, read as configInForce reads any other, for every role's options.
var franzGoDefaults = sync.OnceValue(func() map[string]string {
	// A transactional producer and a group member have every option of
	// the tables (a transaction timeout, an auto-commit interval); the
	// transactional id and the group move no other option's default.
	d := map[string]string{}
	for _, o := range []kgo.Opt{kgo.TransactionalID("t"), kgo.ConsumerGroup("g")} {
		cl, err := kgo.NewClient(o)
		if err != nil {
			continue
		}
		maps.Insert(d, maps.All(configInForce(cl, transformOptions)))
		cl.Close()
	}
	delete(d, "group.id")
	delete(d, "transactional.id")
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
	case string:
		return x, x != ""
	}
	return "", false
}

// codecName is a codec as compression.type names it.
func codecName(c kgo.CompressionCodec) string {
	for name, k := range codecs {
		if k == c {
			return name
		}
	}
	return fmt.Sprint(c)
}
