package driver

import (
	"strings"
	"testing"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/internal/cluster"
)

func TestSecurityProperties(t *testing.T) {
	a := cluster.Access{TLS: &cluster.TLS{CAFile: "/ca.pem"}, SASL: &cluster.SASL{Mechanism: "SCRAM-SHA-512", User: "u", Password: `p"w`}}
	java := SecurityProperties("java", a)
	want := map[string]string{
		"security.protocol": "SASL_SSL", "ssl.truststore.type": "PEM", "ssl.truststore.location": "/ca.pem",
		"sasl.mechanism":   "SCRAM-SHA-512",
		"sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p\"w";`,
	}
	for k, v := range want {
		if java[k] != v {
			t.Errorf("java %s = %q, want %q", k, java[k], v)
		}
	}
	rd := SecurityProperties("librdkafka", cluster.Access{SASL: &cluster.SASL{Mechanism: "PLAIN", User: "u", Password: "pw"}})
	if rd["security.protocol"] != "SASL_PLAINTEXT" || rd["sasl.mechanisms"] != "PLAIN" || rd["sasl.password"] != "pw" || rd["sasl.username"] != "u" {
		t.Errorf("librdkafka properties %v", rd)
	}
	if p := SecurityProperties("java", cluster.Access{}); p != nil {
		t.Errorf("plaintext properties %v, want none", p)
	}
	st := Startup{Config: map[string]string{"sasl.jaas.config": java["sasl.jaas.config"], "sasl.password": "pw", "acks": "all", "ssl.truststore.password": ""}}.Redacted()
	if st.Config["sasl.jaas.config"] != Hidden || st.Config["sasl.password"] != Hidden || st.Config["acks"] != "all" || st.Config["ssl.truststore.password"] != "" {
		t.Errorf("redacted config %v", st.Config)
	}
}

// TestRefuse: the last point before a driver refuses what check refuses.
func TestRefuse(t *testing.T) {
	for _, c := range []struct{ client, name, value string }{
		{"librdkafka", "plugin.library.paths", "/tmp/x.so"},
		{"librdkafka", "sasl.mechanism", "PLAIN"},
		{"java", "security.protocol", "PLAINTEXT"},
		{"java", "value.serializer", "com.example.Evil"},
		{"spring", "interceptor.classes", "com.example.Evil"},
		{"java", "bootstrap.servers", "evil.example:9092"},
	} {
		if err := Refuse(c.client, clientconfig.Producer, map[string]string{c.name: c.value}); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s %s=%s: %v, want a refusal naming it", c.client, c.name, c.value, err)
		}
	}
	if err := Refuse("librdkafka", clientconfig.Producer, map[string]string{"linger.ms": "5"}); err != nil {
		t.Errorf("Refuse linger.ms: %v", err)
	}
}
