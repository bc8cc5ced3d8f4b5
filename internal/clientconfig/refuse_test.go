package clientconfig

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/refused.txt")

// TestRefusedGolden classifies every property of every catalogue and
// compares the refusals with testdata/refused.txt: a new release's
// properties show up there in the diff, to be read before it lands. The
// other properties are allowed; the file's head counts both per
// catalogue.
func TestRefusedGolden(t *testing.T) {
	reasons := map[string]string{} // name → why, over every catalogue
	var counts []string
	for _, client := range []string{Java, Librdkafka} {
		for _, version := range Versions(client) {
			for _, role := range []Role{Producer, Consumer} {
				refused, all := 0, 0
				for _, name := range Names(client, version, role) {
					p, _ := Lookup(client, version, role, name)
					all++
					if why := Refused(p, name, ""); why != "" {
						refused++
						if old, ok := reasons[name]; ok && old != why {
							t.Errorf("%s: refused for %q in one catalogue, %q in another", name, old, why)
						}
						reasons[name] = why
					}
				}
				counts = append(counts, fmt.Sprintf("# %s %s %s: %d of %d refused", client, version, role, refused, all))
			}
		}
	}
	var b strings.Builder
	b.WriteString("# Every client property a runbook may not set (clientconfig.Refused), over every\n# catalogue; TestRefusedGolden writes it with -update.\n")
	for _, c := range counts {
		b.WriteString(c + "\n")
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range reasons {
			if !yield(n) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "%s\t%s\n", name, reasons[name])
	}
	const golden = "testdata/refused.txt"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != b.String() {
		t.Errorf("the refusals differ from %s (go test -run TestRefusedGolden -update, then read the diff):\n%s", golden, b.String())
	}
}

// TestRefusedAllows: the properties experiments are made of stay allowed,
// kafka-clients' own classes among them; the same names with a class of
// anyone else's are refused.
func TestRefusedAllows(t *testing.T) {
	for _, c := range []struct{ client, role, name, value string }{
		{Java, "producer", "acks", "all"},
		{Java, "producer", "linger.ms", "5"},
		{Java, "producer", "enable.idempotence", "false"},
		{Java, "producer", "partitioner.class", "org.apache.kafka.clients.producer.RoundRobinPartitioner"},
		{Java, "consumer", "partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor,org.apache.kafka.clients.consumer.CooperativeStickyAssignor"},
		{Java, "consumer", "value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer"},
		{Java, "consumer", "group.instance.id", "m1"},
		{Java, "consumer", "client.rack", "r1"},
		{Librdkafka, "consumer", "enable.auto.offset.store", "false"},
		{Librdkafka, "consumer", "partition.assignment.strategy", "cooperative-sticky"},
		{Librdkafka, "producer", "compression.codec", "lz4"},
		{Librdkafka, "producer", "debug", "broker,msg"},
	} {
		p, ok := Lookup(c.client, "", Role(c.role), c.name)
		if !ok {
			t.Fatalf("%s has no %s property %s", c.client, c.role, c.name)
		}
		if why := Refused(p, c.name, c.value); why != "" {
			t.Errorf("%s %s=%s refused: %s", c.client, c.name, c.value, why)
		}
	}
	for _, c := range []struct{ name, value string }{
		{"partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor,com.example.Evil"},
		{"value.deserializer", "com.example.Evil"},
		{"partitioner.class", "org.apache.kafka.Evil,x"},
	} {
		p, _ := Lookup(Java, "", Consumer, c.name)
		if Refused(p, c.name, c.value) == "" {
			t.Errorf("%s=%s allowed: another's class", c.name, c.value)
		}
	}
}
