"""The driver's output: the batching of OUT, the lines it writes and the
class of a failed send."""

import io
import json
import os
import re
import unittest
from importlib import metadata
from unittest import mock

from confluent_kafka import KafkaError
from support import DriverTest, Message, driver


class OutTest(DriverTest):
    def test_buffers_until_flush(self):
        driver.OUT.line("a")
        driver.OUT.line("b")
        self.assertEqual(self.stdout.getvalue(), "")
        driver.OUT.flush()
        self.assertEqual(self.stdout.getvalue(), "a\nb\n")
        driver.OUT.flush()  # nothing new: nothing written
        self.assertEqual(self.stdout.getvalue(), "a\nb\n")
        self.assertEqual((driver.OUT.buf, driver.OUT.size), ([], 0))

    def test_flushes_at_64_kib(self):
        # A line counts its length and its newline: 64 lines of 1023
        # characters reach FLUSH_BYTES exactly, on the 64th.
        line = "x" * 1023
        for _ in range(63):
            driver.OUT.line(line)
        self.assertEqual(self.stdout.getvalue(), "")
        driver.OUT.line(line)
        self.assertEqual(len(self.stdout.getvalue()), driver.FLUSH_BYTES)
        self.assertEqual(driver.OUT.size, 0)

    def test_flushes_after_50_ms(self):
        driver.OUT.line("a")
        self.clock.advance(driver.FLUSH_EVERY_NS - 1)
        driver.OUT.line("b")
        driver.OUT.line_flush_due()
        self.assertEqual(self.stdout.getvalue(), "")
        self.clock.advance(1)
        driver.OUT.line("c")  # due: written with the line
        self.assertEqual(self.stdout.getvalue(), "a\nb\nc\n")
        driver.OUT.line("d")
        self.clock.advance(driver.FLUSH_EVERY_NS)
        driver.OUT.line_flush_due()
        self.assertEqual(self.stdout.getvalue(), "a\nb\nc\nd\n")

    def test_an_empty_flush_restarts_the_interval(self):
        self.clock.advance(driver.FLUSH_EVERY_NS)
        driver.OUT.flush()
        self.clock.advance(driver.FLUSH_EVERY_NS - 1)
        driver.OUT.line("a")
        self.assertEqual(self.stdout.getvalue(), "")

    def test_a_closed_stdout_stops_the_run(self):
        class Gone(io.StringIO):
            def write(self, s):
                raise BrokenPipeError

        with mock.patch.object(driver.sys, "stdout", Gone()):
            driver.OUT.line("a")
            driver.OUT.flush()
        self.assertTrue(driver.STOP.is_set())
        self.assertEqual(driver.OUT.buf, [])


class ValuesTest(unittest.TestCase):
    def test_message_id(self):
        for n, want in ((1, "m-001"), (42, "m-042"), (999, "m-999"), (1000, "m-1000"), (0, "m-000"), (-3, "m--3")):
            self.assertEqual(driver.message_id(n), want)

    def test_value_of(self):
        self.assertEqual(driver.value_of(7, 0), b"m-007")
        self.assertEqual(driver.value_of(7, 6), b"m-007")  # no room for a blank and filler
        self.assertEqual(driver.value_of(7, 7), b"m-007 .")
        self.assertEqual(driver.value_of(1234, 16), b"m-1234 .........")
        self.assertEqual(len(driver.value_of(5, 1000)), 1000)


class ClassifyTest(unittest.TestCase):
    def test_unknown(self):
        for code in sorted(driver.UNKNOWN):
            with self.subTest(KafkaError(code).name()):
                self.assertEqual(driver.classify(KafkaError(code)), "unknown")

    def test_retriable_is_unknown(self):
        self.assertEqual(driver.classify(KafkaError(KafkaError.LEADER_NOT_AVAILABLE, retriable=True)), "unknown")

    def test_failed(self):
        for err in (KafkaError(KafkaError.NOT_ENOUGH_REPLICAS),
                    KafkaError(KafkaError.NOT_ENOUGH_REPLICAS, retriable=True),  # refused before the append
                    KafkaError(KafkaError.MSG_SIZE_TOO_LARGE),
                    KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED),
                    KafkaError(KafkaError._INVALID_ARG, "refused by produce()")):
            with self.subTest(err.name()):
                self.assertEqual(driver.classify(err), "failed")

    def test_unknown_is_the_protocols(self):
        # docs/driver-protocol.md's class table names librdkafka's unknown
        # errors; the two must agree.
        doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4, "docs", "driver-protocol.md")
        if not os.path.exists(doc):
            self.skipTest("%s is not here" % doc)
        with open(doc, encoding="utf-8") as f:
            row = next(line for line in f if line.startswith("| `unknown` |"))
        names = set(re.findall(r"`([A-Z_]+)`", row.rsplit("|", 2)[1]))
        self.assertEqual({KafkaError(code).name() for code in driver.UNKNOWN}, names)


class ReportTest(DriverTest):
    def test_success(self):
        t0 = self.clock()
        done = driver.report("orders", 7, "k1", 3_000_000, t0)
        self.clock.advance(5_000_000)
        done(None, Message(partition=2, offset=41))
        driver.OUT.flush()
        # The exact bytes: the success line is a template, not json.dumps.
        self.assertEqual(self.stdout.getvalue(),
                         '{"name":"producer_send_success","n":7,"topic":"orders","partition":2,"offset":41,'
                         '"key":"k1","value":"m-007","intended_ns":3000000,"ack_ns":5000000}\n')

    def test_success_without_offset(self):
        # acks=0: librdkafka reports no offset (-1001); a line says -1.
        for offset in (None, -1001):
            driver.report("t", 1, None, 0, self.clock())(None, Message(offset=offset))
        driver.OUT.flush()
        self.assertEqual([(e["offset"], e["key"]) for e in self.lines()], [(-1, None), (-1, None)])

    def test_error(self):
        errs = []
        t0 = self.clock()
        done = driver.report("t\"x", 12, None, 1_000, t0, errs)
        self.clock.advance(9_000)
        err = KafkaError(KafkaError._MSG_TIMED_OUT)
        done(err, Message(partition=1))
        done(KafkaError(KafkaError.MSG_SIZE_TOO_LARGE), None)  # refused by produce(): no message
        driver.OUT.flush()
        first, second = self.lines()
        self.assertEqual(first, {
            "name": "producer_send_error", "n": 12, "topic": "t\"x", "partition": 1, "offset": -1,
            "class": "unknown", "error": "_MSG_TIMED_OUT", "exception": "KafkaError",
            "message": "Local: Message timed out", "key": None, "value": "m-012",
            "intended_ns": 1_000, "ack_ns": 9_000})
        self.assertEqual((second["partition"], second["class"]), (-1, "failed"))
        self.assertEqual([e.name() for e in errs], ["_MSG_TIMED_OUT", "MSG_SIZE_TOO_LARGE"])
        compact = self.stdout.getvalue().splitlines()[0]  # json.dumps with separators=(",", ":")
        self.assertNotIn('": ', compact)
        self.assertNotIn(', "', compact)


class EventsTest(DriverTest):
    def record(self, key=b"p1", value=b"m-004 ....", headers=None):
        return driver.Record(Message(partition=2, offset=9, key=key, value=value, headers=headers))

    def test_report(self):
        ev = driver.Events(3)
        ev.report("commit", 1, 10)
        ev.report("deliver", 2, 9, self.record())
        ev.report("effect", 2, 9, self.record(headers=[("event-id", b"e-17")]))
        ev.report("skip", 2, 9, self.record(headers=[("event-id", b"m-004")]))  # the same as the id: left out
        lines = self.stdout.getvalue().splitlines()
        self.assertEqual(len(lines), 4)  # each written at once, not batched
        at = re.compile(r'^\{"at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z",')
        for line in lines:
            self.assertRegex(line, at)
        got = [{k: v for k, v in json.loads(s).items() if k != "at"} for s in lines]
        self.assertEqual(got, [
            {"member": 3, "kind": "commit", "partition": 1, "offset": 10},
            {"member": 3, "kind": "deliver", "partition": 2, "offset": 9, "id": "m-004"},
            {"member": 3, "kind": "effect", "partition": 2, "offset": 9, "id": "m-004", "event": "e-17"},
            {"member": 3, "kind": "skip", "partition": 2, "offset": 9, "id": "m-004"},
        ])

    def test_write_survives_a_closed_stdout(self):
        class Gone(io.StringIO):
            def write(self, s):
                raise BrokenPipeError

        with mock.patch.object(driver.sys, "stdout", Gone()):
            driver.Events(0).write("{}")  # no exception: the stdin watcher ends the member

    def test_record(self):
        rec = self.record(key=None, value=None, headers=[("other", b"x"), ("event-id", None)])
        self.assertEqual((rec.partition, rec.offset, rec.key, rec.id, rec.event), (2, 9, "", "", ""))
        rec = self.record(key=b"\xff", value=b"m-010", headers=[("event-id", b"e-1")])
        self.assertEqual((rec.key, rec.id, rec.event), ("\ufffd", "m-010", "e-1"))


class StartupCompleteTest(unittest.TestCase):
    def test_line(self):
        got = json.loads(driver.startup_complete({"acks": "-1"}, ""))
        self.assertEqual(got["name"], "startup_complete")
        self.assertEqual((got["client"], got["library"]), ("librdkafka", "confluent-kafka"))
        # The release pip installed (confluent_kafka.version() is a string in
        # 2.16 and was a (string, int) pair before).
        self.assertEqual(got["version"], metadata.version("confluent-kafka"))
        self.assertEqual(got["librdkafka_version"], driver.confluent_kafka.libversion()[0])
        self.assertRegex(got["runtime"], r"^python 3\.\d+\.\d+")
        self.assertEqual((got["config"], got["config_error"]), ({"acks": "-1"}, ""))


if __name__ == "__main__":
    unittest.main()
