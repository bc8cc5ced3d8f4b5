"""The driver refuses at start what kafkabook refuses in check (refused
against internal/clientconfig's rule), and the cluster's access goes in over
the runbook's properties."""

import os
import unittest

from support import driver


class GivenTest(unittest.TestCase):
    def test_agrees_with_kafkabook(self):
        """Every property of every librdkafka catalogue, with kafkabook's
        answer: the file pycheck_test.go writes (refusalCases) and names in
        KAFKABOOK_REFUSAL_CASES, lines of client, name, value, 1 or 0."""
        path = os.environ.get("KAFKABOOK_REFUSAL_CASES")
        self.assertTrue(path, "KAFKABOOK_REFUSAL_CASES names the cases (pycheck_test.go sets it)")
        wrong, n = [], 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                client, name, value, want = line.rstrip("\n").split("\t")
                if client != "librdkafka":
                    continue
                n += 1
                if (driver.refused(name, value) is not None) != (want == "1"):
                    wrong.append(f"{name}={value}: kafkabook {'refuses' if want == '1' else 'allows'}, the driver does not")
        self.assertGreater(n, 100)
        self.assertEqual(wrong, [])

    def test_refuses_at_start(self):
        with self.assertRaisesRegex(ValueError, "plugin.library.paths"):
            driver.properties({"bootstrap_servers": ["b:1"], "properties": {"plugin.library.paths": "/tmp/x.so"}})
        with self.assertRaisesRegex(ValueError, "sasl.username"):
            driver.member_properties({"bootstrap_servers": ["b:1"], "group": "g", "properties": {"sasl.username": "u"}})
        conf = driver.properties({"bootstrap_servers": ["b:1"], "properties": {"linger.ms": 5},
                                  "access": {"security.protocol": "SASL_SSL", "sasl.username": "u"}})
        self.assertEqual((conf["linger.ms"], conf["security.protocol"], conf["sasl.username"]), ("5", "SASL_SSL", "u"))


if __name__ == "__main__":
    unittest.main()
