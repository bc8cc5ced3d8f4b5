package driver

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSpringProducer produces through Spring Kafka's KafkaTemplate with
// acks=all on a real single-node cluster: every message acknowledged,
// each at the offset an independent franz-go reader finds it at, the log's
// end where the last acknowledgement says, and the startup line naming
// spring-kafka and the kafka-clients release under it (the jar the install
// resolved) with the acks and idempotence in force.
func TestSpringProducer(t *testing.T) {
	_, st := testcluster.Shared(t, 1, nil)
	d := installFor(t, Ref{Client: "spring"})
	jars, _ := filepath.Glob(filepath.Join(d.Dir, "libs", "kafka-clients-*.jar"))
	if len(jars) != 1 {
		t.Fatalf("the spring install resolved kafka-clients jars %v, want one", jars)
	}
	clients := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(jars[0]), "kafka-clients-"), ".jar")

	cl, err := kgo.NewClient(kgo.SeedBrokers(st.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := "spring-acks-all"
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}

	const count = 6
	start, got := produce(t, d, Spec{Topic: topic, Bootstrap: st.Bootstrap(), From: 1, Count: count, Keys: 2, Size: 50,
		Properties: map[string]string{"acks": "all"}})

	want := fmt.Sprintf("spring-kafka %s on java ", DefaultSpring)
	if desc := start.Describe(); !strings.HasPrefix(desc, want) || !strings.Contains(desc, ", kafka-clients "+clients+": acks=-1 enable.idempotence=true") {
		t.Errorf("startup: %q; want %q…, kafka-clients %s: acks=-1 enable.idempotence=true …", desc, want, clients)
	}
	if start.Client != "spring" || start.Library != "spring-kafka" || start.Version != DefaultSpring || len(start.Unknown) > 0 {
		t.Errorf("startup = %+v", start)
	}
	if !slices.Contains(start.SetByUs, "template.producerListener") || slices.Contains(start.SetByUs, "acks") {
		t.Errorf("set by kafkabook: %v; want the template's listener, not acks", start.SetByUs)
	}
	if acks, idem, err := start.InForce(); err != nil || acks != results.AcksAll || !idem {
		t.Errorf("in force: acks %v, idempotence %v, %v; want all and idempotent", acks, idem, err)
	}

	// The acknowledged ids and offsets, in the order sent (one
	// partition, idempotent), against what the log holds: a franz-go
	// reader finds each id at its offset, and the log ends after the last.
	for n := 1; n <= count; n++ {
		if r := got[n]; r.Status != results.StatusOK || r.Partition != 0 || r.Offset != int64(n-1) {
			t.Errorf("m-%03d: %+v; want ok at offset %d of partition 0", n, r, n-1)
		}
	}
	checkOffsets(t, st.Bootstrap(), topic, got)
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := ends.Lookup(topic, 0); !ok || o.Err != nil || o.Offset != count {
		t.Errorf("the log ends at %+v; want offset %d, after the last acknowledgement", o, count)
	}
}
