"""The start of a run: the spec line, the client's properties, the
configuration librdkafka reports in force, and the driver run as kafkabook
runs it (python -I on this machine; runpy.run_path in a Kubernetes pod)."""

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import unittest
from unittest import mock

from support import Consumer, DriverTest, Message, Producer, driver

DRIVER = driver.__file__


class PropertiesTest(unittest.TestCase):
    def test_producer(self):
        spec = {"bootstrap_servers": ["10.0.0.1:9092", "10.0.0.2:9092"],
                "properties": {"linger.ms": 5, "enable.idempotence": False, "acks": "1", "delivery.timeout.ms": 30000}}
        self.assertEqual(driver.properties(spec), {
            "bootstrap.servers": "10.0.0.1:9092,10.0.0.2:9092", "linger.ms": "5", "enable.idempotence": "False",
            "acks": "1", "delivery.timeout.ms": "30000"})

    def test_producer_defaults(self):
        self.assertEqual(driver.properties({"bootstrap_servers": ["b:1"], "properties": None}),
                         {"bootstrap.servers": "b:1"})

    def test_member(self):
        spec = {"bootstrap_servers": ["b:1"], "group": "g", "commit": "after", "auto_commit_ms": 200}
        self.assertEqual(driver.member_properties(spec), {
            "bootstrap.servers": "b:1", "group.id": "g", "auto.offset.reset": "earliest",
            "isolation.level": "read_uncommitted", "enable.auto.commit": "false"})

    def test_member_auto_commit(self):
        spec = {"bootstrap_servers": ["b:1"], "group": "g", "commit": "auto", "auto_commit_ms": 200,
                "properties": {"enable.auto.offset.store": "false", "isolation.level": "read_committed"}}
        conf = driver.member_properties(spec)
        self.assertEqual((conf["enable.auto.commit"], conf["auto.commit.interval.ms"]), ("true", "200"))
        # The spec's properties win.
        self.assertEqual((conf["enable.auto.offset.store"], conf["isolation.level"]), ("false", "read_committed"))
        self.assertNotIn("auto.commit.interval.ms", driver.member_properties(dict(spec, auto_commit_ms=0)))


class EffectiveConfigTest(unittest.TestCase):
    """effective_config builds a librdkafka twin of the client through
    ctypes, which needs no broker: it never connects."""

    def test_producer_defaults(self):
        config, why = driver.effective_config({"bootstrap.servers": "10.0.0.1:9092"})
        self.assertEqual(why, "")
        self.assertEqual(config["bootstrap.servers"], "10.0.0.1:9092")
        self.assertEqual((config["request.required.acks"], config["enable.idempotence"]), ("-1", "false"))

    def test_finalized(self):
        # What rd_kafka_new derives, not what was set: idempotence caps the
        # requests in flight at 5.
        config, _ = driver.effective_config({"bootstrap.servers": "b:1"})
        self.assertEqual(config["max.in.flight.requests.per.connection"], "1000000")
        config, _ = driver.effective_config({"bootstrap.servers": "b:1", "enable.idempotence": "true"})
        self.assertEqual(config["max.in.flight.requests.per.connection"], "5")
        self.assertEqual((config["enable.idempotence"], config["request.required.acks"]), ("true", "-1"))

    def test_secrets_hidden(self):
        config, why = driver.effective_config({"bootstrap.servers": "b:1", "security.protocol": "sasl_plaintext",
                                               "sasl.mechanisms": "PLAIN", "sasl.username": "u", "sasl.password": "pw",
                                               "sasl.oauthbearer.client.secret": "s3"})
        self.assertEqual(why, "")
        self.assertEqual((config["sasl.username"], config["sasl.password"]), ("u", "[hidden]"))
        self.assertEqual(config["sasl.oauthbearer.client.secret"], "[hidden]")
        self.assertFalse({"pw", "s3"} & set(config.values()))

    def test_refused(self):
        config, why = driver.effective_config({"bootstrap.servers": "b:1", "no.such.property": "1"})
        self.assertEqual(config, {})
        self.assertIn("no.such.property", why)
        config, why = driver.effective_config({"bootstrap.servers": "b:1", "enable.idempotence": "true", "acks": "1"})
        self.assertEqual(config, {})
        self.assertNotEqual(why, "")

    def consumer_config(self):
        conf = driver.member_properties({"bootstrap_servers": ["b:1"], "group": "g", "commit": "auto", "auto_commit_ms": 250})
        config, why = driver.effective_config(conf, driver.RD_KAFKA_CONSUMER)
        self.assertEqual(why, "")
        return config

    def test_consumer(self):
        config = self.consumer_config()
        want = {"group.id": "g", "enable.auto.commit": "true", "auto.offset.reset": "smallest",
                "isolation.level": "read_uncommitted"}
        self.assertEqual({k: config[k] for k in want}, want)

    def test_consumer_auto_commit_interval(self):
        # The global and the default topic configuration both have an
        # auto.commit.interval.ms (the topic's is the legacy consumer's,
        # 60000): the dump keeps the global one, the one in force.
        self.assertEqual(self.consumer_config()["auto.commit.interval.ms"], "250")


class MainTest(DriverTest):
    """main runs against a stand-in Producer (self.producers, each with the
    conf it was built with), with stdin a StringIO and no stdin watcher: one
    that sees stdin end exits the process."""

    def setUp(self):
        super().setUp()
        self.producers = []

        def make(conf):
            p = Producer(self.clock)
            p.conf = conf
            self.producers.append(p)
            return p

        for name, value in (("Producer", make), ("watch_stdin", lambda: None)):
            patcher = mock.patch.object(driver, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)

    def main(self, *lines):
        with mock.patch.object(driver.sys, "stdin", io.StringIO("".join(line + "\n" for line in lines))):
            return driver.main()

    def test_no_spec(self):
        self.assertEqual(self.main(), 0)
        self.assertEqual(self.stdout.getvalue(), "")

    def test_bad_spec(self):
        self.assertEqual(self.main("{not json"), 2)
        (line,) = self.lines()
        self.assertEqual((line["name"], line["exception"]), ("startup_error", "JSONDecodeError"))
        self.assertTrue(line["message"].startswith("bad spec: "))

    def test_no_brokers(self):
        self.assertEqual(self.main(json.dumps({"topic": "t"})), 2)
        self.assertEqual(self.lines(), [{"name": "startup_error", "exception": "KeyError", "message": "'bootstrap_servers'"}])

    def test_startup_without_start(self):
        spec = {"bootstrap_servers": ["10.0.0.1:9092"], "topic": "t", "count": 3, "properties": {"acks": "1"}}
        self.assertEqual(self.main(json.dumps(spec)), 0)
        (line,) = self.lines()
        self.assertEqual(line["name"], "startup_complete")
        self.assertEqual(line["config"]["request.required.acks"], "1")
        self.assertEqual(self.producers[0].conf, {"bootstrap.servers": "10.0.0.1:9092", "acks": "1"})
        self.assertEqual(self.producers[0].produced, [])

    def test_run(self):
        spec = {"bootstrap_servers": ["b:1"], "topic": "t", "count": 3, "rate": 10}
        self.assertEqual(self.main(json.dumps(spec), '{"command":"start"}'), 0)
        lines = self.lines()
        self.assertEqual([e["name"] for e in lines], ["startup_complete"] + ["producer_send_success"] * 3 + ["shutdown_complete"])
        self.assertEqual((lines[-1]["sent"], lines[-1]["max_lag_ns"], lines[-1]["end_ns"]), (3, 0, 200_000_000))

    def test_transactional(self):
        spec = {"bootstrap_servers": ["b:1"], "topic": "t", "count": 2, "txn_size": 2, "transactional_id": "tx"}
        self.assertEqual(self.main(json.dumps(spec), '{"command":"start"}'), 0)
        conf = self.producers[0].conf
        self.assertEqual((conf["transactional.id"], conf["statistics.interval.ms"]), ("tx", "100"))
        self.assertEqual(conf["stats_cb"].__self__.__class__, driver.TxnIds)
        names = [e["name"] for e in self.lines()]
        self.assertEqual(names, ["startup_complete", "producer_send_success", "producer_send_success",
                                 "transaction_end", "shutdown_complete"])

    def test_stopped_run_purges(self):
        # No answer comes; the run stops (stdin ended) after two sends: the
        # records waiting for their answer are purged and reported unknown.
        def on_poll(p):
            if len(p.produced) == 2:
                driver.STOP.set()

        spec = {"bootstrap_servers": ["b:1"], "topic": "t", "count": 5, "rate": 10}
        with mock.patch.object(driver, "Producer", lambda conf: Producer(self.clock, on_poll=on_poll, hold=True)):
            self.assertEqual(self.main(json.dumps(spec), '{"command":"start"}'), 0)
        got = [(e["name"], e.get("n"), e.get("class"), e.get("error")) for e in self.lines()[1:]]
        self.assertEqual(got, [("producer_send_error", 1, "unknown", "_PURGE_QUEUE"),
                               ("producer_send_error", 2, "unknown", "_PURGE_QUEUE"),
                               ("shutdown_complete", None, None, None)])
        self.assertEqual(self.lines()[-1]["sent"], 2)

    def test_refused_property(self):
        spec = {"bootstrap_servers": ["b:1"], "topic": "t", "properties": {"no.such.property": "1"}}
        with mock.patch.object(driver, "Producer", driver.confluent_kafka.Producer):
            self.assertEqual(self.main(json.dumps(spec)), 2)
        (line,) = self.lines()
        self.assertEqual((line["name"], line["exception"]), ("startup_error", "KafkaException"))
        self.assertIn("no.such.property", line["message"])


class BlockingStdin:
    """BlockingStdin is a stdin that never ends: the member's stdin watcher
    kills the process (SIGKILL) when its stdin ends. entered is set once
    the watcher waits on it, after which the real stdin is safe to put
    back."""

    def __init__(self):
        self.entered = threading.Event()

    def __iter__(self):
        self.entered.set()
        threading.Event().wait()
        return iter(())


class MemberMainTest(DriverTest):
    fake_clock = False

    def setUp(self):
        super().setUp()
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.spec = {"role": "member", "member": 2, "bootstrap_servers": ["b:1"], "group": "g", "topic": "likes",
                     "store": os.path.join(tmp, "store.db"), "commit": "after"}
        for sig in (signal.SIGTERM, signal.SIGINT):
            self.addCleanup(signal.signal, sig, signal.getsignal(sig))

    def test_refused_property(self):
        spec = dict(self.spec, properties={"no.such.property": "1"})
        self.assertEqual(driver.member_main(spec), 2)
        (line,) = self.lines()
        self.assertEqual((line["name"], line["exception"]), ("startup_error", "KafkaException"))

    def test_run_until_sigterm(self):
        consumers = []

        def make(conf):
            # SIGTERM, as kafkabook stops a member, after the second poll.
            def after(n):
                if n == 2:
                    signal.raise_signal(signal.SIGTERM)

            c = Consumer([[Message(offset=0, key=b"p1", value=b"m-001")]], after_consume=after, conf=conf)
            consumers.append(c)
            return c

        stdin = BlockingStdin()
        with mock.patch.object(driver, "Consumer", make), mock.patch.object(driver.sys, "stdin", stdin):
            self.assertEqual(driver.member_main(self.spec), 0)
            self.assertTrue(stdin.entered.wait(10), "the stdin watcher did not start")
        (c,) = consumers
        self.assertEqual((c.topics, c.closed, c.conf["group.id"]), (["likes"], True, "g"))
        self.assertTrue(callable(c.conf["on_commit"]))
        lines = self.lines()
        self.assertEqual(lines[0]["name"], "startup_complete")
        self.assertEqual(lines[0]["config"]["group.id"], "g")
        self.assertEqual([(e["kind"], e["member"]) for e in lines[1:-1]], [("deliver", 2), ("effect", 2), ("commit", 2)])
        self.assertEqual(lines[-1], {"name": "shutdown_complete"})


class RunTest(unittest.TestCase):
    """The driver run as a program, as kafkabook runs it: a bad spec must
    come back as a startup_error line and exit 2 both ways."""

    def run_driver(self, argv, stdin):
        return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60, check=False)

    def check(self, argv):
        r = self.run_driver(argv, "{not json\n")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(json.loads(r.stdout)["name"], "startup_error")
        r = self.run_driver(argv, "")
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)

    def test_isolated(self):
        # internal/driver/librdkafka.go: venv/bin/python -I kafkabook_driver.py
        self.check([sys.executable, "-I", "-B", DRIVER])

    def test_run_path(self):
        # internal/cluster/kubernetes/python.go's pythonLoader: the pod's
        # python3 -I with the environment's site-packages first on sys.path.
        site = os.path.dirname(os.path.dirname(driver.confluent_kafka.__file__))
        loader = ('import runpy, sys; sys.path.insert(0, sys.argv[1]); del sys.argv[:2]; '
                  'runpy.run_path(sys.argv[0], run_name="__main__")')
        self.check([sys.executable, "-I", "-B", "-c", loader, site, DRIVER])


if __name__ == "__main__":
    unittest.main()
