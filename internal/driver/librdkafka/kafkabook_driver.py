"""kafkabook's driver for librdkafka, through confluent-kafka for Python
(whose wheels carry librdkafka). It speaks the protocol of
docs/driver-protocol.md: a JSON spec line on stdin, JSON lines on stdout. A
spec without "role" makes it a producer (a start command follows the spec);
"role":"member" makes it a consumer group member that does what kafkabook's
own member (internal/consumer) does. kafkabook runs it in a virtual
environment of its cache with the confluent-kafka release asked for."""

import ctypes
import ctypes.util
import glob
import json
import os
import queue
import signal
import sqlite3
import sys
import threading
import time
from datetime import datetime, timezone

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition

FLUSH_EVERY_NS = 50_000_000
FLUSH_BYTES = 1 << 16

# Errors after which the record may be in the log: no definite answer came.
UNKNOWN = {
    KafkaError._MSG_TIMED_OUT,
    KafkaError._TIMED_OUT,
    KafkaError._TRANSPORT,
    KafkaError._PURGE_INFLIGHT,
    KafkaError._PURGE_QUEUE,
    KafkaError.REQUEST_TIMED_OUT,
    KafkaError.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
}


class Out:
    """Out batches lines and writes them every 50 ms or 64 KiB."""

    def __init__(self):
        self.buf = []
        self.size = 0
        self.last = time.monotonic_ns()

    def line(self, s):
        self.buf.append(s)
        self.size += len(s) + 1
        if self.size >= FLUSH_BYTES or time.monotonic_ns() - self.last >= FLUSH_EVERY_NS:
            self.flush()

    def line_flush_due(self):
        if time.monotonic_ns() - self.last >= FLUSH_EVERY_NS:
            self.flush()

    def flush(self):
        self.last = time.monotonic_ns()
        if not self.buf:
            return
        try:
            sys.stdout.write("\n".join(self.buf) + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, OSError):
            STOP.set()  # kafkabook is gone
        self.buf = []
        self.size = 0


OUT = Out()
STOP = threading.Event()


def message_id(n):
    """message_id is kafkabook's id of message n: m-001, m-1000."""
    return "m-%03d" % n if n >= 0 else "m-%d" % n


def value_of(n, size):
    """value_of is the id, then, when size leaves room, a blank and filler."""
    v = message_id(n)
    if size > len(v) + 1:
        v = v + " " + "." * (size - len(v) - 1)
    return v.encode()


def properties(spec):
    """properties are the producer's properties by librdkafka's own names:
    the runbook's (given), then the cluster's access."""
    conf = {"bootstrap.servers": ",".join(spec["bootstrap_servers"])}
    conf.update(given(spec))
    conf.update(access(spec))
    return conf


# What a runbook may not set: kafkabook's rule (internal/clientconfig/
# refuse.go) once more, at the driver's start. kafkabook refuses these
# before a spec goes out; a driver handed a spec another way refuses them
# too. A runbook is data: through a client it may load no code, run no
# command, read no host file and reach no address outside its cluster.
# tests/test_given.py holds this copy to kafkabook's over every property of
# every catalogue.
OWNED = {
    "bootstrap.servers": "is where the client connects, which the cluster decides",
    "metadata.broker.list": "is where the client connects, which the cluster decides",
    "security.protocol": "is how the client connects, which the cluster's access decides",
    "group.id": "is the group, which kafkabook sets",
    "transactional.id": "is the transactional id, which kafkabook sets",
    "config.providers": "loads config providers, which read host files and the environment",
    "metric.reporters": "names classes to load",
    "security.providers": "names classes to load",
    "interceptors": "sets interceptor plugins, native code",
    "plugin.library.paths": "loads native libraries into the client",
}
BUILTIN_CLASSES = {"key.serializer", "value.serializer", "key.deserializer", "value.deserializer",
                   "partitioner.class", "partition.assignment.strategy"}
API_ONLY = {"opaque", "default_topic_conf", "msg_order_cmp"}  # callbacks or objects not named *_cb
WORDS = [
    (("ssl", "sasl", "https", "oauthbearer", "kerberos", "jaas"),
     "sets how the client authenticates or encrypts, which the cluster's access decides"),
    (("cmd", "command", "exec"), "names a host command for the client to run"),
]


def refused(name, value):
    """refused says why a runbook may not set name to value, or None."""
    if name in OWNED:
        return OWNED[name]
    parts = [p for p in name.lower().replace("_", ".").split(".") if p]
    if name.startswith("config.providers."):
        return OWNED["config.providers"]
    for words, why in WORDS:
        if any(w in parts for w in words):
            return why
    if (parts and parts[-1] == "cb") or name in API_ONLY:
        return "sets a callback or object only the client's own API can, which loads code"
    if any(w in parts for w in ("class", "classes")) or (name in BUILTIN_CLASSES and "." in value):
        if name in BUILTIN_CLASSES and all(c.strip().startswith("org.apache.kafka.") for c in value.split(",")):
            return None
        return "names classes to load (kafka-clients' own org.apache.kafka classes excepted)"
    if any(w in parts for w in ("location", "path", "paths", "file", "files", "dir", "dirs", "keytab")):
        return "names a host path"
    if any(w in parts for w in ("url", "urls", "uri", "endpoint")):
        return "names a place outside the cluster to reach"
    return None


def given(spec):
    """given are the spec's runbook properties as strings; one a runbook
    may not set fails the start, naming it and why."""
    out = {}
    for k, v in (spec.get("properties") or {}).items():
        why = refused(k, str(v))
        if why:
            raise ValueError(f"a runbook may not set {k}: it {why}")
        out[k] = str(v)
    return out


def access(spec):
    """access are the properties that make the client reach the cluster as
    its access says (security protocol, trust, SASL login), set last."""
    return {k: str(v) for k, v in (spec.get("access") or {}).items()}


def rdkafka_library():
    """rdkafka_library loads the librdkafka the confluent_kafka module uses."""
    base = os.path.dirname(confluent_kafka.__file__)
    for pattern in (os.path.join(base, "..", "confluent_kafka.libs", "librdkafka*"),
                    os.path.join(base, ".dylibs", "librdkafka*")):
        for path in glob.glob(pattern):
            return ctypes.CDLL(path)
    name = ctypes.util.find_library("rdkafka")
    return ctypes.CDLL(name) if name else None


RD_KAFKA_PRODUCER, RD_KAFKA_CONSUMER = 0, 1
RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE = 0x8


def effective_config(conf, kind=RD_KAFKA_PRODUCER):
    """effective_config is librdkafka's own dump of the configuration of a
    client of kind (RD_KAFKA_PRODUCER, RD_KAFKA_CONSUMER) built from conf,
    after rd_kafka_new finalized it (enable.idempotence raising acks, for
    one). The client dumped is a twin without bootstrap servers, so it never
    connects; librdkafka has no call that dumps the configuration of the
    handle confluent-kafka holds. conf's values are strings (no callbacks)."""
    lib = rdkafka_library()
    if lib is None:
        return {}, "librdkafka not found for a configuration dump"
    lib.rd_kafka_conf_new.restype = ctypes.c_void_p
    lib.rd_kafka_conf_set.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_new.restype = ctypes.c_void_p
    lib.rd_kafka_new.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.rd_kafka_conf.restype = ctypes.c_void_p
    lib.rd_kafka_conf.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_conf_dump.restype = ctypes.POINTER(ctypes.c_char_p)
    lib.rd_kafka_conf_dump.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.rd_kafka_conf_get_default_topic_conf.restype = ctypes.c_void_p
    lib.rd_kafka_conf_get_default_topic_conf.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_topic_conf_new.restype = ctypes.c_void_p
    lib.rd_kafka_conf_set_default_topic_conf.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.rd_kafka_topic_conf_dump.restype = ctypes.POINTER(ctypes.c_char_p)
    lib.rd_kafka_topic_conf_dump.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.rd_kafka_conf_dump_free.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t]
    lib.rd_kafka_destroy.argtypes = [ctypes.c_void_p]
    lib.rd_kafka_destroy_flags.argtypes = [ctypes.c_void_p, ctypes.c_int]
    errstr = ctypes.create_string_buffer(512)
    c = lib.rd_kafka_conf_new()
    for k, v in conf.items():
        if k == "bootstrap.servers":
            continue
        if lib.rd_kafka_conf_set(c, k.encode(), v.encode(), errstr, 512) != 0:
            return {}, errstr.value.decode()
    if not lib.rd_kafka_conf_get_default_topic_conf(c):
        # Topic-level defaults (acks among them) are finalized and dumped
        # only when the configuration holds a default topic configuration.
        lib.rd_kafka_conf_set_default_topic_conf(c, lib.rd_kafka_topic_conf_new())
    rk = lib.rd_kafka_new(kind, c, errstr, 512)
    if not rk:
        return {}, errstr.value.decode()
    out = {}
    try:
        rc = lib.rd_kafka_conf(rk)
        for dump, src in ((lib.rd_kafka_conf_dump, rc),
                          (lib.rd_kafka_topic_conf_dump, lib.rd_kafka_conf_get_default_topic_conf(rc))):
            if not src:
                continue
            cnt = ctypes.c_size_t()
            arr = dump(src, ctypes.byref(cnt))
            for i in range(0, cnt.value, 2):
                # The global dump comes first and wins: a name in both is
                # a legacy topic-level property of the simple consumer
                # (auto.commit.interval.ms, 60000 by default, which
                # rdkafka_conf.c says the high-level consumer ignores for
                # the global one), not the setting in force.
                out.setdefault(arr[i].decode(), arr[i + 1].decode())
            lib.rd_kafka_conf_dump_free(arr, cnt)
    finally:
        # A consumer twin has joined no group: destroying it must not try
        # to leave one (which would wait for a coordinator it never had).
        lib.rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE if kind == RD_KAFKA_CONSUMER else 0)
    out["bootstrap.servers"] = conf["bootstrap.servers"]
    for k in out:
        if "password" in k or "secret" in k:
            out[k] = "[hidden]"
    return out, ""


def classify(err):
    """classify says whether a record that failed may be in the log."""
    if err.code() == KafkaError.NOT_ENOUGH_REPLICAS:
        return "failed"  # checked before the append: not written
    if err.code() in UNKNOWN or err.retriable():
        return "unknown"
    return "failed"


def report(topic, n, key, intended, t0, errs=None):
    """report returns the delivery callback of message n; errs, when given,
    also gets each error."""
    def done(err, msg):
        ack = time.monotonic_ns() - t0
        if err is None:
            offset = msg.offset()
            OUT.line('{"name":"producer_send_success","n":%d,"topic":%s,"partition":%d,"offset":%d,'
                     '"key":%s,"value":"%s","intended_ns":%d,"ack_ns":%d}' % (
                         n, json.dumps(topic), msg.partition(), -1 if offset is None or offset < 0 else offset,
                         json.dumps(key), message_id(n), intended, ack))
            return
        if errs is not None:
            errs.append(err)
        OUT.line(json.dumps({
            "name": "producer_send_error", "n": n, "topic": topic,
            "partition": -1 if msg is None or msg.partition() is None else msg.partition(), "offset": -1,
            "class": classify(err), "error": err.name(), "exception": "KafkaError",
            "message": err.str(), "key": key, "value": message_id(n),
            "intended_ns": intended, "ack_ns": ack}, separators=(",", ":")))
    return done


def watch_stdin():
    """watch_stdin stops the run when stdin ends (kafkabook stopped or died)
    and exits the process if stopping takes longer than five seconds."""
    for _ in sys.stdin:
        pass
    STOP.set()
    time.sleep(5)
    OUT.flush()
    os._exit(3)


class Messages:
    """Messages are the spec's messages to send: the i-th (from 0) is message
    first + i, due intended(i) ns after the start, with key(n) and the spec's
    headers."""

    def __init__(self, spec):
        self.topic, self.count, self.first = spec["topic"], spec.get("count", 0), spec.get("from", 1)
        rate, self.size = spec.get("rate") or 0, spec.get("size") or 0
        self.keys, self.fixed = spec.get("keys") or 0, spec.get("key")
        self.headers = [("event-id", spec["event_id"].encode())] if spec.get("event_id") else None
        self.interval = 1e9 / rate if rate > 0 else 0

    def intended(self, i):
        return int(i * self.interval)

    def key(self, n):
        return "k%d" % (n % self.keys) if self.keys > 0 else self.fixed


def pace(p, t0, intended):
    """pace waits until intended ns after t0, serving p's callbacks and
    writing the lines that are due meanwhile; it says whether the run goes
    on (False: it stopped first)."""
    while not STOP.is_set():
        wait = intended - (time.monotonic_ns() - t0)
        if wait <= 0:
            break
        p.poll(min(wait / 1e9, 0.05))
        OUT.line_flush_due()
    return not STOP.is_set()


def send(p, msgs, i, t0, errs=None):
    """send hands message i to p at its intended time and returns the delay
    of the hand-off in ns, or None when the run stopped first. errs, when
    given, gets the message's error, if it has one."""
    n, intended = msgs.first + i, msgs.intended(i)
    if not pace(p, t0, intended):
        return None
    key = msgs.key(n)
    cb = report(msgs.topic, n, key, intended, t0, errs)
    while True:
        try:
            p.produce(msgs.topic, value_of(n, msgs.size), key.encode() if key is not None else None,
                      headers=msgs.headers, on_delivery=cb)
            break
        except BufferError:
            p.poll(0.01)  # the queue is full: wait like the Java client's max.block.ms
        except Exception as e:
            cb(KafkaError(KafkaError._INVALID_ARG, str(e)), None)
            break
    p.poll(0)
    return time.monotonic_ns() - t0 - intended


def produce(p, spec, t0):
    """produce sends the spec's messages on its schedule; it returns how many
    it handed to the client and the largest delay of a hand-off."""
    msgs = Messages(spec)
    sent = max_lag = 0
    for i in range(msgs.count):
        lag = send(p, msgs, i, t0)
        if lag is None:
            break
        sent += 1
        max_lag = max(max_lag, lag)
    return sent, max_lag


# ---------------------------------------------------------------------------
# Transactional producer (docs/driver-protocol.md, "Transactions"): the
# spec's messages in transactions of txn_size, every abort_every-th aborted
# on purpose, each end reported as a transaction_end line after its
# records' send lines, as the Java driver does.

TXN_TIMEOUT_S = 30


class TxnIds:
    """TxnIds keeps the producer id and epoch librdkafka's statistics report
    (their "eos" object): librdkafka has no call that returns them."""

    def __init__(self):
        self.pid, self.epoch, self.seen = -1, -1, 0

    def on_stats(self, js):
        try:
            eos = json.loads(js).get("eos") or {}
        except ValueError:
            return
        self.pid, self.epoch = eos.get("producer_id", -1), eos.get("producer_epoch", -1)
        self.seen += 1

    def fresh(self, p, limit_s=1.0):
        """fresh waits, up to limit_s, for a statistics sample taken from
        now on, and returns its producer id and epoch."""
        seen, deadline = self.seen, time.monotonic() + limit_s
        while self.seen == seen and time.monotonic() < deadline:
            p.poll(0.02)
        return self.pid, self.epoch


def txn_properties(conf, spec):
    """txn_properties sets transactional.id from the spec and, unless the
    spec sets it, statistics every 100 ms, which is how the driver learns
    the producer id and epoch (startup_complete shows both in force)."""
    if spec.get("transactional_id"):
        conf["transactional.id"] = spec["transactional_id"]
        conf.setdefault("statistics.interval.ms", "100")
    return conf


def set_by_kafkabook(conf, spec):
    """set_by_kafkabook names what txn_properties set that neither the
    runbook nor librdkafka's defaults decided: the transactional.id
    kafkabook makes, and the statistics interval it reads the producer id
    and epoch from."""
    given = spec.get("properties") or {}
    return sorted(k for k in ("transactional.id", "statistics.interval.ms")
                  if k in conf and k not in given and spec.get("transactional_id"))


def txn_end(n, first, count, outcome, on_purpose, pid, epoch, err, start, t0):
    OUT.line(json.dumps({
        "name": "transaction_end", "txn": n, "first": first, "count": count, "outcome": outcome,
        "on_purpose": on_purpose, "producer_id": pid, "epoch": epoch, "error": err,
        "start_ns": start - t0, "end_ns": time.monotonic_ns() - t0}, separators=(",", ":")))


def describe(e):
    err = e.args[0] if e.args and isinstance(e.args[0], KafkaError) else None
    return "%s: %s" % (err.name(), err.str()) if err is not None else "%s: %s" % (type(e).__name__, e)


def produce_txn(p, spec, t0, ids):
    """produce_txn initialises the transactions and sends the spec's
    messages in transactions, in order; it stops after a transaction whose
    end got no definite answer or one that did not begin. It returns what
    produce does."""
    msgs = Messages(spec)
    per, abort_every = max(1, spec.get("txn_size") or 1), spec.get("abort_every") or 0
    sent = max_lag = 0
    # errs holds the errors of the transaction in hand: one list, emptied as
    # each transaction begins. A delivery report served after its own
    # transaction ended counts in the one in hand, as it did when each
    # transaction rebound errs to a new list that the callbacks looked up.
    errs = []
    try:
        p.init_transactions(TXN_TIMEOUT_S)
    except KafkaException as e:
        txn_end(1, msgs.first, 0, "unknown", False, -1, -1, "init_transactions: " + describe(e), t0, t0)
        return 0, 0
    for k, lo in enumerate(range(0, msgs.count, per), 1):
        if STOP.is_set():
            break
        start = time.monotonic_ns()
        try:
            p.begin_transaction()
        except KafkaException as e:
            txn_end(k, msgs.first + lo, 0, "unknown", False, -1, -1, "begin_transaction: " + describe(e), start, t0)
            break
        errs.clear()
        here = 0
        try:
            for i in range(lo, min(lo + per, msgs.count)):
                lag = send(p, msgs, i, t0, errs)
                if lag is None:
                    break
                sent += 1
                here += 1
                max_lag = max(max_lag, lag)
        except KafkaException as e:
            # A fatal error, raised from poll: the producer was fenced (its
            # epoch bumped when the coordinator rolled the transaction back)
            # and can do nothing more; whether the transaction's records
            # were written is for the read to say.
            txn_end(k, msgs.first + lo, here, "unknown", False, -1, -1, describe(e), start, t0)
            OUT.flush()
            break
        on_purpose = abort_every > 0 and k % abort_every == 0
        err_text, pid, epoch = "", -1, -1
        try:
            p.flush(TXN_TIMEOUT_S)  # every record of the transaction has its outcome
            pid, epoch = ids.fresh(p)
            if not on_purpose and not errs and not STOP.is_set():
                p.commit_transaction(TXN_TIMEOUT_S)
                outcome = "committed"
            else:
                if not on_purpose:
                    err_text = "%s: %s" % (errs[0].name(), errs[0].str()) if errs else "the run ended first"
                p.abort_transaction(TXN_TIMEOUT_S)
                outcome = "aborted"
        except KafkaException as e:
            outcome, err_text = "unknown", describe(e)
        txn_end(k, msgs.first + lo, here, outcome, on_purpose and outcome == "aborted", pid, epoch, err_text, start, t0)
        OUT.flush()
        if outcome == "unknown":
            break
    return sent, max_lag


# ---------------------------------------------------------------------------
# Consumer group member (docs/driver-protocol.md, "Consumer group members").
# The reference is kafkabook's own member, internal/consumer/member.go and
# store.go: the same handling order, the same store, the same events.

STORE_SCHEMA = """
CREATE TABLE IF NOT EXISTS like_count (product TEXT PRIMARY KEY, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS applied (event_id TEXT PRIMARY KEY, times INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS event_handled (event_id TEXT PRIMARY KEY, handled_at TEXT NOT NULL);
"""

# How long one consume() waits. librdkafka's consume(num_messages, timeout)
# returns early only when it has num_messages; with fewer it waits the whole
# timeout, so a short one keeps a partial batch from waiting long. It is
# also how often callbacks (on_commit) are served while the topic is idle.
CONSUME_TIMEOUT_S = 0.1


class Store:
    """Store is the group's SQLite file, opened as store.go opens it: WAL,
    synchronous=FULL (a transaction that returned survives a SIGKILL a moment
    later), a busy timeout of 5 s. Its transactions are store.go's: Apply (the
    like count and the applied count, with dedup transactional the
    event_handled insert too) and MarkHandled (the insert alone)."""

    def __init__(self, path):
        # isolation_level=None: no implicit transactions; each one below is
        # an explicit BEGIN ... COMMIT, as database/sql's BeginTx is.
        self.db = sqlite3.connect(path, timeout=5.0, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(STORE_SCHEMA)

    def handled(self, event):
        return self.db.execute("SELECT 1 FROM event_handled WHERE event_id = ?", (event,)).fetchone() is not None

    def apply(self, product, event, mark_handled):
        self._tx([(("INSERT INTO like_count (product, count) VALUES (?, 1) "
                    "ON CONFLICT (product) DO UPDATE SET count = count + 1"), (product,)),
                  (("INSERT INTO applied (event_id, times) VALUES (?, 1) "
                    "ON CONFLICT (event_id) DO UPDATE SET times = times + 1"), (event,))]
                 + ([self._insert_handled(event)] if mark_handled else []))

    def mark_handled(self, event):
        self._tx([self._insert_handled(event)])

    @staticmethod
    def _insert_handled(event):
        return (("INSERT INTO event_handled (event_id, handled_at) "
                 "VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"), (event,))

    def _tx(self, statements):
        self.db.execute("BEGIN")
        try:
            for sql, args in statements:
                self.db.execute(sql, args)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def close(self):
        self.db.close()


class Record:
    """Record is what the member keeps of a consumed message (kafka.Delivered):
    partition, offset, key ("" when none), message id (the value up to its
    first blank) and event id (the event-id header, "" when none)."""

    __slots__ = ("partition", "offset", "key", "id", "event")

    def __init__(self, msg):
        self.partition, self.offset = msg.partition(), msg.offset()
        key = msg.key()
        self.key = key.decode("utf-8", "replace") if key is not None else ""
        value = msg.value() or b""
        self.id = value.split(b" ", 1)[0].decode("utf-8", "replace")
        self.event = ""
        for k, v in msg.headers() or ():
            if k == "event-id":
                self.event = (v or b"").decode("utf-8", "replace")


class Events:
    """Events writes results.ConsumerEvent lines, each written and flushed at
    once under a lock (the poll loop, the worker and the commit callback all
    report), so that a SIGKILL loses no line that was written."""

    def __init__(self, member):
        self.member = member
        self.lock = threading.Lock()

    def report(self, kind, partition, offset, rec=None):
        at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        line = '{"at":"%s","member":%d,"kind":"%s","partition":%d,"offset":%d' % (
            at, self.member, kind, partition, offset)
        if rec is not None:
            line += ',"id":' + json.dumps(rec.id)
            if rec.event and rec.event != rec.id:
                line += ',"event":' + json.dumps(rec.event)
        self.write(line + "}")

    def write(self, line):
        with self.lock:
            try:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()
            except (BrokenPipeError, OSError):
                pass  # kafkabook is gone; the stdin watcher ends the process


def member_properties(spec):
    """member_properties is the consumer's configuration by librdkafka's
    names: the spec's settings, then the runbook's properties (given), which
    win, then the cluster's access.

    commit auto is librdkafka's own auto-commit: enable.auto.commit=true, every
    auto.commit.interval.ms (auto_commit_ms; 0 keeps librdkafka's 5000), made by
    librdkafka's background thread whatever the application is doing. What it
    commits is the offsets *stored* per partition, and with
    enable.auto.offset.store=true (librdkafka's default, kept here) librdkafka
    stores a message's offset + 1 when consume() hands the message to the
    application, not when the application is done with it: every record a
    consume() returned can be committed while it is still waiting in the
    batch (or in the handoff queue), and is lost if the member then crashes
    (measured: internal/driver/member_librdkafka_test.go). Records fetched
    ahead into librdkafka's own queue are not stored until consume() returns
    them. close() commits the stored offsets once more.

    after and before commit themselves (enable.auto.commit=false), so the
    stored offsets are never committed."""
    auto = spec.get("commit") == "auto"
    conf = {
        "bootstrap.servers": ",".join(spec["bootstrap_servers"]),
        "group.id": spec["group"],
        "auto.offset.reset": "earliest",
        "isolation.level": "read_uncommitted",  # librdkafka's default is read_committed
        "enable.auto.commit": "true" if auto else "false",
    }
    if auto and spec.get("auto_commit_ms"):
        conf["auto.commit.interval.ms"] = str(spec["auto_commit_ms"])
    conf.update(given(spec))
    conf.update(access(spec))
    return conf


class Member:
    """Member is one consumer group member: its consumer, its store, its
    report. handle is member.go's handle, step for step."""

    def __init__(self, spec, consumer, store, events):
        self.spec, self.c, self.store, self.events = spec, consumer, store, events
        self.topic = spec["topic"]
        self.commit_mode = spec.get("commit") or "auto"
        self.dedup = spec.get("dedup") or "none"
        self.crash_at = spec.get("crash_at") or 0
        self.crash_point = spec.get("crash_point") or "work"
        self.work_s = (spec.get("work_ms") or 0) / 1000.0
        self.n = 0  # records handled over the member's life

    def commit(self, rec):
        """commit commits rec's offset + 1 synchronously and reports what the
        client answered, partition by partition.

        This commit is reported from the result of commit(asynchronous=False),
        not from on_commit: confluent-kafka's synchronous commit hands
        librdkafka a callback of its own (rd_kafka_commit_queue), and
        librdkafka then does not call the application's offset commit
        callback, so on_commit never sees it (measured with 2.16.1). The
        result is the broker's answer per partition, as on_commit would
        have had it; an asynchronous commit would be reported only at the
        next consume(), after the crash that the report must precede."""
        try:
            parts = self.c.commit(offsets=[TopicPartition(self.topic, rec.partition, rec.offset + 1)],
                                  asynchronous=False)
        except KafkaException as e:
            raise RuntimeError("committing %s partition %d offset %d: %s" % (
                self.topic, rec.partition, rec.offset + 1, e.args[0] if e.args else e)) from e
        for tp in parts or ():
            if tp.error is not None:
                raise RuntimeError("committing %s partition %d offset %d: %s" % (
                    tp.topic, tp.partition, tp.offset, tp.error))
            self.events.report("commit", tp.partition, tp.offset)

    def on_commit(self, err, parts):
        """on_commit is librdkafka's offset commit callback: it reports the
        automatic commits (commit auto, and the one close() makes), served
        from consume() and close() in the poll loop's thread, so an
        auto-commit made while the member handles a batch is reported at its
        next consume() (its "at" is when it was reported), and one made just
        before a crash is never reported (the committed offsets the admin API
        reads say what stuck). A partition is reported when it has no error
        of its own and the request as a whole did not fail (_NO_OFFSET: there
        was nothing new to commit)."""
        own = any(tp.error is not None for tp in parts or ())
        if err is not None and not own:
            return
        for tp in parts or ():
            if tp.topic == self.topic and tp.error is None and tp.offset >= 0:
                self.events.report("commit", tp.partition, tp.offset)

    def crash(self, rec):
        """crash reports the crash and kills the process with SIGKILL: no
        finally block runs, nothing is committed, the consumer does not
        leave its group."""
        self.events.report("crash", rec.partition, rec.offset, rec)
        os.kill(os.getpid(), signal.SIGKILL)
        while True:
            time.sleep(1)  # SIGKILL cannot be caught; wait for it

    def handle(self, rec, commit):
        """handle is the order of docs/driver-protocol.md, "Handling a
        record": commit first (before), skip what event_handled knows (dedup),
        work, the effect, the event_handled insert (table), commit last
        (after). commit commits rec; with handoff it is the worker's hand-back
        to the poll loop, which commits."""
        self.n += 1
        crash = self.crash_at == self.n
        event = rec.event or rec.id
        if self.commit_mode == "before" and commit is not None:
            commit(rec)
        if self.dedup != "none" and self.store.handled(event):
            self.events.report("skip", rec.partition, rec.offset, rec)
            if self.commit_mode == "after":
                commit(rec)
            return
        if crash and self.crash_point == "work":
            time.sleep(self.work_s / 2)
            self.crash(rec)
        time.sleep(self.work_s)
        self.store.apply(rec.key, event, self.dedup == "transactional")
        self.events.report("effect", rec.partition, rec.offset, rec)
        if crash and self.crash_point == "effect":
            self.crash(rec)
        if self.dedup == "table":
            self.store.mark_handled(event)
            self.events.report("handled", rec.partition, rec.offset, rec)
        elif self.dedup == "transactional":
            self.events.report("handled", rec.partition, rec.offset, rec)
        if crash and self.crash_point == "handled":
            self.crash(rec)
        if self.commit_mode == "after":
            commit(rec)

    def consume(self):
        """consume is one poll: up to batch records, each reported as
        delivered, in the order returned, before any is handled. It also
        serves librdkafka's callbacks (on_commit): librdkafka calls them only
        from consume(), poll() and close()."""
        recs = []
        for msg in self.c.consume(num_messages=self.spec.get("batch") or 1, timeout=CONSUME_TIMEOUT_S):
            if msg.error() is not None:
                if msg.error().fatal():
                    raise RuntimeError("consuming %s: %s" % (self.topic, msg.error()))
                print("member %d: %s" % (self.events.member, msg.error()), file=sys.stderr, flush=True)
                continue
            recs.append(Record(msg))
        for rec in recs:
            self.events.report("deliver", rec.partition, rec.offset, rec)
        return recs

    def run(self, term):
        """run handles each batch in the poll loop, one record after the
        other, until term is set; the batch in hand is finished first."""
        commit = self.commit if self.commit_mode in ("after", "before") else None
        while not term.is_set():
            for rec in self.consume():
                self.handle(rec, commit)

    def run_handoff(self, term):
        """run_handoff hands each record to one worker thread through a queue
        of at most batch records (the poll loop waits while it is full) and
        keeps polling. Commits stay in the poll loop, as the protocol has it
        for every client (librdkafka's handle is thread-safe, kafka-clients'
        is not): before commits each record as soon as it is handed over;
        after commits the records the worker reports done, while the loop
        waits for room and before its next consume(). On term the loop hands
        over the rest of the batch in hand, waits for the worker to finish
        every record it was given, and commits what it reports."""
        work = queue.Queue(maxsize=self.spec.get("batch") or 1)
        done = queue.Queue()
        failed = []

        def worker():
            try:
                while True:
                    rec = work.get()
                    if rec is None:
                        return
                    self.handle(rec, handed_back)
            except BaseException as e:
                failed.append(e)

        handed_back = done.put if self.commit_mode == "after" else None
        t = threading.Thread(target=worker, name="worker", daemon=True)
        t.start()

        def commit_done():
            while True:
                try:
                    rec = done.get_nowait()
                except queue.Empty:
                    break
                self.commit(rec)
            if failed:
                raise failed[0]

        while not term.is_set():
            commit_done()
            for rec in self.consume():
                while True:
                    try:
                        work.put(rec, timeout=0.01)
                        break
                    except queue.Full:
                        commit_done()
                if self.commit_mode == "before":
                    self.commit(rec)
        work.put(None)
        while t.is_alive():
            t.join(0.01)
            commit_done()
        commit_done()


def member_main(spec):
    """member_main runs a member until SIGTERM or SIGINT (exit 0 after a clean close),
    a crash (SIGKILL of its own), or the end of stdin (SIGKILL of its own:
    kafkabook is gone and no member outlives its run)."""
    events = Events(spec.get("member") or 0)
    term = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: term.set())
    signal.signal(signal.SIGINT, lambda *_: term.set())  # as kafkabook's own member
    try:
        conf = member_properties(spec)
        config, why = effective_config(conf, RD_KAFKA_CONSUMER)
        store = Store(spec["store"])
        m = Member(spec, None, store, events)
        m.c = Consumer(dict(conf, on_commit=m.on_commit))
        m.c.subscribe([spec["topic"]])
    except Exception as e:
        events.write(json.dumps({"name": "startup_error", "exception": type(e).__name__, "message": str(e)}))
        return 2

    def watch_stdin():
        for _ in sys.stdin:
            pass
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch_stdin, name="stdin", daemon=True).start()
    events.write(startup_complete(config, why))
    code = 0
    try:
        if spec.get("handoff"):
            m.run_handoff(term)
        else:
            m.run(term)
    except Exception as e:
        print("member %d of group %s: %s" % (events.member, spec["group"], e), file=sys.stderr, flush=True)
        code = 1
    m.c.close()  # leaves the group; with auto-commit, commits the stored offsets (on_commit reports it)
    store.close()
    if code == 0:
        events.write('{"name":"shutdown_complete"}')
    return code


def startup_complete(config, why, set_by=()):
    """startup_complete is the line that says which client runs, in which
    version and with which configuration in force, and what of it kafkabook
    set itself (set_by)."""
    version = confluent_kafka.version()
    line = {
        "name": "startup_complete", "client": "librdkafka", "library": "confluent-kafka",
        "version": version[0] if isinstance(version, tuple) else version, "librdkafka_version": confluent_kafka.libversion()[0],
        "runtime": "python " + sys.version.split()[0], "config": config, "config_error": why,
    }
    if set_by:
        line["set_by_kafkabook"] = list(set_by)
    return json.dumps(line, separators=(",", ":"))


def main():
    line = sys.stdin.readline()
    if not line:
        return 0
    try:
        spec = json.loads(line)
    except ValueError as e:
        OUT.line(json.dumps({"name": "startup_error", "exception": type(e).__name__, "message": "bad spec: %s" % e}))
        OUT.flush()
        return 2
    if spec.get("role") == "member":
        return member_main(spec)
    ids = TxnIds()
    try:
        conf = txn_properties(properties(spec), spec)
        config, why = effective_config(conf)
        p = Producer(dict(conf, stats_cb=ids.on_stats) if spec.get("transactional_id") else conf)
    except Exception as e:
        OUT.line(json.dumps({"name": "startup_error", "exception": type(e).__name__, "message": str(e)}))
        OUT.flush()
        return 2
    OUT.line(startup_complete(config, why, set_by_kafkabook(conf, spec)))
    OUT.flush()
    cmd = sys.stdin.readline()
    if '"start"' not in cmd:
        return 0
    t0 = time.monotonic_ns()
    threading.Thread(target=watch_stdin, daemon=True).start()
    sent, max_lag = produce_txn(p, spec, t0, ids) if spec.get("transactional_id") else produce(p, spec, t0)
    fatal = False  # poll raised the producer's fatal error: it delivers no more
    while len(p) > 0 and not STOP.is_set() and not fatal:
        try:
            p.poll(0.05)
        except KafkaException:
            fatal = True
        OUT.line_flush_due()
    if STOP.is_set() or fatal:
        try:
            p.purge()  # pending records fail: reported as unknown
            p.poll(0)
            p.flush(1)
        except KafkaException:
            pass  # the fatal error again: what is left has no outcome, so unknown
    OUT.line('{"name":"shutdown_complete","sent":%d,"max_lag_ns":%d,"end_ns":%d}' % (
        sent, max_lag, time.monotonic_ns() - t0))
    OUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
