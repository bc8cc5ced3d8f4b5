package docker

import (
	"context"
	"strings"
	"testing"
)

// TestCompose: the built-in compose.yaml is the article's cluster: k1..k3,
// internal topics at replication factor 3 with two in sync for
// transactions, and a log layout that starts with the ISO UTC time the
// engine reads (the same as the local backend's).
func TestCompose(t *testing.T) {
	p, err := loadCompose(context.Background(), nil, "", "kafkabook-x", map[string]string{"KAFKA_NET": "10.214.9", "K2_PORT": "23456", "KAFKA_VERSION": "4.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Nodes) != 3 {
		t.Fatalf("%d nodes", len(p.Nodes))
	}
	k2 := p.Nodes[1]
	if k2.Name != "k2" || k2.IP != "10.214.9.12" || k2.HostPort != "23456" || k2.Service.Image != "apache/kafka:4.0.0" {
		t.Errorf("k2: %+v", k2)
	}
	p.applyBroker(map[string]string{"replica.lag.time.max.ms": "3000", "some_setting-x": "1"})
	env := p.Nodes[0].Service.Environment
	for k, want := range map[string]string{
		"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR":         "3",
		"KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "3",
		"KAFKA_TRANSACTION_STATE_LOG_MIN_ISR":            "2",
		"KAFKA_REPLICA_LAG_TIME_MAX_MS":                  "3000",
		"KAFKA_SOME__SETTING___X":                        "1",
		"KAFKA_CONTROLLER_QUORUM_VOTERS":                 "1@10.214.9.11:9093,2@10.214.9.12:9093,3@10.214.9.13:9093",
	} {
		if v := env[k]; v == nil || *v != want {
			t.Errorf("%s = %v, want %s", k, v, want)
		}
	}
	log4j2, err := composeLog4j2(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log4j2), `layout.pattern = [%d{yyyy-MM-dd'T'HH:mm:ss.SSS'Z'}{UTC}] %p %m (%c)%n`) {
		t.Errorf("log layout:\n%s", log4j2)
	}
}

// TestDebianMirror: the base is made from $KAFKABOOK_DEBIAN_MIRROR, else
// from the Debian archive apt uses here.
func TestDebianMirror(t *testing.T) {
	if m := debianMirror(); !strings.HasPrefix(m, "http") || !strings.HasSuffix(m, "/debian") {
		t.Errorf("mirror %q", m)
	}
	t.Setenv("KAFKABOOK_DEBIAN_MIRROR", "http://mirror.example/debian")
	if m := debianMirror(); m != "http://mirror.example/debian" {
		t.Errorf("mirror %q with KAFKABOOK_DEBIAN_MIRROR set", m)
	}
}
