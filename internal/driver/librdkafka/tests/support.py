"""What the driver's unit tests share: the driver module itself and
stand-ins for the clock, stdout and confluent-kafka's producer and
consumer, so that no test needs a broker or waits for real time."""

import contextlib
import faulthandler
import io
import json
import os
import sys
import unittest
from unittest import mock

from confluent_kafka import KafkaError

# The driver is one runnable file in the directory above (kafkabook embeds
# that file alone), which unittest's discovery does not put on sys.path.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import kafkabook_driver as driver

START_NS = 1_000_000_000_000

# A test that takes longer hangs (a member thread waiting for a worker that
# died, say): the process prints every thread's stack and exits, rather
# than holding the Go test until its deadline.
TEST_TIMEOUT_S = 60


class Clock:
    """Clock stands in for time.monotonic_ns and time.monotonic: it moves
    only when told to (a producer's poll moves it by its timeout)."""

    def __init__(self):
        self.ns = START_NS

    def __call__(self):
        return self.ns

    def seconds(self):
        return self.ns / 1e9

    def advance(self, ns):
        self.ns += int(ns)


class DriverTest(unittest.TestCase):
    """DriverTest gives each test a fresh OUT and STOP, a Clock in place of
    the monotonic clocks (unless fake_clock is False: the member's threads
    wait in real time) and stdout captured in self.stdout."""

    fake_clock = True

    def setUp(self):
        faulthandler.dump_traceback_later(TEST_TIMEOUT_S, exit=True)
        self.addCleanup(faulthandler.cancel_dump_traceback_later)
        self.clock = Clock()
        for name, fn in (("monotonic_ns", self.clock), ("monotonic", self.clock.seconds)):
            if not self.fake_clock:
                break
            patcher = mock.patch.object(driver.time, name, fn)
            patcher.start()
            self.addCleanup(patcher.stop)
        self.stdout = io.StringIO()
        redirect = contextlib.redirect_stdout(self.stdout)
        redirect.__enter__()
        self.addCleanup(redirect.__exit__, None, None, None)
        for name, value in (("OUT", driver.Out()), ("STOP", driver.threading.Event())):
            patcher = mock.patch.object(driver, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)

    def lines(self):
        """lines are the JSON lines written to stdout so far, parsed."""
        return [json.loads(s) for s in self.stdout.getvalue().splitlines()]


class Message:
    """Message stands in for confluent_kafka.Message."""

    def __init__(self, partition=0, offset=0, key=None, value=b"", headers=None, error=None):
        self._partition, self._offset, self._key = partition, offset, key
        self._value, self._headers, self._error = value, headers, error

    def partition(self):
        return self._partition

    def offset(self):
        return self._offset

    def key(self):
        return self._key

    def value(self):
        return self._value

    def headers(self):
        return self._headers

    def error(self):
        return self._error


class Producer:
    """Producer stands in for confluent_kafka.Producer. produce() queues the
    delivery report (success at the next offset of partition 0, or the
    error errors maps the message's value to) that poll() and flush()
    serve; poll(timeout) moves the clock by its timeout. full makes that
    many produce() calls raise BufferError first; refuse makes produce()
    raise it; hold keeps poll() from serving reports until purge(), as a
    cluster that does not answer. The transactional calls raise what
    txn_errors maps their name to, and are recorded in calls with every
    poll, produce and flush."""

    def __init__(self, clock, full=0, refuse=None, errors=None, txn_errors=None, on_poll=None, hold=False):
        self.clock, self.full, self.refuse, self.hold = clock, full, refuse, hold
        self.errors, self.txn_errors = errors or {}, txn_errors or {}
        self.on_poll = on_poll
        self.calls, self.produced, self.pending = [], [], []
        self.offset = 0

    def produce(self, topic, value, key=None, headers=None, on_delivery=None):
        self.calls.append(("produce", self.clock.ns, value))
        if self.full > 0:
            self.full -= 1
            raise BufferError("Local: Queue full")
        if self.refuse is not None:
            raise self.refuse
        self.produced.append((self.clock.ns, topic, value, key, headers))
        err = self.errors.get(value.split(b" ")[0].decode())
        msg = Message(partition=0, offset=self.offset)
        self.offset += 1
        self.pending.append((on_delivery, err, msg))

    def serve(self):
        pending, self.pending = self.pending, []
        for cb, err, msg in pending:
            cb(err, msg)
        return len(pending)

    def poll(self, timeout=None):
        self.calls.append(("poll", self.clock.ns, timeout))
        if timeout:
            self.clock.advance(timeout * 1e9)
        if self.on_poll is not None:
            self.on_poll(self)
        return 0 if self.hold else self.serve()

    def flush(self, timeout=None):
        self.calls.append(("flush", self.clock.ns, timeout))
        self.serve()
        return 0

    def __len__(self):
        return len(self.pending)

    def purge(self):
        """purge fails what is pending, served at the next poll."""
        self.calls.append(("purge", self.clock.ns))
        purged = KafkaError(KafkaError._PURGE_QUEUE)
        self.pending = [(cb, purged, Message(partition=-1)) for cb, _, _ in self.pending]
        self.hold = False

    def _txn(self, name):
        self.calls.append((name, self.clock.ns))
        err = self.txn_errors.get(name)
        if err is not None:
            raise err

    def init_transactions(self, timeout):
        self._txn("init_transactions")

    def begin_transaction(self):
        self._txn("begin_transaction")

    def commit_transaction(self, timeout):
        self._txn("commit_transaction")

    def abort_transaction(self, timeout):
        self._txn("abort_transaction")


class Commit:
    """Commit stands in for the TopicPartition that commit() returns."""

    def __init__(self, topic, partition, offset, error=None):
        self.topic, self.partition, self.offset, self.error = topic, partition, offset, error


class Consumer:
    """Consumer stands in for confluent_kafka.Consumer: consume() returns
    the next of batches (then nothing) and calls after_consume with how
    many it served; commit() records the offsets, from which thread, and
    answers them committed."""

    def __init__(self, batches=(), after_consume=None, conf=None):
        self.batches = list(batches)
        self.after_consume = after_consume
        self.conf = conf
        self.topics = []
        self.consumed = 0
        self.commits = []  # (topic, partition, offset, thread name)
        self.closed = False

    def consume(self, num_messages=1, timeout=-1):
        batch = self.batches.pop(0) if self.batches else []
        assert len(batch) <= num_messages, "a batch over num_messages"
        self.consumed += 1
        if self.after_consume is not None:
            self.after_consume(self.consumed)
        return batch

    def commit(self, offsets=None, asynchronous=True):
        assert not asynchronous
        name = driver.threading.current_thread().name
        self.commits.extend((tp.topic, tp.partition, tp.offset, name) for tp in offsets)
        return [Commit(tp.topic, tp.partition, tp.offset) for tp in offsets]

    def subscribe(self, topics):
        self.topics = list(topics)

    def close(self):
        self.closed = True
