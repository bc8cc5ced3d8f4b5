package clientconfig

import "maps"

// franzGo is the table of the Java client's property names kafkabook
// translates into franz-go (kgo) options, by role. It is typed by hand by
// necessity: franz-go has no catalogue of properties, only Go options, and
// this table is what kafkabook maps, not a catalogue of franz-go. A name
// belongs here only when a kgo option (or call) does what the Java
// property does; anything else is refused with "use --client java".
var franzGo = map[Role]map[string]string{
	Producer: {
		"acks":                                  "kgo.RequiredAcks",
		"enable.idempotence":                    "kgo.DisableIdempotentWrite (when false)",
		"retries":                               "kgo.RecordRetries",
		"max.in.flight.requests.per.connection": "kgo.MaxProduceRequestsInflightPerBroker (without idempotence; with it franz-go always keeps 5)",
		"delivery.timeout.ms":                   "kgo.RecordDeliveryTimeout",
		"request.timeout.ms":                    "kgo.ProduceRequestTimeout",
		"linger.ms":                             "kgo.ProducerLinger",
		"batch.size":                            "kgo.ProducerBatchMaxBytes",
		"compression.type":                      "kgo.ProducerBatchCompression",
		"buffer.memory":                         "kgo.MaxBufferedBytes",
		"client.id":                             "kgo.ClientID",
		"transactional.id":                      "kgo.TransactionalID",
		"transaction.timeout.ms":                "kgo.TransactionTimeout",
	},
	Consumer: {
		"client.id":                 "kgo.ClientID",
		"group.instance.id":         "kgo.InstanceID",
		"session.timeout.ms":        "kgo.SessionTimeout",
		"heartbeat.interval.ms":     "kgo.HeartbeatInterval",
		"max.poll.interval.ms":      "kgo.RebalanceTimeout",
		"enable.auto.commit":        "kgo.DisableAutoCommit (when false)",
		"auto.commit.interval.ms":   "kgo.AutoCommitInterval",
		"auto.offset.reset":         "kgo.ConsumeResetOffset",
		"isolation.level":           "kgo.FetchIsolationLevel",
		"fetch.max.wait.ms":         "kgo.FetchMaxWait",
		"fetch.min.bytes":           "kgo.FetchMinBytes",
		"fetch.max.bytes":           "kgo.FetchMaxBytes",
		"max.partition.fetch.bytes": "kgo.FetchMaxPartitionBytes",
		"max.poll.records":          "Client.PollRecords (its limit, a call rather than an option)",
	},
}

// FranzGo returns the property names kafkabook maps for franz-go in role,
// each with the kgo option it becomes, for the reference.
func FranzGo(role Role) map[string]string {
	return maps.Clone(franzGo[role])
}
