// SpringProducer is kafkabook's producer on Spring Kafka
// (docs/driver-protocol.md): a KafkaTemplate on a
// DefaultKafkaProducerFactory, built directly (no Spring Boot) as a Spring
// application builds them, from kafka-clients' and Spring's defaults, the
// runbook's properties and the serializers of kafkabook's byte values
// (KafkabookDriver.Spec.properties). The java driver's loop sends through
// it (Sender), so the pacing, the outcome lines and their classification
// are the java driver's; only the call that sends is Spring's.
//
// Each outcome comes from the template's ProducerListener, which Spring
// calls from the client's callback with the record, the client's
// RecordMetadata (its partition on an error too) and the client's own
// exception, on the thread the client completes it on: the java driver's
// Report then writes the line the Java client's callback would, and tells
// a refusal inside send() from an answer as it does there. The listener
// is ours; it also calls the template's default one (Spring's
// LoggingProducerListener, which logs each failed send), and
// startup_complete names it as set by kafkabook.

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.MetricName;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.LoggingProducerListener;
import org.springframework.kafka.support.ProducerListener;

public final class SpringProducer implements Sender {
    // TRANSACTIONS is why a transactional spec does not run here; kafkabook's
    // check says the same (runbook/produce.go).
    static final String TRANSACTIONS = "the spring producer sends with KafkaTemplate.send outside transactions: Spring runs them "
            + "through executeInTransaction on producers whose transactional.id it makes from a prefix, which kafkabook's "
            + "transaction records do not follow; produce --transactional through java, librdkafka or franz-go";

    // LISTENER is the template setting kafkabook makes, by its name in
    // startup_complete's config.
    static final String LISTENER = "template.producerListener";

    final DefaultKafkaProducerFactory<byte[], byte[]> factory;
    final KafkaTemplate<byte[], byte[]> template;
    // closed is set once the factory is destroyed: a send then is refused,
    // as the Java client refuses one after close, rather than making the
    // factory build a new producer.
    volatile boolean closed;

    private SpringProducer(Map<String, Object> configs) {
        factory = new DefaultKafkaProducerFactory<>(configs);
        template = new KafkaTemplate<>(factory);
        template.setProducerListener(new Reports());
    }

    // start builds the template from props (the spec's properties) and its
    // producer: Spring creates the producer at the first send, here it is
    // created before startup_complete, as the java driver's is, so that a
    // value kafka-clients refuses is a startup_error and the first
    // message's latency is not charged for building the client. Called by
    // KafkabookDriver.spring.
    public static Sender start(KafkabookDriver.Spec spec, Properties props) {
        if (KafkabookDriver.Txn.asked(spec)) {
            throw new IllegalArgumentException(TRANSACTIONS);
        }
        Map<String, Object> configs = new HashMap<>();
        for (String k : props.stringPropertyNames()) {
            configs.put(k, props.getProperty(k));
        }
        SpringProducer p = new SpringProducer(configs);
        p.factory.createProducer(); // the template's shared producer; Spring closes it at destroy()
        spec.setByUs.add(LISTENER);
        return p;
    }

    // spring names Spring Kafka in startup_complete, the producer's and the
    // member's (SpringMember): spring-kafka's version, from its jar, and
    // the kafka-clients release it runs on.
    static KafkabookDriver.Who spring() {
        String version = KafkaTemplate.class.getPackage().getImplementationVersion();
        return new KafkabookDriver.Who("spring", "spring-kafka", version == null ? "unknown" : version,
                "java " + System.getProperty("java.version") + ", kafka-clients " + KafkabookDriver.clientsVersion());
    }

    @Override
    public void send(ProducerRecord<byte[], byte[]> rec, Callback cb) {
        if (closed) {
            throw new IllegalStateException("the producer factory was destroyed: the run is stopping");
        }
        Tagged t = new Tagged(rec, cb);
        try {
            template.send(t);
        } catch (RuntimeException e) {
            // After the client refused the record inside send() (its
            // callback, and so the listener, heard it there) Spring
            // throws KafkaException("Send failed") as well: one outcome.
            if (!t.heard) {
                throw e;
            }
        }
    }

    @Override
    public void flush() {
        template.flush();
    }

    @Override
    public void close() {
        closed = true;
        factory.destroy(); // closes the producer, waiting up to Spring's physical close timeout
    }

    @Override
    public void closeNow() {
        closed = true;
        factory.setPhysicalCloseTimeout(0); // the producer's close(Duration.ZERO), as the java driver's
        factory.destroy();
    }

    @Override
    public KafkabookDriver.Who who() {
        return spring();
    }

    // configuration is the factory's configuration, which Spring builds
    // the producer from, with the client.id the producer has: Spring makes
    // a client.id given in the properties a prefix (client.id-1), and
    // without one kafka-clients names the producer itself (producer-1), so
    // it is read back from the producer's metrics, whose tags carry it.
    @Override
    public Map<?, ?> configuration() {
        Map<String, Object> c = new HashMap<>(factory.getConfigurationProperties());
        for (MetricName m : template.metrics().keySet()) {
            String id = m.tags().get("client-id");
            if (id != null) {
                c.put("client.id", id);
                break;
            }
        }
        return c;
    }

    @Override
    public Map<String, String> settings() {
        Map<String, String> s = new TreeMap<>();
        s.put(LISTENER, "kafkabook's report, then Spring's default (" + LoggingProducerListener.class.getName() + ")");
        s.put("template.transactional", Boolean.toString(template.isTransactional()));
        s.put("factory.producerPerThread", Boolean.toString(factory.isProducerPerThread()));
        s.put("factory.physicalCloseTimeout", Long.toString(factory.getPhysicalCloseTimeout().toMillis()));
        return s;
    }

    // Tagged is a record with the callback that hears its outcome: Spring
    // hands the listener the record it was given.
    static final class Tagged extends ProducerRecord<byte[], byte[]> {
        final Callback cb;
        volatile boolean heard;

        Tagged(ProducerRecord<byte[], byte[]> r, Callback cb) {
            super(r.topic(), r.partition(), r.timestamp(), r.key(), r.value(), r.headers());
            this.cb = cb;
        }

        void complete(RecordMetadata md, Exception e) {
            heard = true;
            cb.onCompletion(md, e);
        }
    }

    // Reports is the template's listener: each outcome to its record's
    // callback first (the ack time is taken there), then to Spring's
    // default listener, which the template would otherwise have.
    static final class Reports implements ProducerListener<byte[], byte[]> {
        final ProducerListener<byte[], byte[]> spring = new LoggingProducerListener<>();

        @Override
        public void onSuccess(ProducerRecord<byte[], byte[]> rec, RecordMetadata md) {
            if (rec instanceof Tagged t) {
                t.complete(md, null);
            }
            spring.onSuccess(rec, md);
        }

        @Override
        public void onError(ProducerRecord<byte[], byte[]> rec, RecordMetadata md, Exception e) {
            if (rec instanceof Tagged t) {
                t.complete(md, e);
            }
            spring.onError(rec, md, e);
        }
    }
}
