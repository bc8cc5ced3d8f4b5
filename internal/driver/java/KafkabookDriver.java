// KafkabookDriver is kafkabook's driver for Apache Kafka's Java client
// (kafka-clients). It speaks the protocol of docs/driver-protocol.md: a
// JSON spec line and a start command on stdin, JSON lines on stdout. A
// spec with "role":"member" makes it a consumer group member (Member.java),
// one with "role":"transform" a consume-transform-produce member
// (Transform.java). In the spring driver, a producer spec with
// "client":"spring" sends through Spring Kafka's KafkaTemplate
// (SpringProducer.java) with this file's loop and reports (Sender).
// kafkabook compiles it on the user's machine against the kafka-clients
// release asked for; it uses nothing but that jar, xerial sqlite-jdbc (the
// member's store), Gson (the spec) and the JDK.

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.google.gson.GsonBuilder;
import com.google.gson.Strictness;
import com.google.gson.ToNumberPolicy;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class KafkabookDriver {
    static final Out out = new Out(System.out);
    static final AtomicBoolean stopped = new AtomicBoolean();

    // clientsVersion is the kafka-clients release on the class path, from
    // the version file its jar carries (kafka/kafka-version.properties):
    // the class that reads it, AppInfoParser, moved to an internals
    // package in kafka-clients 4.4.0.
    static String clientsVersion() {
        try (java.io.InputStream in = KafkabookDriver.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line = in.readLine();
        if (line == null) {
            return; // kafkabook went away before sending a spec
        }
        Spec spec;
        Properties props;
        KafkaProducer<byte[], byte[]> producer = null; // the Java client's; null on spring
        Sender sender;
        try {
            Map<String, Object> raw = Json.parseObject(line);
            if ("member".equals(raw.get("role")) && "spring".equals(raw.get("client"))) {
                // Spring Kafka's listener container: compiled into the
                // spring driver only (internal/driver/spring).
                Class.forName("SpringMember").getMethod("main", Map.class, BufferedReader.class).invoke(null, raw, in);
                return;
            }
            if ("member".equals(raw.get("role"))) {
                Member.main(raw, in); // a consumer group member (Member.java)
                return;
            }
            if ("transform".equals(raw.get("role"))) {
                Transform.main(raw, in); // a consume-transform-produce member (Transform.java)
                return;
            }
            spec = new Spec(raw);
            props = spec.properties();
            if ("spring".equals(raw.get("client"))) {
                sender = spring(spec, props);
            } else {
                // The configuration the producer is about to build, with
                // the client.id it would generate made explicit so that
                // the one reported is the one in force.
                ProducerConfig pc = new ProducerConfig(props);
                props.putIfAbsent("client.id", pc.getString("client.id"));
                producer = new KafkaProducer<>(props);
                sender = Sender.of(producer, props);
            }
        } catch (Exception e) {
            out.line("{\"name\":\"startup_error\",\"exception\":" + Json.quote(e.getClass().getName())
                    + ",\"message\":" + Json.quote(String.valueOf(e.getMessage())) + "}");
            out.flush();
            System.exit(2);
            return;
        }
        out.line(startupComplete(sender.who(), sender.configuration(), sender.settings(), spec.setByUs));
        out.flush();
        String cmd = in.readLine();
        if (cmd == null || !cmd.contains("\"start\"")) {
            sender.closeNow();
            return;
        }
        long t0 = System.nanoTime();
        watchStdin(in, sender);
        out.startFlusher();
        // Transactions are the Java client's only: the spring driver
        // refuses a transactional spec at start (SpringProducer.start).
        long[] stats = producer != null && Txn.asked(spec) ? Txn.produce(producer, sender, spec, t0) : produce(sender, spec, t0);
        if (!stopped.get()) {
            sender.flush();
            sender.close();
        }
        out.line("{\"name\":\"shutdown_complete\",\"sent\":" + stats[0] + ",\"max_lag_ns\":" + stats[1]
                + ",\"end_ns\":" + (System.nanoTime() - t0) + "}");
        out.flush();
        System.exit(0);
    }

    // spring is Spring Kafka's KafkaTemplate as the Sender, from the spring
    // driver's SpringProducer, which only the spring driver compiles (as
    // SpringMember): the error that stops it at start is its own.
    static Sender spring(Spec spec, Properties props) throws Exception {
        try {
            return (Sender) Class.forName("SpringProducer").getMethod("start", Spec.class, Properties.class).invoke(null, spec, props);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    // interval is the time between two sends at rate messages a second,
    // in nanoseconds: 0 (as fast as the client takes them) when rate is
    // not positive.
    static double interval(double rate) {
        return rate > 0 ? 1e9 / rate : 0;
    }

    // intendedNs is when message i (0 the first of the run) is due, in
    // nanoseconds after the start: i intervals, truncated. It is fixed
    // from the start, not from the send before, so that a late send does
    // not move the ones after it and latency runs from the intended time
    // (docs/driver-protocol.md: no coordinated omission).
    static long intendedNs(long i, double interval) {
        return (long) (i * interval);
    }

    // waitDue parks until a message's intended time (nanoseconds after t0);
    // false when the driver was stopped meanwhile.
    static boolean waitDue(long intended, long t0) {
        long wait;
        while ((wait = intended - (System.nanoTime() - t0)) > 0 && !stopped.get()) {
            LockSupport.parkNanos(wait);
        }
        return !stopped.get();
    }

    // record is message n as kafkabook's producers write it: its key, its
    // value with filler, and the event-id header when the spec gives one.
    static ProducerRecord<byte[], byte[]> record(Spec spec, long n, String key) {
        ProducerRecord<byte[], byte[]> rec = new ProducerRecord<>(spec.topic, null,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8), spec.value(n));
        if (spec.eventId != null) {
            rec.headers().add(new RecordHeader("event-id", spec.eventId.getBytes(StandardCharsets.UTF_8)));
        }
        return rec;
    }

    // produce sends the spec's messages through sender on the spec's
    // schedule and returns how many it handed to the client and the
    // largest delay of a hand-off.
    static long[] produce(Sender sender, Spec spec, long t0) {
        double interval = interval(spec.rate);
        long sent = 0, maxLag = 0;
        for (int i = 0; i < spec.count && !stopped.get(); i++) {
            long lag = sendOne(sender, spec, i, interval, t0, null);
            if (lag == NOT_DUE) {
                break;
            }
            sent++;
            maxLag = Math.max(maxLag, lag);
        }
        return new long[] {sent, maxLag};
    }

    // NOT_DUE is what sendOne returns when the run stopped before the
    // message was due.
    static final long NOT_DUE = Long.MIN_VALUE;

    // sendOne sends message i of the spec once it is due (waitDue), its
    // outcome reported by a Report, and failed, when given, hearing a
    // send's error too; it returns how late the hand-off was, or NOT_DUE.
    static long sendOne(Sender sender, Spec spec, long i, double interval, long t0,
            java.util.function.Consumer<Exception> failed) {
        long n = spec.from + i;
        long intended = intendedNs(i, interval);
        if (!waitDue(intended, t0)) {
            return NOT_DUE;
        }
        String key = spec.keyOf(n);
        ProducerRecord<byte[], byte[]> rec = record(spec, n, key);
        Report r = new Report(spec.topic, n, key, intended, t0);
        r.inSend = true;
        try {
            sender.send(rec, failed == null ? r : (md, e) -> {
                if (e != null) {
                    failed.accept(e);
                }
                r.onCompletion(md, e);
            });
        } catch (Exception e) {
            if (failed != null) {
                failed.accept(e);
            }
            r.onCompletion(null, e);
        }
        r.inSend = false;
        return System.nanoTime() - t0 - intended;
    }

    // watchStdin stops the run when stdin ends (kafkabook stopped it or
    // died): it closes the producer at once, which also ends a send()
    // blocked on metadata or a full buffer, and halts the JVM if the rest
    // takes longer than five seconds.
    static void watchStdin(BufferedReader in, Sender sender) {
        Thread t = new Thread(() -> {
            try {
                while (in.readLine() != null) {
                }
            } catch (Exception e) {
                // a broken stdin is an end too
            }
            stopped.set(true);
            sender.closeNow(); // pending records fail: reported as unknown
            LockSupport.parkNanos(5_000_000_000L);
            out.flush();
            Runtime.getRuntime().halt(3);
        }, "kafkabook-stdin");
        t.setDaemon(true);
        t.start();
    }

    // Who names a producer's client in startup_complete: kafkabook's name
    // for it, its library, that library's exact version and what it runs
    // on.
    record Who(String client, String library, String version, String runtime) {
        // java is the Java client: kafka-clients on the JVM.
        static Who java() {
            return new Who("java", "kafka-clients", clientsVersion(), "java " + System.getProperty("java.version"));
        }
    }

    // startupComplete names who and the configuration in force: the
    // ProducerConfig kafka-clients builds from configs (the configuration
    // its client holds: the Java client's properties, Spring's producer
    // factory's), after defaults and the adjustments the client makes
    // (idempotence off when acks is not all), with the client's other
    // settings beside it (settings: Spring's template), the names in
    // configs kafka-clients does not know, and what kafkabook set itself
    // (setByUs, Spec.setByUs, as set_by_kafkabook).
    static String startupComplete(Who who, Map<?, ?> configs, Map<String, String> settings, java.util.Collection<String> setByUs) {
        Map<String, Object> given = new TreeMap<>();
        configs.forEach((k, v) -> given.put(String.valueOf(k), v));
        ProducerConfig pc = new ProducerConfig(given);
        StringBuilder b = new StringBuilder(4096);
        b.append("{\"name\":\"startup_complete\",\"client\":").append(Json.quote(who.client()))
                .append(",\"library\":").append(Json.quote(who.library()))
                .append(",\"version\":").append(Json.quote(who.version()))
                .append(",\"runtime\":").append(Json.quote(who.runtime()))
                .append(",\"config\":{");
        Map<String, Object> values = new TreeMap<>(pc.values());
        values.putAll(settings);
        boolean first = true;
        for (Map.Entry<String, Object> e : values.entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            String v = configValue(e.getKey(), e.getValue());
            b.append(Json.quote(e.getKey())).append(':').append(v == null ? "null" : Json.quote(v));
        }
        b.append("},\"unknown_properties\":[");
        first = true;
        for (String name : given.keySet()) {
            if (!ProducerConfig.configNames().contains(name)) {
                b.append(first ? "" : ",").append(Json.quote(name));
                first = false;
            }
        }
        b.append(']');
        if (setByUs != null) {
            b.append(",\"set_by_kafkabook\":[");
            first = true;
            for (String name : setByUs) {
                b.append(first ? "" : ",").append(Json.quote(name));
                first = false;
            }
            b.append(']');
        }
        return b.append('}').toString();
    }

    static String configValue(String name, Object v) {
        if (v == null) {
            return null;
        }
        if (name.contains("password") || name.contains("secret")) {
            return "[hidden]";
        }
        if (v instanceof Class<?> c) {
            return c.getName();
        }
        if (v instanceof List<?> l) {
            StringBuilder b = new StringBuilder();
            for (Object o : l) {
                b.append(b.length() == 0 ? "" : ",").append(o instanceof Class<?> c ? c.getName() : String.valueOf(o));
            }
            return b.toString();
        }
        return String.valueOf(v);
    }

    // Report writes the outcome of one send.
    static final class Report implements org.apache.kafka.clients.producer.Callback {
        final String topic, key;
        final long n, intended, t0;
        final Thread sender = Thread.currentThread();
        // inSend is true while send() runs: a completion on the sending
        // thread then is a record refused before it reached the client's
        // buffer (no metadata within max.block.ms, too large), never sent.
        boolean inSend;

        Report(String topic, long n, String key, long intended, long t0) {
            this.topic = topic;
            this.n = n;
            this.key = key;
            this.intended = intended;
            this.t0 = t0;
        }

        // completed: a record has one outcome, the first the client
        // reports. A transactional producer whose epoch the coordinator
        // bumped (it rolled the transaction back) was seen completing a
        // record a second time; that one goes to stderr, not the ledger.
        final java.util.concurrent.atomic.AtomicBoolean completed = new java.util.concurrent.atomic.AtomicBoolean();

        @Override
        public void onCompletion(RecordMetadata md, Exception e) {
            if (!completed.compareAndSet(false, true)) {
                System.err.println("kafkabook: the client completed message " + n + " a second time"
                        + (e == null ? " (acknowledged)" : ": " + e));
                return;
            }
            out.line(line(md, e, System.nanoTime() - t0));
        }

        // line is the send's producer_send_success or producer_send_error
        // line, acknowledged ack nanoseconds after the start (a builder:
        // the client's I/O thread appends it to Out without a copy).
        CharSequence line(RecordMetadata md, Exception e, long ack) {
            StringBuilder b = new StringBuilder(200);
            if (e == null) {
                b.append("{\"name\":\"producer_send_success\",\"n\":").append(n)
                        .append(",\"topic\":").append(Json.quote(topic))
                        .append(",\"partition\":").append(md.partition())
                        .append(",\"offset\":").append(md.hasOffset() ? md.offset() : -1);
            } else {
                b.append("{\"name\":\"producer_send_error\",\"n\":").append(n)
                        .append(",\"topic\":").append(Json.quote(topic))
                        .append(",\"partition\":").append(md == null ? -1 : md.partition())
                        .append(",\"offset\":-1")
                        .append(",\"class\":").append(inSend && Thread.currentThread() == sender ? "\"failed\"" : classify(e))
                        .append(",\"error\":").append(Json.quote(errorName(e)))
                        .append(",\"exception\":").append(Json.quote(e.getClass().getName()))
                        .append(",\"message\":").append(Json.quote(String.valueOf(e.getMessage())));
            }
            b.append(",\"key\":").append(key == null ? "null" : Json.quote(key))
                    .append(",\"value\":\"");
            Spec.appendId(b, n);
            b.append("\",\"intended_ns\":").append(intended).append(",\"ack_ns\":").append(ack).append('}');
            return b;
        }
    }

    // classify says whether a failed record may be in the log: failed when
    // the broker or the client refused it for certain, unknown when no
    // definite answer came (timeouts, lost connections, retriable errors
    // given up on, a forced close).
    static String classify(Exception e) {
        if (e instanceof NotEnoughReplicasException) {
            return "\"failed\""; // checked before the append: not written
        }
        if (e instanceof RetriableException) {
            return "\"unknown\"";
        }
        if (e instanceof ApiException) {
            return "\"failed\"";
        }
        return "\"unknown\"";
    }

    // errorName is Kafka's name of the error (NOT_ENOUGH_REPLICAS), or ""
    // for an exception of the client's own that Kafka has no name for.
    static String errorName(Exception e) {
        if (!(e instanceof ApiException)) {
            return "";
        }
        Errors err = Errors.forException(e);
        return err == Errors.UNKNOWN_SERVER_ERROR ? "" : err.name();
    }

    // Spec is the driver spec of docs/driver-protocol.md.
    static final class Spec {
        final String topic, key, eventId;
        final long from, count, keys, size;
        final double rate;
        final Map<String, Object> raw;
        // setByUs names what properties() set on the producer that neither
        // the runbook nor the client's defaults decided: the serializers of
        // kafkabook's byte values, a transactional.id of its own, a request
        // timeout lowered under a short delivery timeout. startup_complete
        // says them, so that the evidence does.
        final java.util.TreeSet<String> setByUs = new java.util.TreeSet<>();

        Spec(Map<String, Object> m) {
            raw = m;
            topic = (String) m.get("topic");
            if (topic == null || topic.isEmpty()) {
                throw new IllegalArgumentException("spec has no topic");
            }
            from = num(m, "from", 1);
            count = num(m, "count", 0);
            keys = num(m, "keys", 0);
            size = num(m, "size", 0);
            rate = m.get("rate") == null ? 0 : ((Number) m.get("rate")).doubleValue();
            key = (String) m.get("key");
            eventId = (String) m.get("event_id");
        }

        static long num(Map<String, Object> m, String k, long def) {
            Object v = m.get(k);
            return v == null ? def : ((Number) v).longValue();
        }

        // properties are the producer's properties: the spec's map by the
        // client's own names (Given), then the cluster's access.
        @SuppressWarnings("unchecked")
        Properties properties() {
            Properties p = new Properties();
            List<Object> servers = (List<Object>) raw.get("bootstrap_servers");
            p.put("bootstrap.servers", String.join(",", servers.stream().map(Object::toString).toList()));
            p.put("key.serializer", ByteArraySerializer.class.getName());
            p.put("value.serializer", ByteArraySerializer.class.getName());
            setByUs.addAll(List.of("key.serializer", "value.serializer"));
            Map<String, String> given = Given.properties(raw);
            p.putAll(given);
            Txn.configure(p, raw);
            if (raw.get("transactional_id") != null) {
                setByUs.add("transactional.id");
            }
            // The client refuses delivery.timeout.ms < linger.ms +
            // request.timeout.ms; a short delivery timeout (kafkabook's
            // --delivery-timeout is the property) lowers the request
            // timeout unless the spec sets it.
            if (p.getProperty("delivery.timeout.ms") != null) {
                long ms = Long.parseLong(p.getProperty("delivery.timeout.ms").trim());
                Map<String, Object> defs = ProducerConfig.configDef().defaultValues();
                long linger = Long.parseLong(p.getProperty("linger.ms", String.valueOf(defs.get("linger.ms"))));
                long req = ((Number) defs.get("request.timeout.ms")).longValue();
                if (!given.containsKey("request.timeout.ms") && ms < linger + req) {
                    p.put("request.timeout.ms", Long.toString(Math.max(1, ms - linger)));
                    setByUs.add("request.timeout.ms");
                }
            }
            p.putAll(Given.access(raw));
            return p;
        }

        String keyOf(long n) {
            if (keys > 0) {
                return "k" + (n % keys);
            }
            return key;
        }

        // value is the id of message n, then, when size leaves room, a
        // blank and filler up to size bytes (kafkabook's own format).
        byte[] value(long n) {
            StringBuilder b = new StringBuilder((int) Math.max(size, 12));
            appendId(b, n);
            if (size > b.length() + 1) {
                b.append(' ');
                while (b.length() < size) {
                    b.append('.');
                }
            }
            return b.toString().getBytes(StandardCharsets.UTF_8);
        }

        static void appendId(StringBuilder b, long n) {
            b.append("m-");
            if (n >= 0 && n < 10) {
                b.append("00");
            } else if (n >= 10 && n < 100) {
                b.append('0');
            }
            b.append(n);
        }
    }

    // Txn is the transactional producer (docs/driver-protocol.md,
    // "Transactions"): the spec's messages in transactions of txn_size,
    // every abort_every-th aborted on purpose, each transaction's end
    // reported as a transaction_end line after its records' send lines.
    static final class Txn {
        static boolean asked(Spec spec) {
            return spec.raw.get("transactional_id") != null;
        }

        // configure sets transactional.id from the spec (the client then
        // requires idempotence, and turns it on by default).
        static void configure(Properties p, Map<String, Object> raw) {
            Object id = raw.get("transactional_id");
            if (id != null) {
                p.put("transactional.id", id.toString());
            }
        }

        // produce initialises the transactions and sends the spec's
        // messages in transactions, in order; it stops after a transaction
        // whose end got no definite answer (the producer's state is then
        // unknown) or one that did not begin. It returns what produce does.
        static long[] produce(KafkaProducer<byte[], byte[]> producer, Sender sender, Spec spec, long t0) {
            long size = Math.max(1, Spec.num(spec.raw, "txn_size", 1));
            long abortEvery = Spec.num(spec.raw, "abort_every", 0);
            double interval = interval(spec.rate);
            long sent = 0, maxLag = 0;
            try {
                producer.initTransactions();
            } catch (Exception e) {
                end(1, spec.from, 0, "unknown", false, -1, -1, "initTransactions: " + describe(e), t0, t0);
                return new long[] {0, 0};
            }
            for (long first = 0, n = 1; first < spec.count && !stopped.get(); first += size, n++) {
                long start = System.nanoTime();
                try {
                    producer.beginTransaction();
                } catch (Exception e) {
                    end(n, spec.from + first, 0, "unknown", false, -1, -1, "beginTransaction: " + describe(e), start, t0);
                    break;
                }
                java.util.concurrent.atomic.AtomicReference<Exception> firstErr = new java.util.concurrent.atomic.AtomicReference<>();
                long count = 0;
                for (long i = first; i < Math.min(first + size, spec.count) && !stopped.get(); i++) {
                    long lag = sendOne(sender, spec, i, interval, t0, e -> firstErr.compareAndSet(null, e));
                    if (lag == NOT_DUE) {
                        break;
                    }
                    sent++;
                    count++;
                    maxLag = Math.max(maxLag, lag);
                }
                boolean onPurpose = abortEvery > 0 && n % abortEvery == 0;
                String outcome, err = "";
                long[] pe = {-1, -1};
                try {
                    producer.flush(); // every record of the transaction has its outcome
                    pe = producerIdAndEpoch(producer);
                    if (!onPurpose && firstErr.get() == null && !stopped.get()) {
                        producer.commitTransaction();
                        outcome = "committed";
                    } else {
                        if (!onPurpose) {
                            err = firstErr.get() != null ? describe(firstErr.get()) : "the run ended first";
                        }
                        producer.abortTransaction();
                        outcome = "aborted";
                    }
                } catch (Exception e) {
                    outcome = "unknown";
                    err = describe(e);
                }
                end(n, spec.from + first, count, outcome, onPurpose && outcome.equals("aborted"), pe[0], pe[1], err, start, t0);
                if (outcome.equals("unknown")) {
                    break;
                }
            }
            return new long[] {sent, maxLag};
        }

        // end writes one transaction_end line.
        static void end(long n, long first, long count, String outcome, boolean onPurpose, long pid, long epoch, String err, long start, long t0) {
            out.line(endLine(n, first, count, outcome, onPurpose, pid, epoch, err, start - t0, System.nanoTime() - t0));
        }

        // endLine is a transaction_end line; startNs and endNs are after
        // the run's start.
        static String endLine(long n, long first, long count, String outcome, boolean onPurpose, long pid, long epoch, String err,
                long startNs, long endNs) {
            return "{\"name\":\"transaction_end\",\"txn\":" + n + ",\"first\":" + first + ",\"count\":" + count
                    + ",\"outcome\":" + Json.quote(outcome) + ",\"on_purpose\":" + onPurpose
                    + ",\"producer_id\":" + pid + ",\"epoch\":" + epoch + ",\"error\":" + Json.quote(err)
                    + ",\"start_ns\":" + startNs + ",\"end_ns\":" + endNs + "}";
        }

        static String describe(Exception e) {
            String name = errorName(e);
            return (name.isEmpty() ? e.getClass().getName() : name) + ": " + e.getMessage();
        }

        // producerIdAndEpoch reads the producer id and epoch the client's
        // transaction manager holds (its records of the open transaction
        // carry them): kafka-clients has no public accessor, so it is read
        // by reflection, and {-1, -1} when that fails.
        static long[] producerIdAndEpoch(KafkaProducer<byte[], byte[]> producer) {
            try {
                java.lang.reflect.Field f = KafkaProducer.class.getDeclaredField("transactionManager");
                f.setAccessible(true);
                Object tm = f.get(producer);
                java.lang.reflect.Method m = tm.getClass().getDeclaredMethod("producerIdAndEpoch");
                m.setAccessible(true);
                Object pe = m.invoke(tm);
                long pid = ((Number) pe.getClass().getField("producerId").get(pe)).longValue();
                long epoch = ((Number) pe.getClass().getField("epoch").get(pe)).longValue();
                return new long[] {pid, epoch};
            } catch (Exception e) {
                return new long[] {-1, -1};
            }
        }
    }

    // Out batches lines: a writer thread flushes every 50 ms, and a caller
    // that fills 64 KiB flushes at once. A client callback only appends to
    // the buffer; the write to stdout happens outside its lock, so that
    // stdout never holds up the client's I/O thread for long.
    static final class Out {
        final OutputStream os;
        final Object writeLock = new Object();
        final StringBuilder buf = new StringBuilder(1 << 16);

        Out(OutputStream os) {
            this.os = new BufferedOutputStream(os, 1 << 16);
        }

        void line(CharSequence s) {
            boolean full;
            synchronized (this) {
                buf.append(s).append('\n');
                full = buf.length() >= 1 << 16;
            }
            if (full) {
                flush();
            }
        }

        // flush writes what is buffered; writeLock keeps chunks in order.
        void flush() {
            synchronized (writeLock) {
                String chunk;
                synchronized (this) {
                    chunk = buf.toString();
                    buf.setLength(0);
                }
                try {
                    os.write(chunk.getBytes(StandardCharsets.UTF_8));
                    os.flush();
                } catch (Exception e) {
                    stopped.set(true); // kafkabook is gone
                }
            }
        }

        void startFlusher() {
            Thread t = new Thread(() -> {
                while (true) {
                    LockSupport.parkNanos(50_000_000L);
                    flush();
                }
            }, "kafkabook-flush");
            t.setDaemon(true);
            t.start();
        }
    }

    // Json reads the spec with Gson, a maintained parser held to strict
    // JSON (RFC 8259, nothing after the value): objects as maps in their
    // order, arrays as lists, integers as Long and other numbers as Double,
    // as Spec, Member and Transform read them. quote writes the driver's
    // own lines, one call a line on the client's I/O thread: no library.
    static final class Json {
        private Json() {
        }

        static Map<String, Object> parseObject(String s) {
            Object v = new GsonBuilder().setStrictness(Strictness.STRICT)
                    .setObjectToNumberStrategy(ToNumberPolicy.LONG_OR_DOUBLE).create().fromJson(s, Object.class);
            if (!(v instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("spec is not a JSON object");
            }
            @SuppressWarnings("unchecked") // Gson's objects have string keys
            Map<String, Object> spec = (Map<String, Object>) m;
            return spec;
        }

        static String quote(String s) {
            StringBuilder b = new StringBuilder(s.length() + 2).append('"');
            for (int k = 0; k < s.length(); k++) {
                char c = s.charAt(k);
                if (c == '"' || c == '\\') {
                    b.append('\\').append(c);
                } else if (c < 0x20) {
                    b.append(String.format("\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
            return b.append('"').toString();
        }
    }
}
