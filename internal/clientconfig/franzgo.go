package clientconfig

import (
	"slices"
	"strconv"
)

// franzGo is the table of the Java client's property names kafkabook
// translates into franz-go (kgo) options, by role. It is typed by hand by
// necessity: franz-go has no catalogue of properties, only Go options, and
// this table is what kafkabook maps, not a catalogue of franz-go. A name
// belongs here only when a kgo option (or call) does what the Java
// property does; anything else is refused with "use --client java".
// internal/kafka builds the options from it, and a test there keeps its
// list the same.
var franzGo = map[Role]map[string]mapping{
	Producer: {
		"acks":                                  {"kgo.RequiredAcks", "0, 1, all or -1", isAcks},
		"enable.idempotence":                    {"kgo.DisableIdempotentWrite (when false)", "true or false", isBool},
		"retries":                               {"kgo.RecordRetries", "0 or more", nonNegative},
		"max.in.flight.requests.per.connection": {"kgo.MaxProduceRequestsInflightPerBroker (without idempotence; with it franz-go keeps up to 5 and takes no other number)", "1 or more", positive},
		"delivery.timeout.ms":                   {"kgo.RecordDeliveryTimeout", "1 or more milliseconds", positive},
		"request.timeout.ms":                    {"kgo.ProduceRequestTimeout", "1 or more milliseconds", positive},
		"linger.ms":                             {"kgo.ProducerLinger", "0 or more milliseconds", nonNegative},
		"batch.size":                            {"kgo.ProducerBatchMaxBytes", "1 or more bytes", positive},
		"compression.type":                      {"kgo.ProducerBatchCompression", "none, gzip, snappy, lz4 or zstd", isCodec},
		"buffer.memory":                         {"kgo.MaxBufferedBytes", "0 or more bytes", nonNegative},
		"client.id":                             {"kgo.ClientID", "", nil},
		"transactional.id":                      {"kgo.TransactionalID", "", nil},
		"transaction.timeout.ms":                {"kgo.TransactionTimeout", "1 or more milliseconds", positive},
	},
	Consumer: {
		"client.id":                 {option: "kgo.ClientID"},
		"group.instance.id":         {option: "kgo.InstanceID"},
		"session.timeout.ms":        {option: "kgo.SessionTimeout"},
		"heartbeat.interval.ms":     {option: "kgo.HeartbeatInterval"},
		"max.poll.interval.ms":      {option: "kgo.RebalanceTimeout"},
		"enable.auto.commit":        {option: "kgo.DisableAutoCommit (when false)"},
		"auto.commit.interval.ms":   {option: "kgo.AutoCommitInterval"},
		"auto.offset.reset":         {option: "kgo.ConsumeResetOffset"},
		"isolation.level":           {option: "kgo.FetchIsolationLevel"},
		"fetch.max.wait.ms":         {option: "kgo.FetchMaxWait"},
		"fetch.min.bytes":           {option: "kgo.FetchMinBytes"},
		"fetch.max.bytes":           {option: "kgo.FetchMaxBytes"},
		"max.partition.fetch.bytes": {option: "kgo.FetchMaxPartitionBytes"},
		"max.poll.records":          {option: "Client.PollRecords (its limit, a call rather than an option)"},
	},
}

// mapping is one property kafkabook maps onto franz-go: the kgo option it
// becomes, and what franz-go takes of its value beyond the Java type
// (want says it; nil valid takes any text).
type mapping struct {
	option string
	want   string
	valid  func(string) bool
}

// FranzGo returns the property names kafkabook maps for franz-go in role,
// each with the kgo option it becomes, for the reference.
func FranzGo(role Role) map[string]string {
	out := make(map[string]string, len(franzGo[role]))
	for name, m := range franzGo[role] {
		out[name] = m.option
	}
	return out
}

// The checks of a mapped value.
func nonNegative(v string) bool { n, err := strconv.Atoi(v); return err == nil && n >= 0 }
func positive(v string) bool    { n, err := strconv.Atoi(v); return err == nil && n >= 1 }
func isBool(v string) bool      { _, err := strconv.ParseBool(v); return err == nil }
func isAcks(v string) bool      { return slices.Contains([]string{"0", "1", "all", "-1"}, v) }
func isCodec(v string) bool {
	return slices.Contains([]string{"none", "gzip", "snappy", "lz4", "zstd"}, v)
}
