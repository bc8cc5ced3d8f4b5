package kafka

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
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

// ownProducerOptions are the options kafkabook sets on its franz-go
// producer itself, neither the runbook nor franz-go's defaults deciding
// them (baseOpts and clientOpts): the evidence names them. Issue 35 is to
// take them off the client under test.
var ownProducerOptions = []string{"kgo.DialTimeout", "kgo.RequestTimeoutOverhead", "kgo.MetadataMinAge",
	"kgo.MetadataMaxAge", "kgo.RetryBackoffFn", "linger.ms", "kgo.UnknownTopicRetries"}

// producerInfo is the client entry of the evidence for a franz-go
// producer: its version and configuration in force, and which of its
// options kafkabook set (ownProducerOptions, and the request timeout when
// the runbook gave none).
func producerInfo(cl *kgo.Client, spec ProduceSpec) results.ClientInfo {
	config := make(map[string]string, len(producerOptions))
	for _, o := range producerOptions {
		if v, ok := optText(cl.OptValue(o.opt)); ok {
			config[o.name] = v
		}
	}
	// The retry backoff is a function: its first three waits say it.
	if fn, ok := cl.OptValue(kgo.RetryBackoffFn).(func(int) time.Duration); ok && fn != nil {
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
	ours := slices.Clone(ownProducerOptions)
	if spec.RequestTimeout == 0 {
		ours = append(ours, "request.timeout.ms")
	}
	version := FranzGoVersion()
	if version == "" {
		version = "unknown"
	}
	return results.ClientInfo{Client: "franz-go", Library: "franz-go", Version: version, Runtime: runtime.Version(),
		Config: config, SetByKafkabook: ours}
}

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
