"""kafkabook's producer driver for librdkafka, through confluent-kafka for
Python (whose wheels carry librdkafka). It speaks the protocol of
docs/driver-protocol.md: a JSON spec line and a start command on stdin, JSON
lines on stdout. kafkabook runs it in a virtual environment of its cache with
the confluent-kafka release asked for."""

import ctypes
import ctypes.util
import glob
import json
import os
import sys
import threading
import time

import confluent_kafka
from confluent_kafka import KafkaError, Producer

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
    """properties are the producer's properties by librdkafka's own names."""
    conf = {"bootstrap.servers": ",".join(spec["bootstrap_servers"])}
    for k, v in (spec.get("properties") or {}).items():
        conf[k] = str(v)
    if spec.get("acks") is not None:
        conf["acks"] = str(spec["acks"])
    if spec.get("delivery_timeout_ms") is not None:
        conf["delivery.timeout.ms"] = str(spec["delivery_timeout_ms"])
    return conf


def rdkafka_library():
    """rdkafka_library loads the librdkafka the confluent_kafka module uses."""
    base = os.path.dirname(confluent_kafka.__file__)
    for pattern in (os.path.join(base, "..", "confluent_kafka.libs", "librdkafka*"),
                    os.path.join(base, ".dylibs", "librdkafka*")):
        for path in glob.glob(pattern):
            return ctypes.CDLL(path)
    name = ctypes.util.find_library("rdkafka")
    return ctypes.CDLL(name) if name else None


def effective_config(conf):
    """effective_config is librdkafka's own dump of the configuration of a
    producer built from conf, after rd_kafka_new finalized it (enable.idempotence
    raising acks, for one). The producer dumped is a twin without bootstrap
    servers, so it never connects; librdkafka has no call that dumps the
    configuration of the handle confluent-kafka holds."""
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
    rk = lib.rd_kafka_new(0, c, errstr, 512)
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
                out[arr[i].decode()] = arr[i + 1].decode()
            lib.rd_kafka_conf_dump_free(arr, cnt)
    finally:
        lib.rd_kafka_destroy(rk)
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


def report(topic, n, key, intended, t0):
    """report returns the delivery callback of message n."""
    def done(err, msg):
        ack = time.monotonic_ns() - t0
        if err is None:
            offset = msg.offset()
            OUT.line('{"name":"producer_send_success","n":%d,"topic":%s,"partition":%d,"offset":%d,'
                     '"key":%s,"value":"%s","intended_ns":%d,"ack_ns":%d}' % (
                         n, json.dumps(topic), msg.partition(), -1 if offset is None or offset < 0 else offset,
                         json.dumps(key), message_id(n), intended, ack))
            return
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


def produce(p, spec, t0):
    """produce sends the spec's messages on its schedule; it returns how many
    it handed to the client and the largest delay of a hand-off."""
    topic, count, first = spec["topic"], spec.get("count", 0), spec.get("from", 1)
    rate, size = spec.get("rate") or 0, spec.get("size") or 0
    keys, fixed = spec.get("keys") or 0, spec.get("key")
    headers = [("event-id", spec["event_id"].encode())] if spec.get("event_id") else None
    interval = 1e9 / rate if rate > 0 else 0
    sent = max_lag = 0
    for i in range(count):
        n = first + i
        intended = int(i * interval)
        while not STOP.is_set():
            wait = intended - (time.monotonic_ns() - t0)
            if wait <= 0:
                break
            p.poll(min(wait / 1e9, 0.05))
            OUT.line_flush_due()
        if STOP.is_set():
            break
        key = "k%d" % (n % keys) if keys > 0 else fixed
        cb = report(topic, n, key, intended, t0)
        while True:
            try:
                p.produce(topic, value_of(n, size), key.encode() if key is not None else None,
                          headers=headers, on_delivery=cb)
                break
            except BufferError:
                p.poll(0.01)  # the queue is full: wait like the Java client's max.block.ms
            except Exception as e:
                cb(KafkaError(KafkaError._INVALID_ARG, str(e)), None)
                break
        p.poll(0)
        sent += 1
        max_lag = max(max_lag, time.monotonic_ns() - t0 - intended)
    return sent, max_lag


def main():
    line = sys.stdin.readline()
    if not line:
        return 0
    try:
        spec = json.loads(line)
        conf = properties(spec)
        config, why = effective_config(conf)
        p = Producer(conf)
    except Exception as e:
        OUT.line(json.dumps({"name": "startup_error", "exception": type(e).__name__, "message": str(e)}))
        OUT.flush()
        return 2
    version = confluent_kafka.version()
    OUT.line(json.dumps({
        "name": "startup_complete", "client": "librdkafka", "library": "confluent-kafka",
        "version": version[0] if isinstance(version, tuple) else version, "librdkafka_version": confluent_kafka.libversion()[0],
        "runtime": "python " + sys.version.split()[0], "config": config, "config_error": why,
    }, separators=(",", ":")))
    OUT.flush()
    cmd = sys.stdin.readline()
    if '"start"' not in cmd:
        return 0
    t0 = time.monotonic_ns()
    threading.Thread(target=watch_stdin, daemon=True).start()
    sent, max_lag = produce(p, spec, t0)
    while len(p) > 0 and not STOP.is_set():
        p.poll(0.05)
        OUT.line_flush_due()
    if STOP.is_set():
        p.purge()  # pending records fail: reported as unknown
        p.poll(0)
        p.flush(1)
    OUT.line('{"name":"shutdown_complete","sent":%d,"max_lag_ns":%d,"end_ns":%d}' % (
        sent, max_lag, time.monotonic_ns() - t0))
    OUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
