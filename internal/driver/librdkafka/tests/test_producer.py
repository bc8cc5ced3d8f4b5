"""The producer role: the schedule of sends, the hand-off to the client
and the transactions, against a stand-in producer and clock."""

import json
import unittest

from confluent_kafka import KafkaError, KafkaException
from support import DriverTest, Producer, driver

MS = 1_000_000


class MessagesTest(unittest.TestCase):
    def test_intended_at_a_rate(self):
        m = driver.Messages({"topic": "t", "count": 5, "rate": 4})
        self.assertEqual([m.intended(i) for i in range(5)], [0, 250 * MS, 500 * MS, 750 * MS, 1000 * MS])
        # Times are i/rate rounded down, not accumulated: no drift.
        m = driver.Messages({"topic": "t", "rate": 3})
        self.assertEqual([m.intended(i) for i in (0, 1, 2, 3, 300)], [0, 333333333, 666666666, 1000000000, 100000000000])

    def test_no_rate_is_all_at_once(self):
        for spec in ({"topic": "t"}, {"topic": "t", "rate": 0}, {"topic": "t", "rate": None}):
            m = driver.Messages(spec)
            self.assertEqual([m.intended(i) for i in range(3)], [0, 0, 0])

    def test_defaults(self):
        m = driver.Messages({"topic": "orders"})
        self.assertEqual((m.topic, m.count, m.first, m.size, m.headers), ("orders", 0, 1, 0, None))
        self.assertIsNone(m.key(1))
        with self.assertRaises(KeyError):
            driver.Messages({"count": 1})  # no topic

    def test_keys(self):
        m = driver.Messages({"topic": "t", "keys": 3, "key": "ignored"})
        self.assertEqual([m.key(n) for n in range(1, 7)], ["k1", "k2", "k0", "k1", "k2", "k0"])
        m = driver.Messages({"topic": "t", "key": "fixed"})
        self.assertEqual([m.key(n) for n in (1, 2)], ["fixed", "fixed"])

    def test_event_id_header(self):
        self.assertEqual(driver.Messages({"topic": "t", "event_id": "e-1"}).headers, [("event-id", b"e-1")])
        self.assertIsNone(driver.Messages({"topic": "t", "event_id": ""}).headers)


class PaceTest(DriverTest):
    def test_due_does_not_poll(self):
        p = Producer(self.clock)
        self.clock.advance(10 * MS)
        self.assertTrue(driver.pace(p, self.clock() - 10 * MS, 10 * MS))
        self.assertTrue(driver.pace(p, self.clock() - 10 * MS, 5 * MS))
        self.assertEqual(p.calls, [])

    def test_polls_in_slices_until_due(self):
        p = Producer(self.clock)
        t0 = self.clock()
        self.assertTrue(driver.pace(p, t0, 120 * MS))
        self.assertEqual([c[2] for c in p.calls], [0.05, 0.05, 0.02])
        self.assertEqual(self.clock() - t0, 120 * MS)

    def test_writes_due_lines_while_waiting(self):
        p = Producer(self.clock)
        driver.OUT.line("waiting")
        driver.pace(p, self.clock(), 40 * MS)
        self.assertEqual(self.stdout.getvalue(), "")
        driver.pace(p, self.clock() - 40 * MS, 60 * MS)
        self.assertEqual(self.stdout.getvalue(), "waiting\n")

    def test_stop(self):
        p = Producer(self.clock, on_poll=lambda p: driver.STOP.set())
        self.assertFalse(driver.pace(p, self.clock(), 1000 * MS))
        self.assertEqual(len(p.calls), 1)
        self.assertFalse(driver.pace(p, self.clock(), 0))  # stopped: even a due message is not sent


class ProduceTest(DriverTest):
    def test_on_schedule(self):
        p = Producer(self.clock)
        t0 = self.clock()
        spec = {"topic": "t", "count": 4, "rate": 100, "from": 9, "keys": 2, "size": 8, "event_id": "e-5"}
        sent, max_lag = driver.produce(p, spec, t0)
        self.assertEqual((sent, max_lag), (4, 0))
        self.assertEqual(p.produced, [
            (t0 + 0 * MS, "t", b"m-009 ..", b"k1", [("event-id", b"e-5")]),
            (t0 + 10 * MS, "t", b"m-010 ..", b"k0", [("event-id", b"e-5")]),
            (t0 + 20 * MS, "t", b"m-011 ..", b"k1", [("event-id", b"e-5")]),
            (t0 + 30 * MS, "t", b"m-012 ..", b"k0", [("event-id", b"e-5")]),
        ])
        p.flush()
        driver.OUT.flush()
        got = [(e["name"], e["n"], e["offset"], e["key"], e["intended_ns"]) for e in self.lines()]
        self.assertEqual(got, [("producer_send_success", n, n - 9, "k%d" % (n % 2), (n - 9) * 10 * MS) for n in range(9, 13)])

    def test_a_full_queue_delays_the_hand_off(self):
        p = Producer(self.clock, full=3)
        sent, max_lag = driver.produce(p, {"topic": "t", "count": 2}, self.clock())
        # Three refusals of m-001, each followed by a 10 ms poll; then m-002.
        self.assertEqual([c[0] for c in p.calls], ["produce", "poll"] * 3 + ["produce", "poll", "produce", "poll"])
        self.assertEqual((sent, max_lag), (2, 30 * MS))
        self.assertEqual([v for _, _, v, _, _ in p.produced], [b"m-001", b"m-002"])

    def test_a_refused_record_is_a_failed_send(self):
        p = Producer(self.clock, refuse=ValueError("Message size too large"))
        sent, _ = driver.produce(p, {"topic": "t", "count": 2}, self.clock())
        self.assertEqual(sent, 2)  # handed to the client, which refused it
        driver.OUT.flush()
        got = [(e["name"], e["n"], e["class"], e["error"], e["message"], e["partition"]) for e in self.lines()]
        want = ("failed", "_INVALID_ARG", "Message size too large", -1)
        self.assertEqual(got, [("producer_send_error", n, *want) for n in (1, 2)])

    def test_stop(self):
        polls = []

        def on_poll(p):
            polls.append(1)
            if len(polls) == 3:
                driver.STOP.set()

        p = Producer(self.clock, on_poll=on_poll)
        sent, _ = driver.produce(p, {"topic": "t", "count": 10, "rate": 10}, self.clock())
        # m-001 at once (and its poll(0)); m-002 is due in 100 ms: the
        # run stops during the second 50 ms poll of that wait.
        self.assertEqual(sent, 1)
        self.assertEqual(len(p.produced), 1)

    def test_nothing_to_send(self):
        p = Producer(self.clock)
        self.assertEqual(driver.produce(p, {"topic": "t"}, self.clock()), (0, 0))
        self.assertEqual(p.calls, [])


def stats(pid, epoch):
    """stats is a statistics sample of librdkafka with its eos object."""
    return json.dumps({"name": "rdkafka#producer-1", "eos": {"producer_id": pid, "producer_epoch": epoch}})


def timeout():
    return KafkaException(KafkaError(KafkaError._TIMED_OUT))


class TxnTest(DriverTest):
    def run_txn(self, spec, **kwargs):
        ids = driver.TxnIds()
        # Each poll serves a statistics sample, as librdkafka does every
        # statistics.interval.ms: epoch 0 of producer id 4000.
        p = Producer(self.clock, on_poll=lambda p: ids.on_stats(stats(4000, 0)), **kwargs)
        self.p = p
        result = driver.produce_txn(p, dict({"topic": "t", "transactional_id": "tx"}, **spec), self.clock(), ids)
        driver.OUT.flush()
        return result

    def ends(self):
        return [e for e in self.lines() if e["name"] == "transaction_end"]

    def test_transactions(self):
        sent, _ = self.run_txn({"count": 7, "txn_size": 3, "abort_every": 2, "from": 11})
        self.assertEqual(sent, 7)
        got = [(e["txn"], e["first"], e["count"], e["outcome"], e["on_purpose"], e["producer_id"], e["epoch"], e["error"])
               for e in self.ends()]
        self.assertEqual(got, [
            (1, 11, 3, "committed", False, 4000, 0, ""),
            (2, 14, 3, "aborted", True, 4000, 0, ""),
            (3, 17, 1, "committed", False, 4000, 0, ""),
        ])
        calls = [c[0] for c in self.p.calls if c[0].endswith("_transaction") or c[0] == "init_transactions"]
        self.assertEqual(calls, ["init_transactions", "begin_transaction", "commit_transaction", "begin_transaction",
                                 "abort_transaction", "begin_transaction", "commit_transaction"])
        # Each transaction's send lines come before its end.
        names = [(e["name"], e.get("n", e.get("txn"))) for e in self.lines()]
        self.assertEqual(names.index(("transaction_end", 1)), 3)
        self.assertEqual(names.index(("transaction_end", 2)), 7)

    def test_an_error_aborts_its_transaction(self):
        self.run_txn({"count": 4, "txn_size": 2}, errors={"m-002": KafkaError(KafkaError._MSG_TIMED_OUT)})
        got = [(e["outcome"], e["on_purpose"], e["error"]) for e in self.ends()]
        self.assertEqual(got, [
            ("aborted", False, "_MSG_TIMED_OUT: Local: Message timed out"),
            ("committed", False, ""),
        ])

    def test_an_end_without_answer_stops(self):
        sent, _ = self.run_txn({"count": 6, "txn_size": 2}, txn_errors={"commit_transaction": timeout()})
        self.assertEqual(sent, 2)
        got = [(e["txn"], e["outcome"], e["error"]) for e in self.ends()]
        self.assertEqual(got, [(1, "unknown", "_TIMED_OUT: Local: Timed out")])

    def test_init_fails(self):
        self.assertEqual(self.run_txn({"count": 2}, txn_errors={"init_transactions": timeout()}), (0, 0))
        got = [(e["txn"], e["first"], e["count"], e["outcome"], e["producer_id"], e["error"], e["start_ns"]) for e in self.ends()]
        self.assertEqual(got, [(1, 1, 0, "unknown", -1, "init_transactions: _TIMED_OUT: Local: Timed out", 0)])

    def test_begin_fails(self):
        err = KafkaException(KafkaError(KafkaError._FATAL, "fenced"))
        self.assertEqual(self.run_txn({"count": 2}, txn_errors={"begin_transaction": err}), (0, 0))
        got = [(e["txn"], e["count"], e["outcome"], e["error"]) for e in self.ends()]
        self.assertEqual(got, [(1, 0, "unknown", "begin_transaction: _FATAL: fenced")])

    def test_stop_aborts_the_transaction_in_hand(self):
        produced = []

        def on_poll(p):
            if len(p.produced) == 3 and not produced:
                produced.append(1)
                driver.STOP.set()

        ids = driver.TxnIds()
        p = Producer(self.clock, on_poll=on_poll)
        sent, _ = driver.produce_txn(p, {"topic": "t", "count": 10, "txn_size": 4}, self.clock(), ids)
        driver.OUT.flush()
        self.assertEqual(sent, 3)
        got = [(e["txn"], e["count"], e["outcome"], e["on_purpose"], e["error"]) for e in self.ends()]
        self.assertEqual(got, [(1, 3, "aborted", False, "the run ended first")])

    def test_a_fatal_error_from_poll_ends_the_transaction_unknown(self):
        # librdkafka raises its fatal error (_FENCED, once the coordinator
        # rolled the transaction back and bumped the epoch) from poll: the
        # transaction in hand ends unknown and nothing more is sent.
        def on_poll(p):
            if len(p.produced) == 3:
                raise KafkaException(KafkaError(KafkaError._FENCED, "fenced"))

        ids = driver.TxnIds()
        p = Producer(self.clock, on_poll=on_poll)
        sent, _ = driver.produce_txn(p, {"topic": "t", "transactional_id": "tx", "count": 10, "txn_size": 4}, self.clock(), ids)
        driver.OUT.flush()
        self.assertEqual(sent, 2)
        self.assertEqual(len(p.produced), 3)
        got = [(e["txn"], e["count"], e["outcome"], e["error"]) for e in self.ends()]
        self.assertEqual(got, [(1, 2, "unknown", "_FENCED: fenced")])
        calls = [c[0] for c in p.calls if c[0].endswith("_transaction")]
        self.assertEqual(calls, ["begin_transaction"])


class TxnIdsTest(DriverTest):
    def test_on_stats(self):
        ids = driver.TxnIds()
        self.assertEqual((ids.pid, ids.epoch, ids.seen), (-1, -1, 0))
        ids.on_stats(stats(7, 2))
        self.assertEqual((ids.pid, ids.epoch, ids.seen), (7, 2, 1))
        ids.on_stats("not json")  # ignored
        self.assertEqual((ids.pid, ids.epoch, ids.seen), (7, 2, 1))
        ids.on_stats("{}")  # a sample without eos: no producer id yet
        self.assertEqual((ids.pid, ids.epoch, ids.seen), (-1, -1, 2))

    def test_fresh_waits_for_a_new_sample(self):
        ids = driver.TxnIds()
        ids.on_stats(stats(1, 0))
        polls = []

        def on_poll(p):
            polls.append(1)
            if len(polls) == 3:
                ids.on_stats(stats(1, 1))

        self.assertEqual(ids.fresh(Producer(self.clock, on_poll=on_poll)), (1, 1))
        self.assertEqual(len(polls), 3)

    def test_fresh_gives_up(self):
        ids = driver.TxnIds()
        ids.on_stats(stats(1, 0))
        t = self.clock()
        self.assertEqual(ids.fresh(Producer(self.clock), limit_s=0.1), (1, 0))
        self.assertGreaterEqual(self.clock() - t, 100 * MS)

    def test_txn_properties(self):
        self.assertEqual(driver.txn_properties({"acks": "all"}, {}), {"acks": "all"})
        self.assertEqual(driver.txn_properties({}, {"transactional_id": "tx"}),
                         {"transactional.id": "tx", "statistics.interval.ms": "100"})
        self.assertEqual(driver.txn_properties({"statistics.interval.ms": "1000"}, {"transactional_id": "tx"}),
                         {"transactional.id": "tx", "statistics.interval.ms": "1000"})

    def test_set_by_kafkabook(self):
        spec = {"transactional_id": "tx"}
        self.assertEqual(driver.set_by_kafkabook(driver.txn_properties({}, spec), spec),
                         ["statistics.interval.ms", "transactional.id"])
        given = {"transactional_id": "tx", "properties": {"statistics.interval.ms": "1000"}}
        self.assertEqual(driver.set_by_kafkabook(driver.txn_properties({"statistics.interval.ms": "1000"}, given), given),
                         ["transactional.id"])
        self.assertEqual(driver.set_by_kafkabook({"acks": "all"}, {}), [])
        line = json.loads(driver.startup_complete({}, "", ["transactional.id"]))
        self.assertEqual(line["set_by_kafkabook"], ["transactional.id"])

    def test_describe(self):
        self.assertEqual(driver.describe(KafkaException(KafkaError(KafkaError._FENCED, "fenced by epoch 3"))),
                         "_FENCED: fenced by epoch 3")
        self.assertEqual(driver.describe(RuntimeError("boom")), "RuntimeError: boom")
        self.assertEqual(driver.describe(KafkaException("text")), "KafkaException: text")


if __name__ == "__main__":
    unittest.main()
