package kafka

import (
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// producerProperties are the producer properties, by the Java client's
// names, that kafkabook maps onto franz-go's options one by one: those
// clientconfig.FranzGoProducer does not hold as fields (acks,
// idempotence, retries, in-flight requests, the delivery and request
// timeouts: clientconfig.TypedProperties). Their values were checked
// there; a test keeps both lists together the same as clientconfig's.
var producerProperties = map[string]func(string) (kgo.Opt, error){
	"linger.ms": func(v string) (kgo.Opt, error) {
		d, err := millis(v)
		return kgo.ProducerLinger(d), err
	},
	"batch.size": func(v string) (kgo.Opt, error) {
		n, err := strconv.ParseInt(v, 10, 32)
		return kgo.ProducerBatchMaxBytes(int32(n)), err
	},
	"buffer.memory": func(v string) (kgo.Opt, error) {
		n, err := strconv.Atoi(v)
		return kgo.MaxBufferedBytes(n), err
	},
	"transaction.timeout.ms": func(v string) (kgo.Opt, error) {
		d, err := millis(v)
		return kgo.TransactionTimeout(d), err
	},
	"client.id": func(v string) (kgo.Opt, error) { return kgo.ClientID(v), nil },
	"compression.type": func(v string) (kgo.Opt, error) {
		c, ok := codecs[v]
		if !ok {
			return nil, fmt.Errorf("want none, gzip, snappy, lz4 or zstd")
		}
		return kgo.ProducerBatchCompression(c), nil
	},
}

// codecs are the compression.type values, as franz-go's codecs.
var codecs = map[string]kgo.CompressionCodec{
	"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
	"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
}

// millis reads a property in milliseconds.
func millis(v string) (time.Duration, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	return time.Duration(n) * time.Millisecond, err
}
