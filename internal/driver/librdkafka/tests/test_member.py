"""The member role: its SQLite store, the handling order of
docs/driver-protocol.md ("Handling a record"), its commits and events, in
the poll loop and handed off to a worker, against a stand-in consumer."""

import os
import shutil
import sqlite3
import tempfile
import threading
import unittest
from unittest import mock

from confluent_kafka import KafkaError, KafkaException
from support import Commit, Consumer, DriverTest, Message, driver


class Crash(Exception):
    """Crash stands in for the SIGKILL a member gives itself."""


def message(offset, event=None, partition=0, product="p1"):
    """message is record m-(offset+1) of a product, with an event-id header
    when event is given."""
    return Message(partition=partition, offset=offset, key=product.encode(),
                   value=driver.value_of(offset + 1, 20), headers=[("event-id", event.encode())] if event else None)


class StoreTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.path = os.path.join(tmp, "store.db")
        self.store = driver.Store(self.path)
        self.addCleanup(self.store.close)

    def rows(self, sql):
        return self.store.db.execute(sql).fetchall()

    def test_opened_as_store_go_opens_it(self):
        self.assertEqual(self.rows("PRAGMA journal_mode"), [("wal",)])
        self.assertEqual(self.rows("PRAGMA synchronous"), [(2,)])  # FULL
        self.assertEqual(self.rows("PRAGMA busy_timeout"), [(5000,)])
        tables = {name for (name,) in self.rows("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self.assertEqual(tables, {"like_count", "applied", "event_handled"})

    def test_apply(self):
        self.store.apply("p1", "e-1", False)
        self.store.apply("p1", "e-2", False)
        self.store.apply("p2", "e-1", False)
        self.assertEqual(self.rows("SELECT product, count FROM like_count ORDER BY product"), [("p1", 2), ("p2", 1)])
        self.assertEqual(self.rows("SELECT event_id, times FROM applied ORDER BY event_id"), [("e-1", 2), ("e-2", 1)])
        self.assertFalse(self.store.handled("e-1"))

    def test_mark_handled(self):
        self.assertFalse(self.store.handled("e-1"))
        self.store.mark_handled("e-1")
        self.assertTrue(self.store.handled("e-1"))
        self.assertFalse(self.store.handled("e-2"))
        (at,) = self.rows("SELECT handled_at FROM event_handled")[0]
        self.assertRegex(at, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        with self.assertRaises(sqlite3.IntegrityError):
            self.store.mark_handled("e-1")

    def test_transactional_apply_is_one_transaction(self):
        self.store.apply("p1", "e-1", True)
        self.assertTrue(self.store.handled("e-1"))
        # A second insert of e-1 fails and takes the effect with it.
        with self.assertRaises(sqlite3.IntegrityError):
            self.store.apply("p1", "e-1", True)
        self.assertEqual(self.rows("SELECT count FROM like_count"), [(1,)])
        self.assertEqual(self.rows("SELECT times FROM applied"), [(1,)])
        self.assertFalse(self.store.db.in_transaction)

    def test_members_share_the_file(self):
        other = driver.Store(self.path)
        self.addCleanup(other.close)
        self.store.apply("p1", "e-1", True)
        self.assertTrue(other.handled("e-1"))
        other.apply("p1", "e-2", False)
        self.assertEqual(self.rows("SELECT count FROM like_count"), [(2,)])


class MemberTest(DriverTest):
    fake_clock = False  # the member's threads wait in real time

    def setUp(self):
        super().setUp()
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.store = driver.Store(os.path.join(tmp, "store.db"))
        self.addCleanup(self.store.close)

    def member(self, consumer=None, **spec):
        m = driver.Member(dict({"topic": "likes", "group": "g"}, **spec), consumer or Consumer(), self.store, driver.Events(1))
        m.crash = mock.Mock(side_effect=Crash)
        return m

    def events(self):
        return [(e["kind"], e["offset"]) for e in self.lines()]

    def applied(self):
        return self.store.db.execute("SELECT event_id, times FROM applied ORDER BY event_id").fetchall()

    def record(self, offset, event=None):
        return driver.Record(message(offset, event))

    def test_handle_order(self):
        cases = [
            # commit, dedup: the events of one record
            ("after", "none", [("effect", 4), ("commit", 5)]),
            ("before", "none", [("commit", 5), ("effect", 4)]),
            ("auto", "none", [("effect", 4)]),
            ("after", "table", [("effect", 4), ("handled", 4), ("commit", 5)]),
            ("before", "transactional", [("commit", 5), ("effect", 4), ("handled", 4)]),
        ]
        for commit, dedup, want in cases:
            with self.subTest(commit=commit, dedup=dedup):
                self.stdout.truncate(0)
                self.stdout.seek(0)
                m = self.member(commit=commit, dedup=dedup)
                m.handle(self.record(4, "e-%s-%s" % (commit, dedup)), m.commit if commit != "auto" else None)
                self.assertEqual(self.events(), want)

    def test_dedup_skips_what_was_handled(self):
        for dedup in ("table", "transactional"):
            with self.subTest(dedup=dedup):
                self.stdout.truncate(0)
                self.stdout.seek(0)
                m = self.member(commit="after", dedup=dedup)
                m.handle(self.record(0, "e-" + dedup), m.commit)
                m.handle(self.record(1, "e-" + dedup), m.commit)  # a redelivery under another offset
                self.assertEqual(self.events()[-2:], [("skip", 1), ("commit", 2)])
                self.assertEqual(dict(self.applied())["e-" + dedup], 1)

    def test_without_dedup_a_redelivery_applies_again(self):
        m = self.member(commit="auto", dedup="none")
        m.handle(self.record(0, "e-1"), None)
        m.handle(self.record(0, "e-1"), None)
        self.assertEqual(self.applied(), [("e-1", 2)])

    def test_event_id_defaults_to_the_message_id(self):
        m = self.member(dedup="table")
        m.handle(self.record(6), None)
        self.assertTrue(self.store.handled("m-007"))
        self.assertEqual(self.lines()[0].get("event"), None)

    def test_crash_points(self):
        cases = [
            # point, dedup: what the store has and what was reported before the crash
            ("work", "table", [], False, []),
            ("effect", "table", [("e-1", 1)], False, [("effect", 0)]),
            ("handled", "table", [("e-1", 1)], True, [("effect", 0), ("handled", 0)]),
            ("handled", "transactional", [("e-1", 1)], True, [("effect", 0), ("handled", 0)]),
        ]
        for point, dedup, applied, handled, reported in cases:
            with self.subTest(point=point, dedup=dedup):
                self.store.db.executescript("DELETE FROM applied; DELETE FROM event_handled; DELETE FROM like_count;")
                self.stdout.truncate(0)
                self.stdout.seek(0)
                m = self.member(commit="after", dedup=dedup, crash_at=2, crash_point=point)
                m.handle(self.record(9, "e-0"), m.commit)  # the first record: no crash
                self.stdout.truncate(0)
                self.stdout.seek(0)
                with self.assertRaises(Crash):
                    m.handle(self.record(0, "e-1"), m.commit)
                self.assertEqual([a for a in self.applied() if a[0] == "e-1"], applied)
                self.assertEqual(self.store.handled("e-1"), handled)
                self.assertEqual(self.events(), reported)  # never the commit
                self.assertEqual(m.crash.call_args[0][0].id, "m-001")

    def test_commit(self):
        c = Consumer()
        m = self.member(c)
        m.commit(self.record(41))
        self.assertEqual([x[:3] for x in c.commits], [("likes", 0, 42)])
        self.assertEqual(self.events(), [("commit", 42)])

    def test_commit_errors(self):
        c = Consumer()
        c.commit = mock.Mock(side_effect=KafkaException(KafkaError(KafkaError.REBALANCE_IN_PROGRESS)))
        with self.assertRaisesRegex(RuntimeError, "^committing likes partition 0 offset 42: .*REBALANCE_IN_PROGRESS"):
            self.member(c).commit(self.record(41))
        c.commit = mock.Mock(return_value=[Commit("likes", 0, 42, KafkaError(KafkaError.UNKNOWN_MEMBER_ID))])
        with self.assertRaisesRegex(RuntimeError, "^committing likes partition 0 offset 42: "):
            self.member(c).commit(self.record(41))
        self.assertEqual(self.events(), [])

    def test_on_commit(self):
        m = self.member()
        m.on_commit(None, [Commit("likes", 0, 10), Commit("likes", 1, -1001), Commit("other", 0, 3)])
        # The request failed as a whole (nothing new to commit): nothing.
        m.on_commit(KafkaError(KafkaError._NO_OFFSET), [Commit("likes", 0, 10)])
        # Some partitions failed: the others are reported.
        m.on_commit(KafkaError(KafkaError._NO_OFFSET),
                    [Commit("likes", 2, 7), Commit("likes", 3, 8, KafkaError(KafkaError.OFFSET_METADATA_TOO_LARGE))])
        m.on_commit(None, None)
        self.assertEqual([(e["kind"], e["partition"], e["offset"]) for e in self.lines()], [("commit", 0, 10), ("commit", 2, 7)])

    def test_consume(self):
        err = KafkaError(KafkaError._PARTITION_EOF)
        c = Consumer([[message(0), Message(error=err), message(1, "e-1")]])
        m = self.member(c, batch=3)
        with mock.patch.object(driver.sys, "stderr") as stderr:
            recs = m.consume()
        self.assertEqual([(r.offset, r.id, r.event, r.key) for r in recs], [(0, "m-001", "", "p1"), (1, "m-002", "e-1", "p1")])
        self.assertEqual(self.events(), [("deliver", 0), ("deliver", 1)])
        self.assertIn("member 1: ", "".join(str(call) for call in stderr.mock_calls))

    def test_consume_fatal(self):
        c = Consumer([[Message(error=KafkaError(KafkaError._FATAL, "fenced", fatal=True))]])
        with self.assertRaisesRegex(RuntimeError, "^consuming likes: "):
            self.member(c).consume()

    def test_run(self):
        term = threading.Event()
        batches = [[message(0), message(1)], [message(2)]]
        c = Consumer(batches, after_consume=lambda n: n == 2 and term.set())
        m = self.member(c, commit="after", batch=2)
        m.run(term)
        self.assertEqual(self.events(), [("deliver", 0), ("deliver", 1), ("effect", 0), ("commit", 1), ("effect", 1),
                                         ("commit", 2), ("deliver", 2), ("effect", 2), ("commit", 3)])
        self.assertEqual(m.n, 3)

    def handoff(self, commit, batches, **spec):
        term = threading.Event()
        c = Consumer(batches, after_consume=lambda n: n > len(batches) and term.set())
        m = self.member(c, commit=commit, batch=2, **spec)
        m.run_handoff(term)
        return c, m

    def test_handoff_after(self):
        batches = [[message(0), message(1)], [message(2), message(3)], [message(4)]]
        c, m = self.handoff("after", batches)
        self.assertEqual(m.n, 5)
        # Every record committed once, in order, by the poll loop; each
        # after its effect.
        self.assertEqual([(off, thread) for _, _, off, thread in c.commits], [(o, "MainThread") for o in range(1, 6)])
        events = self.events()
        for o in range(5):
            self.assertLess(events.index(("effect", o)), events.index(("commit", o + 1)))

    def test_handoff_before(self):
        c, m = self.handoff("before", [[message(0), message(1)], [message(2)]])
        self.assertEqual(m.n, 3)
        self.assertEqual([(off, thread) for _, _, off, thread in c.commits], [(o, "MainThread") for o in range(1, 4)])

    def test_handoff_auto_commits_nothing(self):
        c, m = self.handoff("auto", [[message(0), message(1)]])
        self.assertEqual((m.n, c.commits), (2, []))

    def test_handoff_worker_failure(self):
        term = threading.Event()
        c = Consumer([[message(0)], [message(1)]])  # no term: the failure ends the loop
        m = self.member(c, commit="after", batch=1, crash_at=1)
        with self.assertRaises(Crash):
            m.run_handoff(term)
        self.assertEqual(c.commits, [])


if __name__ == "__main__":
    unittest.main()
