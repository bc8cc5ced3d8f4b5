package docker

import (
	"reflect"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/container"
)

// TestBrokerSettings: the broker-settings label is read back as it was
// written, and a label that is missing or damaged is an error naming the
// container, not settings taken as empty (they decide whether a cluster is
// reused).
func TestBrokerSettings(t *testing.T) {
	c := func(labels map[string]string) container.Summary {
		return container.Summary{ID: "0123456789ab", Names: []string{"/kafkabook-t1-k1"}, Labels: labels}
	}
	got, err := brokerSettings(c(map[string]string{labelBroker: `{"min.insync.replicas":"2"}`}))
	if err != nil || !reflect.DeepEqual(got, map[string]string{"min.insync.replicas": "2"}) {
		t.Errorf("good label: %v, %v", got, err)
	}
	if got, err := brokerSettings(c(map[string]string{labelBroker: "null"})); err != nil || len(got) != 0 {
		t.Errorf("no overrides: %v, %v", got, err)
	}
	for _, labels := range []map[string]string{{labelBroker: `{"min.insync.replicas":`}, {labelBroker: `["x"]`}, {}} {
		_, err := brokerSettings(c(labels))
		if err == nil || !strings.Contains(err.Error(), "kafkabook-t1-k1") {
			t.Errorf("label %q: error %v, want one naming the container", labels[labelBroker], err)
		}
	}
}
