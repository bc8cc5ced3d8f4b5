package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
)

// refusalCases writes, for the drivers' own unit tests, kafkabook's answer
// (clientconfig.Refused) for every property of every catalogue and a few
// names no catalogue has, each with a value naming another's class and
// one naming kafka-clients' own: lines of client, name, value and 1
// (refused) or 0. The java driver (javatest/GivenTest.java) and the
// librdkafka driver (librdkafka/tests/test_given.py) refuse at start what
// kafkabook refuses in check, each with its own copy of the rule, and
// read this file from KAFKABOOK_REFUSAL_CASES to show the copies agree
// (TestJavaDriverChecks and TestPythonDriverChecks run them).
func refusalCases(t *testing.T) string {
	t.Helper()
	values := []string{"com.example.Evil", "org.apache.kafka.common.serialization.ByteArraySerializer", "range"}
	unknown := []string{"x.ssl.y", "foo_cb", "a.b.path", "x.endpoint.url", "config.providers.x.class", "y.cmd", "z.classes", "plain.name"}
	seen := map[string]bool{}
	var lines []string
	for _, client := range []string{clientconfig.Java, clientconfig.Librdkafka} {
		for _, version := range clientconfig.Versions(client) {
			for _, role := range []clientconfig.Role{clientconfig.Producer, clientconfig.Consumer} {
				for _, name := range slices.Concat(clientconfig.Names(client, version, role), unknown) {
					p, _ := clientconfig.Lookup(client, version, role, name)
					for _, v := range values {
						refused := 0
						if clientconfig.Refused(p, name, v) != "" {
							refused = 1
						}
						line := fmt.Sprintf("%s\t%s\t%s\t%d", client, name, v, refused)
						if !seen[line] {
							seen[line] = true
							lines = append(lines, line)
						}
					}
				}
			}
		}
	}
	path := filepath.Join(t.TempDir(), "refusal-cases.tsv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
