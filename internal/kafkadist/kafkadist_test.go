package kafkadist

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKafkaHome: an unpacked distribution at KAFKA_HOME wins, its version
// read off its jars; asking for another release is an error that says how
// to get it, and a directory that is no distribution is one too.
func TestKafkaHome(t *testing.T) {
	home := t.TempDir()
	libs := filepath.Join(home, "libs")
	if err := os.Mkdir(libs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(libs, "kafka_2.13-4.1.0.jar"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KAFKA_HOME", home)
	ctx := context.Background()
	d, err := Install(ctx, "", t.Logf)
	if err != nil || d != (Dist{Version: "4.1.0", Libs: libs, Source: "KAFKA_HOME"}) {
		t.Errorf("Install: %+v, %v", d, err)
	}
	if dir, err := Jars(ctx, "4.1.0", t.Logf); err != nil || dir != libs {
		t.Errorf("Jars: %q, %v", dir, err)
	}
	if _, err := Jars(ctx, "4.3.1", t.Logf); err == nil || !strings.Contains(err.Error(), "unset KAFKA_HOME") {
		t.Errorf("another release: %v", err)
	}
	t.Setenv("KAFKA_HOME", t.TempDir())
	if _, err := Install(ctx, "", t.Logf); err == nil || !strings.Contains(err.Error(), "does not look like a Kafka distribution") {
		t.Errorf("not a distribution: %v", err)
	}
}

// TestBadVersion: a version that is not a release number is refused
// before anything is fetched.
func TestBadVersion(t *testing.T) {
	t.Setenv("KAFKA_HOME", "")
	t.Setenv("KAFKABOOK_CACHE", t.TempDir())
	if _, err := Install(context.Background(), "latest", t.Logf); err == nil || !strings.Contains(err.Error(), "not a release number") {
		t.Errorf("Install(latest): %v", err)
	}
}
