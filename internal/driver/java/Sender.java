import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

// Sender is what the producer's loop (KafkabookDriver.produce) hands its
// records to: kafka-clients' KafkaProducer itself (the java driver), or
// Spring Kafka's KafkaTemplate (internal/driver/spring/SpringProducer.java,
// the spring driver). The loop, its pacing, the outcome lines and their
// classification (KafkabookDriver.Report) are one piece for both, so that
// the two clients differ only in the call that sends.
interface Sender {
    // send hands rec to the client. cb hears the record's outcome once:
    // from the client's I/O thread, or on the calling thread, inside send,
    // when the client refused the record before its buffer (no metadata
    // within max.block.ms, too large). An exception send throws is a
    // refusal cb did not hear.
    void send(ProducerRecord<byte[], byte[]> rec, Callback cb);

    // flush waits until every record handed over has its outcome.
    void flush();

    // close ends the client at the end of a run, after flush.
    void close();

    // closeNow ends the client without waiting, from the thread that
    // watches stdin: what is pending fails, and a send blocked on
    // metadata or a full buffer ends.
    void closeNow();

    // who names the client in startup_complete.
    KafkabookDriver.Who who();

    // configuration is what the client builds its KafkaProducer from, as
    // the client holds it: startup_complete reports the ProducerConfig
    // kafka-clients makes of it.
    Map<?, ?> configuration();

    // settings are the client's settings in force besides kafka-clients'
    // ProducerConfig (Spring's template), by names of their own, for
    // startup_complete's config; empty for the Java client.
    Map<String, String> settings();

    // of is the Java client as a Sender: producer, built from props, and
    // every call going to it as it is.
    static Sender of(KafkaProducer<byte[], byte[]> producer, Properties props) {
        return new Sender() {
            @Override
            public void send(ProducerRecord<byte[], byte[]> rec, Callback cb) {
                producer.send(rec, cb);
            }

            @Override
            public void flush() {
                producer.flush();
            }

            @Override
            public void close() {
                producer.close();
            }

            @Override
            public void closeNow() {
                producer.close(Duration.ZERO);
            }

            @Override
            public KafkabookDriver.Who who() {
                return KafkabookDriver.Who.java();
            }

            @Override
            public Map<?, ?> configuration() {
                return props;
            }

            @Override
            public Map<String, String> settings() {
                return Map.of();
            }
        };
    }
}
