// Transform is kafkabook's consume-transform-produce member on Apache
// Kafka's Java client (docs/driver-protocol.md, "Transform members"): a
// KafkaConsumer reading read_committed, a KafkaProducer writing one derived
// record per input record, and the input offsets committed with
// sendOffsetsToTransaction in the poll's transaction (eos), or with
// commitSync after the derived records are acknowledged (without). It
// reports the events kafkabook's own transform member does
// (internal/consumer/transform.go), so the group's exactly-once check does
// not depend on the client. The store, the handler's reports, the stdin
// watch and the self-kill are Member's.

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class Transform {
    // RIDE_OUT lets a member ride out a coordinator's failover, as
    // kafkabook's franz-go member does with about 30 s of tries: the
    // delivery timeout, max.block.ms and the consumer's API timeout (the
    // delivery timeout must exceed linger.ms + request.timeout.ms, 30 s).
    static final Duration RIDE_OUT = Duration.ofSeconds(60);

    public static void main(Map<String, Object> raw, BufferedReader in) {
        Spec spec;
        Member.Store store;
        KafkaConsumer<byte[], byte[]> consumer;
        KafkaProducer<byte[], byte[]> producer;
        Properties cprops, pprops;
        try {
            spec = new Spec(raw);
            cprops = spec.consumerProperties();
            cprops.putIfAbsent("client.id", new ConsumerConfig(cprops).getString("client.id"));
            pprops = spec.producerProperties();
            store = spec.effect ? new Member.Store(spec.store) : null;
            consumer = new KafkaConsumer<>(cprops);
            producer = new KafkaProducer<>(pprops);
        } catch (Exception e) {
            String msg = String.valueOf(e.getMessage());
            if (e.getCause() != null) {
                msg += ": " + e.getCause().getMessage();
            }
            Member.Events.line("{\"name\":\"startup_error\",\"exception\":" + KafkabookDriver.Json.quote(e.getClass().getName())
                    + ",\"message\":" + KafkabookDriver.Json.quote(msg) + "}");
            System.exit(2);
            return;
        }
        Member.watchStdin(in);
        Member.onTerm(() -> Member.stopping.set(true));
        Map<String, Object> values = new TreeMap<>(new ConsumerConfig(cprops).values());
        for (Map.Entry<String, ?> e : new org.apache.kafka.clients.producer.ProducerConfig(pprops).values().entrySet()) {
            values.put("producer." + e.getKey(), e.getValue());
        }
        Member.Events.line(Member.startupComplete("java", "kafka-clients", KafkabookDriver.clientsVersion(),
                "java " + System.getProperty("java.version"), cprops, values));
        int code = 0;
        try {
            if (spec.eos) {
                producer.initTransactions();
            }
            consumer.subscribe(List.of(spec.in));
            new Transform(spec, consumer, producer, store).run();
            consumer.close();
            producer.close();
        } catch (Fenced f) {
            // A successor with the same transactional.id took over: this
            // member is a zombie; it reports the error and stops.
            fenced(spec, f.getCause(), f.id);
            code = 0;
        } catch (Exception e) {
            if (isFencing(e)) {
                fenced(spec, e, null);
            } else {
                e.printStackTrace();
                code = 1;
            }
        }
        Member.Events.line("{\"name\":\"shutdown_complete\"}");
        Runtime.getRuntime().halt(code);
    }

    final Spec spec;
    final KafkaConsumer<byte[], byte[]> consumer;
    final KafkaProducer<byte[], byte[]> producer;
    final Member.Store store; // the group's store with effect, else null
    int n; // records transformed over the member's life

    Transform(Spec spec, KafkaConsumer<byte[], byte[]> consumer, KafkaProducer<byte[], byte[]> producer, Member.Store store) {
        this.spec = spec;
        this.consumer = consumer;
        this.producer = producer;
        this.store = store;
    }

    // run is the poll loop: one transaction per poll with eos, a commit
    // after the poll's derived records without.
    void run() throws Exception {
        while (!Member.stopping.get()) {
            ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(100));
            if (recs.isEmpty()) {
                continue;
            }
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                report("deliver", r);
            }
            if (spec.eos) {
                try {
                    producer.beginTransaction();
                } catch (ProducerFencedException | InvalidProducerEpochException e) {
                    throw new Fenced(e, null);
                }
            }
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                n++;
                Thread.sleep(spec.workMs);
                send(r);
                if (spec.effect) {
                    applyEffect(r);
                } else {
                    report("effect", r);
                }
                if (spec.crashAt == n) {
                    report("crash", r);
                    Member.killSelf();
                }
            }
            Map<TopicPartition, OffsetAndMetadata> next = nextOffsets(recs);
            if (spec.eos) {
                if (!commitTransaction(recs, next)) {
                    continue;
                }
            } else {
                producer.flush();
                consumer.commitSync(next);
            }
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : sorted(next)) {
                Member.Events.event(spec.member, "commit", e.getKey().partition(), e.getValue().offset(), null, null);
            }
        }
    }

    // send writes r's derived record and waits for its acknowledgement
    // (in the open transaction with eos).
    void send(ConsumerRecord<byte[], byte[]> r) throws Exception {
        String value = Member.Handler.messageId(r) + " derived from " + spec.in + " partition " + r.partition() + " offset " + r.offset();
        byte[] key = r.key() == null || r.key().length == 0 ? null : r.key();
        try {
            producer.send(new ProducerRecord<>(spec.out, null, key, value.getBytes(StandardCharsets.UTF_8))).get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof ProducerFencedException || c instanceof InvalidProducerEpochException) {
                throw new Fenced(c, Member.Handler.messageId(r));
            }
            throw new KafkaException("writing the derived record of " + Member.Handler.messageId(r) + " to " + spec.out + ": " + c, c);
        } catch (ProducerFencedException | InvalidProducerEpochException e) {
            throw new Fenced(e, Member.Handler.messageId(r));
        }
    }

    // applyEffect applies r's effect to the group's store as a consume
    // member's handler does, less the commit (the poll's): skipped when
    // dedup finds its event id in event_handled, else applied, and marked
    // handled in a second transaction (table) or in the effect's own
    // (transactional).
    void applyEffect(ConsumerRecord<byte[], byte[]> r) throws Exception {
        String event = Member.Handler.eventId(r);
        if (!spec.dedup.equals("none") && store.handled(event)) {
            report("skip", r);
            return;
        }
        store.apply(Member.Handler.key(r), event, spec.dedup.equals("transactional"));
        report("effect", r);
        if (spec.dedup.equals("table")) {
            store.markHandled(event);
            report("handled", r);
        } else if (spec.dedup.equals("transactional")) {
            report("handled", r);
        }
    }

    void report(String kind, ConsumerRecord<byte[], byte[]> r) {
        String id = Member.Handler.messageId(r);
        String event = Member.Handler.eventHeader(r);
        Member.Events.event(spec.member, kind, r.partition(), r.offset(), id, event != null && !event.equals(id) ? event : null);
    }

    // commitTransaction sends the poll's input offsets to the transaction
    // with the consumer's group metadata and commits it. A fencing error
    // ends the member (Fenced); any other error aborts the transaction,
    // reports its records aborted and rewinds the consumer to the
    // committed offsets, so that they come again (false).
    boolean commitTransaction(ConsumerRecords<byte[], byte[]> recs, Map<TopicPartition, OffsetAndMetadata> next) throws Exception {
        try {
            producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
            for (int tries = 1; ; tries++) {
                try {
                    producer.commitTransaction();
                    return true;
                } catch (org.apache.kafka.common.errors.TimeoutException e) {
                    // The client allows the commit to be retried (a
                    // coordinator failing over).
                    if (tries == 3) {
                        throw e;
                    }
                }
            }
        } catch (ProducerFencedException | InvalidProducerEpochException | FencedInstanceIdException e) {
            throw new Fenced(e, null);
        } catch (KafkaException e) {
            try {
                producer.abortTransaction();
            } catch (ProducerFencedException | InvalidProducerEpochException e2) {
                throw new Fenced(e2, null);
            }
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                report("abort", r);
            }
            rewind();
            return false;
        }
    }

    // rewind seeks every assigned partition back to the group's committed
    // offset (the start when none).
    void rewind() {
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(consumer.assignment());
        for (TopicPartition tp : consumer.assignment()) {
            OffsetAndMetadata o = committed.get(tp);
            if (o == null) {
                consumer.seekToBeginning(List.of(tp));
            } else {
                consumer.seek(tp, o.offset());
            }
        }
    }

    static Map<TopicPartition, OffsetAndMetadata> nextOffsets(ConsumerRecords<byte[], byte[]> recs) {
        Map<TopicPartition, OffsetAndMetadata> next = new java.util.HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : recs) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            OffsetAndMetadata o = next.get(tp);
            if (o == null || o.offset() < r.offset() + 1) {
                next.put(tp, new OffsetAndMetadata(r.offset() + 1));
            }
        }
        return next;
    }

    static List<Map.Entry<TopicPartition, OffsetAndMetadata>> sorted(Map<TopicPartition, OffsetAndMetadata> m) {
        List<Map.Entry<TopicPartition, OffsetAndMetadata>> l = new ArrayList<>(m.entrySet());
        l.sort((a, b) -> Integer.compare(a.getKey().partition(), b.getKey().partition()));
        return l;
    }

    // isFencing says whether e (or its cause) is the error a fenced
    // producer gets.
    static boolean isFencing(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) {
                return true;
            }
        }
        return false;
    }

    // fenced reports the fencing error as the member's fenced event.
    static void fenced(Spec spec, Throwable e, String id) {
        Member.Events.line(fencedLine(spec.member, e, id));
    }

    // fencedLine is member's fenced event for e, at this instant: the
    // error by Kafka's name when it has one, and the record whose derived
    // write was refused (id) when there is one.
    static String fencedLine(int member, Throwable e, String id) {
        String name = e instanceof org.apache.kafka.common.errors.ApiException a
                ? org.apache.kafka.common.protocol.Errors.forException(a).name() : e.getClass().getName();
        StringBuilder b = new StringBuilder(256);
        b.append("{\"at\":\"").append(java.time.Instant.now()).append("\",\"member\":").append(member)
                .append(",\"kind\":\"fenced\",\"partition\":-1,\"offset\":-1");
        if (id != null) {
            b.append(",\"id\":").append(KafkabookDriver.Json.quote(id));
        }
        b.append(",\"error\":").append(KafkabookDriver.Json.quote(name + ": " + e.getMessage())).append('}');
        return b.toString();
    }

    // Fenced carries a fencing error out of the loop, with the record
    // whose derived write it refused (null when not at a write).
    static final class Fenced extends Exception {
        private static final long serialVersionUID = 1L; // never serialized: javac's serial lint asks for one

        final String id;

        Fenced(Throwable cause, String id) {
            super(cause);
            this.id = id;
        }
    }

    // Spec is a transform member's spec line.
    static final class Spec {
        final String in, out, group, txnId, dedup, store;
        final int member, batch, crashAt;
        final long workMs, txnTimeoutMs;
        final boolean eos, effect;
        final List<Object> servers;
        final Map<String, String> given; // the runbook's properties (Given)
        final Map<String, String> access; // the cluster's (Given), set last

        @SuppressWarnings("unchecked")
        Spec(Map<String, Object> m) {
            in = Member.MemberSpec.str(m, "in", "");
            out = Member.MemberSpec.str(m, "out", "");
            group = Member.MemberSpec.str(m, "group", "");
            txnId = Member.MemberSpec.str(m, "txn_id", "");
            dedup = Member.MemberSpec.str(m, "dedup", "none");
            store = Member.MemberSpec.str(m, "store", "");
            member = (int) KafkabookDriver.Spec.num(m, "member", 1);
            batch = (int) KafkabookDriver.Spec.num(m, "batch", 10);
            crashAt = (int) KafkabookDriver.Spec.num(m, "crash_at", 0);
            workMs = KafkabookDriver.Spec.num(m, "work_ms", 0);
            txnTimeoutMs = KafkabookDriver.Spec.num(m, "transaction_timeout_ms", 0);
            eos = Boolean.TRUE.equals(m.get("eos"));
            effect = Boolean.TRUE.equals(m.get("effect"));
            servers = (List<Object>) m.getOrDefault("bootstrap_servers", List.of());
            given = Given.properties(m);
            access = Given.access(m);
            if (in.isEmpty() || out.isEmpty() || group.isEmpty() || (eos && txnId.isEmpty()) || (effect && store.isEmpty())) {
                throw new IllegalArgumentException("transform spec needs in, out, group, txn_id with eos and store with effect");
            }
        }

        String bootstrap() {
            return String.join(",", servers.stream().map(Object::toString).toList());
        }

        // consumerProperties read read_committed with no auto-commit, then
        // the spec's consumer properties (which win), then the cluster's
        // access.
        Properties consumerProperties() {
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap());
            p.put("group.id", group);
            p.put("key.deserializer", ByteArrayDeserializer.class.getName());
            p.put("value.deserializer", ByteArrayDeserializer.class.getName());
            p.put("max.poll.records", Integer.toString(batch));
            p.put("auto.offset.reset", "earliest");
            p.put("enable.auto.commit", "false");
            p.put("isolation.level", "read_committed");
            p.put("default.api.timeout.ms", Long.toString(RIDE_OUT.toMillis()));
            p.putAll(given);
            p.putAll(access);
            return p;
        }

        // producerProperties: acks=all, idempotent, and with eos the
        // group's transactional.id and the transaction timeout; then the
        // cluster's access.
        Properties producerProperties() {
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap());
            p.put("key.serializer", ByteArraySerializer.class.getName());
            p.put("value.serializer", ByteArraySerializer.class.getName());
            p.put("acks", "all");
            p.put("enable.idempotence", "true");
            p.put("delivery.timeout.ms", Long.toString(RIDE_OUT.toMillis()));
            p.put("max.block.ms", Long.toString(RIDE_OUT.toMillis()));
            if (eos) {
                p.put("transactional.id", txnId);
                if (txnTimeoutMs > 0) {
                    p.put("transaction.timeout.ms", Long.toString(txnTimeoutMs));
                }
            }
            p.putAll(access);
            return p;
        }
    }
}
