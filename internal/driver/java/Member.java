// Member is kafkabook's consumer group member on Apache Kafka's Java client
// (docs/driver-protocol.md, "Consumer group members"): a KafkaConsumer that
// polls, hands each record to the handler (in the poll loop, or on one
// worker thread with handoff), applies its effect to the group's SQLite
// store and commits as the spec says. Every commit the client makes, the
// member's own and its automatic ones, is reported from a
// ConsumerInterceptor's onCommit, so that the report shows what the client
// committed, not what the member meant to.
//
// The store and the handling steps are shared with the spring driver's
// listener container (internal/driver/spring/SpringMember.java): Store and
// Handler below.

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class Member {
    // The member's spec and the event writer, for the interceptor, which
    // the client instantiates by class name.
    static volatile MemberSpec spec;
    // handler is set when deliveries are reported from the interceptor's
    // onConsume (spring: the container's poll loop is Spring's own).
    static volatile Handler handler;
    static final AtomicBoolean stopping = new AtomicBoolean();

    public static void main(Map<String, Object> raw, BufferedReader in) {
        Handler h;
        KafkaConsumer<byte[], byte[]> consumer;
        Properties props;
        try {
            spec = new MemberSpec(raw);
            props = spec.consumerProperties();
            // The client.id the consumer would generate, made explicit so
            // that the one reported is the one in force.
            props.putIfAbsent("client.id", new ConsumerConfig(props).getString("client.id"));
            h = new Handler(spec, new Store(spec.store));
            consumer = new KafkaConsumer<>(props);
            consumer.subscribe(List.of(spec.topic));
        } catch (Exception e) {
            Events.line("{\"name\":\"startup_error\",\"exception\":" + KafkabookDriver.Json.quote(e.getClass().getName())
                    + ",\"message\":" + KafkabookDriver.Json.quote(String.valueOf(e.getMessage())) + "}");
            System.exit(2);
            return;
        }
        watchStdin(in);
        onTerm(() -> stopping.set(true));
        Events.line(startupComplete("java", "kafka-clients", KafkabookDriver.clientsVersion(),
                "java " + System.getProperty("java.version"), props, new ConsumerConfig(props).values()));
        try {
            if (spec.handoff) {
                handOff(consumer, h);
            } else {
                inLoop(consumer, h);
            }
            consumer.close(); // with auto-commit: commits the position (reported by the interceptor)
            h.store.close();
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        Events.line("{\"name\":\"shutdown_complete\"}");
        System.exit(0);
    }

    // inLoop handles every record in the poll loop, before the next poll.
    static void inLoop(KafkaConsumer<byte[], byte[]> consumer, Handler h) throws Exception {
        Committer commit = (rec) -> commitSync(consumer, rec.topic(), rec.partition(), rec.offset() + 1);
        while (!stopping.get()) {
            ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(100));
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                h.deliver(r);
            }
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                h.handle(r, commit);
            }
        }
    }

    // handOff gives every record to one worker thread through a queue of
    // at most batch records and keeps polling. The consumer is not thread
    // safe: the poll loop makes the commits, of what it handed over
    // (before) or what the worker reports done (after), before each poll.
    static void handOff(KafkaConsumer<byte[], byte[]> consumer, Handler h) throws Exception {
        ConcurrentLinkedQueue<ConsumerRecord<byte[], byte[]>> done = new ConcurrentLinkedQueue<>();
        Committer noCommit = (rec) -> { };
        Worker<ConsumerRecord<byte[], byte[]>> worker = new Worker<>(spec.batch, r -> {
            h.handle(r, noCommit);
            done.add(r);
        });
        Map<TopicPartition, Long> handed = new HashMap<>();
        while (!stopping.get()) {
            ConsumerRecords<byte[], byte[]> recs = consumer.poll(Duration.ofMillis(100));
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                h.deliver(r);
            }
            for (ConsumerRecord<byte[], byte[]> r : recs) {
                worker.put(r);
                handed.merge(new TopicPartition(r.topic(), r.partition()), r.offset() + 1, Math::max);
            }
            commitHandedOver(consumer, handed, done);
        }
        // A clean stop finishes what the worker was given.
        worker.drain();
        commitHandedOver(consumer, handed, done);
        worker.stop();
    }

    // Worker is the one worker thread of --handoff, for the plain member
    // and Spring's: jobs handed over through a queue of at most batch
    // (put waits while it is full), run in order by work. A job that
    // throws halts the member, as an application's dead worker would
    // leave it.
    static final class Worker<J> {
        interface Work<J> {
            void run(J job) throws Exception;
        }

        final BlockingQueue<J> queue;
        final AtomicInteger pending = new AtomicInteger(); // handed over, not yet done
        final Thread thread;

        Worker(int batch, Work<J> work) {
            queue = new ArrayBlockingQueue<>(Math.max(1, batch));
            thread = new Thread(() -> {
                try {
                    while (true) {
                        work.run(queue.take());
                        pending.decrementAndGet();
                    }
                } catch (InterruptedException e) {
                    // stopped
                } catch (Exception e) {
                    e.printStackTrace();
                    Runtime.getRuntime().halt(1);
                }
            }, "kafkabook-worker");
            thread.setDaemon(true);
            thread.start();
        }

        void put(J job) throws InterruptedException {
            pending.incrementAndGet();
            queue.put(job);
        }

        // drain waits until the worker has done every job it was given.
        void drain() throws InterruptedException {
            while (pending.get() > 0) {
                Thread.sleep(10);
            }
        }

        void stop() {
            thread.interrupt();
        }
    }

    // commitHandedOver makes the poll loop's commits with handoff: before,
    // the records handed over; after, those the worker has finished.
    static void commitHandedOver(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> handed,
            ConcurrentLinkedQueue<ConsumerRecord<byte[], byte[]>> done) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        if (spec.commit.equals("before")) {
            for (Map.Entry<TopicPartition, Long> e : handed.entrySet()) {
                offsets.put(e.getKey(), new OffsetAndMetadata(e.getValue()));
            }
            handed.clear();
        }
        ConsumerRecord<byte[], byte[]> r;
        while ((r = done.poll()) != null) {
            if (spec.commit.equals("after")) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                OffsetAndMetadata o = offsets.get(tp);
                if (o == null || o.offset() < r.offset() + 1) {
                    offsets.put(tp, new OffsetAndMetadata(r.offset() + 1));
                }
            }
        }
        if (!offsets.isEmpty()) {
            consumer.commitSync(offsets);
        }
    }

    static void commitSync(KafkaConsumer<byte[], byte[]> consumer, String topic, int partition, long offset) {
        consumer.commitSync(Map.of(new TopicPartition(topic, partition), new OffsetAndMetadata(offset)));
    }

    // watchStdin kills the member when stdin ends: kafkabook is gone, and
    // a member must not outlive its run (no commit, no leave).
    static void watchStdin(BufferedReader in) {
        Thread t = new Thread(() -> {
            try {
                while (in.readLine() != null) {
                }
            } catch (Exception e) {
                // a broken stdin is an end too
            }
            killSelf();
        }, "kafkabook-stdin");
        t.setDaemon(true);
        t.start();
    }

    // onTerm runs stop on SIGTERM instead of the JVM's exit, so that the
    // member finishes its records, closes its consumer and exits 0.
    static void onTerm(Runnable stop) {
        sun.misc.Signal.handle(new sun.misc.Signal("TERM"), sig -> stop.run());
    }

    // killSelf sends SIGKILL to this process: no finally block, no
    // shutdown hook, no commit.
    static void killSelf() {
        try {
            new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).start().waitFor();
        } catch (Exception e) {
            // fall through to halt
        }
        Runtime.getRuntime().halt(137);
    }

    // startupComplete names the client and the consumer configuration in
    // force (values: the client's own names, and the container's settings
    // for spring), and the names the client does not know.
    static String startupComplete(String client, String library, String version, String runtime, Properties props,
            Map<String, ?> values) {
        StringBuilder b = new StringBuilder(4096);
        b.append("{\"name\":\"startup_complete\",\"client\":").append(KafkabookDriver.Json.quote(client))
                .append(",\"library\":").append(KafkabookDriver.Json.quote(library))
                .append(",\"version\":").append(KafkabookDriver.Json.quote(version))
                .append(",\"runtime\":").append(KafkabookDriver.Json.quote(runtime))
                .append(",\"config\":{");
        boolean first = true;
        for (Map.Entry<String, ?> e : new TreeMap<String, Object>(values).entrySet()) {
            b.append(first ? "" : ",");
            first = false;
            String v = KafkabookDriver.configValue(e.getKey(), e.getValue());
            b.append(KafkabookDriver.Json.quote(e.getKey())).append(':').append(v == null ? "null" : KafkabookDriver.Json.quote(v));
        }
        b.append("},\"unknown_properties\":[");
        first = true;
        for (String name : new TreeMap<>(props).keySet().stream().map(Object::toString).toList()) {
            if (!ConsumerConfig.configNames().contains(name)) {
                b.append(first ? "" : ",").append(KafkabookDriver.Json.quote(name));
                first = false;
            }
        }
        return b.append("]}").toString();
    }

    // Committer commits a record's offset + 1 (or does nothing where the
    // caller commits).
    interface Committer {
        void commit(ConsumerRecord<byte[], byte[]> r) throws Exception;
    }

    // Commits reports every commit the client makes: its onCommit sees the
    // member's commitSync, auto-commits, the container's commits and the
    // one close() makes.
    public static final class Commits implements ConsumerInterceptor<byte[], byte[]> {
        @Override
        public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
            Handler h = handler;
            if (h != null) {
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    h.deliver(r);
                }
            }
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            MemberSpec s = spec;
            if (s == null) {
                return;
            }
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : new TreeMap<TopicPartition, OffsetAndMetadata>(
                    (a, b) -> Integer.compare(a.partition(), b.partition())) {{ putAll(offsets); }}.entrySet()) {
                Events.event(s.member, "commit", e.getKey().partition(), e.getValue().offset(), null, null);
            }
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }

    // MemberSpec is the spec line of a member.
    static final class MemberSpec {
        final String client, topic, group, commit, dedup, crashPoint, store, ackMode;
        final int member, batch, crashAt;
        final long autoCommitMs, workMs;
        final boolean handoff;
        final List<Object> servers;
        final Map<String, String> given; // the runbook's properties (Given)
        final Map<String, String> access; // the cluster's (Given), set last

        @SuppressWarnings("unchecked")
        MemberSpec(Map<String, Object> m) {
            client = str(m, "client", "java");
            topic = str(m, "topic", "");
            group = str(m, "group", "");
            commit = str(m, "commit", "after");
            dedup = str(m, "dedup", "none");
            crashPoint = str(m, "crash_point", "");
            store = str(m, "store", "");
            ackMode = str(m, "ack_mode", "");
            member = (int) KafkabookDriver.Spec.num(m, "member", 1);
            batch = (int) KafkabookDriver.Spec.num(m, "batch", 10);
            crashAt = (int) KafkabookDriver.Spec.num(m, "crash_at", 0);
            autoCommitMs = KafkabookDriver.Spec.num(m, "auto_commit_ms", 0);
            workMs = KafkabookDriver.Spec.num(m, "work_ms", 0);
            handoff = Boolean.TRUE.equals(m.get("handoff"));
            servers = (List<Object>) m.getOrDefault("bootstrap_servers", List.of());
            given = Given.properties(m);
            access = Given.access(m);
            if (topic.isEmpty() || group.isEmpty() || store.isEmpty()) {
                throw new IllegalArgumentException("member spec needs topic, group and store");
            }
        }

        static String str(Map<String, Object> m, String k, String def) {
            Object v = m.get(k);
            return v == null ? def : v.toString();
        }

        // consumerProperties are kafkabook's settings, then the spec's
        // properties (which win), the interceptor that reports commits and
        // the cluster's access.
        Properties consumerProperties() {
            Properties p = new Properties();
            p.put("bootstrap.servers", String.join(",", servers.stream().map(Object::toString).toList()));
            p.put("group.id", group);
            p.put("key.deserializer", ByteArrayDeserializer.class.getName());
            p.put("value.deserializer", ByteArrayDeserializer.class.getName());
            p.put("max.poll.records", Integer.toString(batch));
            p.put("auto.offset.reset", "earliest");
            p.put("enable.auto.commit", Boolean.toString(commit.equals("auto")));
            if (commit.equals("auto") && autoCommitMs > 0) {
                p.put("auto.commit.interval.ms", Long.toString(autoCommitMs));
            }
            p.putAll(given);
            p.put("interceptor.classes", Commits.class.getName()); // a runbook may set none (Given)
            p.putAll(access);
            return p;
        }
    }

    // Handler is the handling of one record, the same steps in the same
    // order as kafkabook's own member (internal/consumer/member.go).
    static final class Handler {
        final MemberSpec spec;
        final Store store;
        int n; // records handled over the member's life

        Handler(MemberSpec spec, Store store) {
            this.spec = spec;
            this.store = store;
        }

        void deliver(ConsumerRecord<byte[], byte[]> r) {
            report("deliver", r);
        }

        // handle runs steps 2 to 7 of the protocol; commit is the
        // commit of the record's offset + 1 (a no-op where another thread
        // or the container commits).
        void handle(ConsumerRecord<byte[], byte[]> r, Committer commit) throws Exception {
            n++;
            boolean crash = spec.crashAt == n;
            readValue(r);
            String event = eventId(r);
            if (spec.commit.equals("before")) {
                commit.commit(r);
            }
            if (!spec.dedup.equals("none") && store.handled(event)) {
                report("skip", r);
                if (spec.commit.equals("after")) {
                    commit.commit(r);
                }
                return;
            }
            if (crash && spec.crashPoint.equals("work")) {
                Thread.sleep(spec.workMs / 2);
                crash(r);
            }
            Thread.sleep(spec.workMs);
            store.apply(key(r), event, spec.dedup.equals("transactional"));
            report("effect", r);
            if (crash && spec.crashPoint.equals("effect")) {
                crash(r);
            }
            if (spec.dedup.equals("table")) {
                store.markHandled(event);
                report("handled", r);
            } else if (spec.dedup.equals("transactional")) {
                report("handled", r);
            }
            if (crash && spec.crashPoint.equals("handled")) {
                crash(r);
            }
            if (spec.commit.equals("after")) {
                commit.commit(r);
            }
        }

        void crash(ConsumerRecord<byte[], byte[]> r) {
            report("crash", r);
            killSelf();
        }

        void report(String kind, ConsumerRecord<byte[], byte[]> r) {
            String id = messageId(r);
            String event = eventHeader(r);
            Events.event(spec.member, kind, r.partition(), r.offset(), id, event != null && !event.equals(id) ? event : null);
        }

        static String messageId(ConsumerRecord<byte[], byte[]> r) {
            Object value = r.value(); // any type: a report must not fail (see readValue)
            if (value == null) {
                return "";
            }
            String v = value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : value.toString();
            int sp = v.indexOf(' ');
            return sp < 0 ? v : v.substring(0, sp);
        }

        // readValue is the listener reading the value as the bytes its
        // deserializer was configured to give (ByteArrayDeserializer
        // unless -X value.deserializer says otherwise), as the second
        // article's listener does first (objectMapper.readValue(value as
        // ByteArray)). Under another deserializer (the article's
        // value-serializer typo left Spring Boot's StringDeserializer)
        // it fails with ClassCastException before anything is applied.
        static byte[] readValue(ConsumerRecord<byte[], byte[]> r) {
            Object value = r.value();
            return (byte[]) value;
        }

        static String eventHeader(ConsumerRecord<byte[], byte[]> r) {
            Header h = r.headers().lastHeader("event-id");
            return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
        }

        static String eventId(ConsumerRecord<byte[], byte[]> r) {
            String e = eventHeader(r);
            return e != null ? e : messageId(r);
        }

        static String key(ConsumerRecord<byte[], byte[]> r) {
            return r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8);
        }
    }

    // Store is the group's SQLite file through xerial's sqlite-jdbc: WAL,
    // synchronous=FULL, a busy timeout of 5 s, the schema created when
    // missing.
    static final class Store {
        final Connection db;

        Store(String path) throws SQLException {
            db = DriverManager.getConnection("jdbc:sqlite:" + path);
            try (Statement s = db.createStatement()) {
                s.execute("PRAGMA busy_timeout=5000");
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("PRAGMA synchronous=FULL");
                s.execute("CREATE TABLE IF NOT EXISTS like_count (product TEXT PRIMARY KEY, count INTEGER NOT NULL)");
                s.execute("CREATE TABLE IF NOT EXISTS applied (event_id TEXT PRIMARY KEY, times INTEGER NOT NULL)");
                s.execute("CREATE TABLE IF NOT EXISTS event_handled (event_id TEXT PRIMARY KEY, handled_at TEXT NOT NULL)");
            }
            db.setAutoCommit(false);
        }

        synchronized boolean handled(String event) throws SQLException {
            try (PreparedStatement q = db.prepareStatement("SELECT 1 FROM event_handled WHERE event_id = ?")) {
                q.setString(1, event);
                try (ResultSet rs = q.executeQuery()) {
                    boolean found = rs.next();
                    db.commit();
                    return found;
                }
            }
        }

        // apply is the effect in one transaction: the product's like count
        // and the event's applied count up by one, and with markHandled
        // the event_handled insert.
        synchronized void apply(String product, String event, boolean markHandled) throws SQLException {
            try {
                try (PreparedStatement a = db.prepareStatement("INSERT INTO like_count (product, count) VALUES (?, 1) "
                        + "ON CONFLICT (product) DO UPDATE SET count = count + 1")) {
                    a.setString(1, product);
                    a.executeUpdate();
                }
                try (PreparedStatement a = db.prepareStatement("INSERT INTO applied (event_id, times) VALUES (?, 1) "
                        + "ON CONFLICT (event_id) DO UPDATE SET times = times + 1")) {
                    a.setString(1, event);
                    a.executeUpdate();
                }
                if (markHandled) {
                    insertHandled(event);
                }
                db.commit();
            } catch (SQLException e) {
                db.rollback();
                throw e;
            }
        }

        // markHandled inserts the event id in a transaction of its own.
        synchronized void markHandled(String event) throws SQLException {
            try {
                insertHandled(event);
                db.commit();
            } catch (SQLException e) {
                db.rollback();
                throw e;
            }
        }

        void insertHandled(String event) throws SQLException {
            try (PreparedStatement a = db.prepareStatement(
                    "INSERT INTO event_handled (event_id, handled_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))")) {
                a.setString(1, event);
                a.executeUpdate();
            }
        }

        synchronized void close() throws SQLException {
            db.close();
        }
    }

    // Events writes each line with one write call and no buffering: a
    // SIGKILL loses no line that was written.
    static final class Events {
        static final FileOutputStream out = new FileOutputStream(FileDescriptor.out);

        static synchronized void line(String s) {
            try {
                out.write((s + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (Exception e) {
                killSelf(); // kafkabook is gone
            }
        }

        static void event(int member, String kind, int partition, long offset, String id, String event) {
            line(eventLine(member, kind, partition, offset, id, event));
        }

        // eventLine is one event of the member's report, at this instant;
        // id and event are left out when null.
        static String eventLine(int member, String kind, int partition, long offset, String id, String event) {
            StringBuilder b = new StringBuilder(128);
            b.append("{\"at\":\"").append(Instant.now()).append("\",\"member\":").append(member)
                    .append(",\"kind\":\"").append(kind).append("\",\"partition\":").append(partition)
                    .append(",\"offset\":").append(offset);
            if (id != null) {
                b.append(",\"id\":").append(KafkabookDriver.Json.quote(id));
            }
            if (event != null) {
                b.append(",\"event\":").append(KafkabookDriver.Json.quote(event));
            }
            return b.append('}').toString();
        }
    }
}
