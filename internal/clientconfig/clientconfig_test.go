package clientconfig

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestCatalogsParse parses every embedded file on its own, so that a
// generator's bad output names its file.
func TestCatalogsParse(t *testing.T) {
	files, _ := fs.Glob(catalogDir, "catalog/*.txt")
	if len(files) == 0 {
		t.Fatal("no catalogue embedded")
	}
	for _, f := range files {
		one := map[string]map[string]catalog{Java: {}, Librdkafka: {}}
		data, _ := catalogDir.ReadFile(f)
		if err := loadFile(one, strings.TrimSuffix(strings.TrimPrefix(f, "catalog/"), ".txt"), string(data)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	loadOnce.Do(load)
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	for _, client := range []string{Java, Librdkafka} {
		for _, v := range Versions(client) {
			for _, role := range []Role{Producer, Consumer} {
				if n := len(Names(client, v, role)); n < 50 {
					t.Errorf("%s %s %s: %d properties, want the client's full list", client, v, role, n)
				}
			}
		}
	}
}

func TestVersions(t *testing.T) {
	for client, want := range map[string][]string{
		Java:       {"3.9.1", "4.0.0", "4.0.1", "4.0.2", "4.1.0", "4.1.1", "4.1.2", "4.2.0", "4.2.1", "4.2.2", "4.3.0", "4.3.1", "4.4.0"},
		Librdkafka: {"2.15.1", "2.16.1"},
	} {
		got := Versions(client)
		if !slices.IsSortedFunc(got, compareVersions) || !slices.Equal(got, want) {
			t.Errorf("Versions(%s) = %v, want %v", client, got, want)
		}
	}
	if compareVersions("4.10.0", "4.9.1") <= 0 {
		t.Error("4.10.0 sorts before 4.9.1")
	}
	if Known(Java, "4.3.1") != nil || Known(FranzGoClient, "1.22.3") != nil || Known(Librdkafka, "2.14.0") == nil {
		t.Error("Known: want 4.3.1 and franz-go known, librdkafka 2.14.0 not")
	}
	if got := Versions(FranzGoClient); got != nil {
		t.Errorf("Versions(franz-go) = %v, want nil", got)
	}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		client, version string
		role            Role
		name, value     string
		want            string // "" for valid, else a substring of the error
	}{
		{Java, "4.3.1", Producer, "linger.ms", "5", ""},
		{Java, "4.3.1", Producer, "compression.type", "lz4", ""},
		{Java, "4.3.1", Producer, "acks", "all", ""},
		{Java, "4.3.1", Producer, "value.serializer", "org.apache.kafka.common.serialization.StringSerializer", ""},
		{Java, "4.3.1", Consumer, "value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer", ""},
		{Java, "", Consumer, "enable.auto.commit", "FALSE", ""},
		{Java, "4.3.1", Consumer, "value-serializer", "x", `did you mean "value.deserializer"?`},
		{Java, "4.3.1", Consumer, "value-serializer", "x", `"value.serializer" is a producer property`},
		{Java, "4.3.1", Consumer, "linger.ms", "5", `"linger.ms" is a producer property, not a consumer one (kafka-clients 4.3.1)`},
		{Java, "4.3.1", Producer, "linger.msx", "5", `unknown java producer property "linger.msx" (kafka-clients 4.3.1): did you mean "linger.ms"?`},
		{Java, "4.3.1", Producer, "linger.ms", "five", "want a whole number (LONG)"},
		{Java, "4.3.1", Producer, "linger.ms", "-1", "want at least 0"},
		{Java, "4.3.1", Producer, "acks", "2", "want one of all, -1, 0, 1"},
		{Java, "4.3.1", Producer, "enable.idempotence", "yes", "want true or false"},
		{Java, "4.3.1", Producer, "client.id", "a\nb", "control character U+000A"},
		{Java, "4.3.1", Consumer, "isolation.level", "read_committed", ""},
		{Java, "4.3.1", Consumer, "auto.offset.reset", "by_duration:P1D", ""},
		{Java, "4.3.1", Consumer, "group.protocol", "consumer", ""},
		{Java, "3.9.1", Producer, "linger.ms", "5", ""},
		{Java, "3.8.0", Producer, "linger.ms", "5", "kafka-clients 3.8.0 has no catalogue"},
		{Librdkafka, "2.15.1", Producer, "enable.idempotence", "true", ""},
		{Librdkafka, "2.15.1", Producer, "acks", "all", ""},
		{Librdkafka, "2.15.1", Producer, "acks", "al", "want a number"},
		{Librdkafka, "2.16.1", Producer, "linger.ms", "0.5", ""},
		{Librdkafka, "2.16.1", Producer, "compression.codec", "LZ4", ""},
		{Librdkafka, "2.16.1", Producer, "compression.codec", "brotli", "want one of"},
		{Librdkafka, "2.16.1", Producer, "message.timeout.ms", "-5", "want 0 to"},
		{Librdkafka, "2.15.1", Producer, "group.id", "g", `"group.id" is a consumer property, not a producer one (confluent-kafka 2.15.1)`},
		{Librdkafka, "2.15.1", Consumer, "enable.auto.commit", "false", ""},
		{Librdkafka, "2.15.1", Producer, "error_cb", "x", "sets a callback or object only the client's own API can"},
		{Librdkafka, "2.15.1", Producer, "enable.idempotency", "true", `did you mean "enable.idempotence"?`},
		{FranzGoClient, "", Producer, "linger.ms", "5", ""},
		{FranzGoClient, "", Producer, "linger.ms", "x", "want a whole number"},
		{FranzGoClient, "", Consumer, "enable.auto.commit", "false", ""},
		{FranzGoClient, "", Producer, "max.block.ms", "5", "franz-go has no counterpart for max.block.ms: use --client java or --client librdkafka"},
		{FranzGoClient, "", Consumer, "linger.ms", "5", "is a producer property"},
		{FranzGoClient, "", Consumer, "group.protocol", "consumer", "franz-go has no counterpart for group.protocol: use --client java"},
		{FranzGoClient, "", Producer, "foo.bar", "5", "kafka-clients has no producer property of that name either"},
		{FranzGoClient, "", Producer, "linger.mss", "5", `did you mean "linger.ms"?`},
		{"kcat", "", Producer, "linger.ms", "5", `client "kcat"`},
		{Java, "4.3.1", "admin", "linger.ms", "5", "want producer or consumer"},
	} {
		err := Check(tc.client, tc.version, tc.role, tc.name, tc.value)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%s %s %s %s=%q): %v", tc.client, tc.version, tc.role, tc.name, tc.value, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%s %s %s %s=%q) = %v, want an error holding %q", tc.client, tc.version, tc.role, tc.name, tc.value, err, tc.want)
		}
	}
}

// TestFranzGoNamesAreJava keeps the hand-typed table honest: every name
// it maps is a property of the Java client for that role.
func TestFranzGoNamesAreJava(t *testing.T) {
	for _, role := range []Role{Producer, Consumer} {
		m := FranzGo(role)
		if len(m) == 0 {
			t.Fatalf("FranzGo(%s) is empty", role)
		}
		for name, opt := range m {
			if _, ok := Lookup(Java, "", role, name); !ok {
				t.Errorf("franz-go %s maps %q (%s), which kafka-clients has no %s property of", role, name, opt, role)
			}
		}
	}
	if got := FranzGo(Producer)["batch.size"]; got != "kgo.ProducerBatchMaxBytes" {
		t.Errorf("batch.size maps to %q", got)
	}
}

func TestLookupDefaults(t *testing.T) {
	for _, tc := range []struct{ client, version, name, want string }{
		{Java, "4.3.1", "acks", "all"},
		{Java, "4.3.1", "enable.idempotence", "true"},
		{Librdkafka, "2.15.1", "enable.idempotence", "false"},
	} {
		p, ok := Lookup(tc.client, tc.version, Producer, tc.name)
		if !ok || p.Default != tc.want {
			t.Errorf("Lookup(%s %s %s) = %+v, %v; want default %q", tc.client, tc.version, tc.name, p, ok, tc.want)
		}
	}
}

func TestRdkafkaCatalog(t *testing.T) {
	table := "# confluent-kafka 9.9.9 (librdkafka 9.9.9)\n## Global configuration properties\n\n" +
		"Property                                 | C/P | Range           |       Default | Importance | Description              \n" +
		"-----------------------------------------|-----|-----------------|--------------:|------------| --------------------------\n" +
		"sasl.kerberos.kinit.cmd                  |  *  |                 | kinit -R || kinit -t | low        | Shell command. <br>*Type: string*\n" +
		"group.id                                 |  C  |                 |               | high       | Client group id string. <br>*Type: string*\n" +
		"## Topic configuration properties\n\n" +
		"acks                                     |  P  | -1 .. 1000      |            -1 | high       | Alias for `request.required.acks`: a | b. <br>*Type: integer*\n"
	got, err := RdkafkaCatalog(table)
	if err != nil {
		t.Fatal(err)
	}
	want := "sasl.kerberos.kinit.cmd\t*\tstring\t\tkinit -R || kinit -t\ngroup.id\tC\tstring\t\t\nacks\tP\tinteger\t-1 .. 1000\t-1\n"
	if !strings.HasPrefix(got, "# confluent-kafka 9.9.9 (librdkafka 9.9.9) properties") || !strings.HasSuffix(got, want) {
		t.Errorf("RdkafkaCatalog:\n%s\nwant it to end with:\n%s", got, want)
	}
	if _, err := RdkafkaCatalog("not | a table\n"); err == nil {
		t.Error("RdkafkaCatalog took a malformed row")
	}
}
