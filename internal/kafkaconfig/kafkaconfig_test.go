package kafkaconfig

import (
	"errors"
	"strings"
	"testing"
)

// TestReleases: every release of the project's release list has both
// catalogues, and an unknown release is refused with the known list.
func TestReleases(t *testing.T) {
	rs := Releases()
	for _, want := range []string{"4.0.0", "4.3.1", "4.4.0"} {
		if Known(want) != nil || len(Names(want, Broker)) < 200 || len(Names(want, Topic)) < 30 {
			t.Errorf("release %s: known %v, %d broker and %d topic settings", want, Known(want), len(Names(want, Broker)), len(Names(want, Topic)))
		}
	}
	if rs[0] != "4.0.0" {
		t.Errorf("Releases() = %v, want oldest first", rs)
	}
	err := Known("3.0.0")
	if err == nil || !strings.Contains(err.Error(), "use one of 4.0.0, ") {
		t.Errorf("Known(3.0.0) = %v", err)
	}
}

// TestCheck: names, ownership, text and types, as a runbook would meet them.
func TestCheck(t *testing.T) {
	cases := []struct {
		kind        Kind
		name, value string
		want        string // substring of the error, "" for none
	}{
		{Broker, "replica.lag.time.max.ms", "3000", ""},
		{Broker, "replica.lag.time.max.ms", " 3000 ", ""},
		{Broker, "replica.lag.time.max.ms", "3000\nlog.dirs=/etc/x", "control character U+000A"},
		{Broker, "replica.lag.time.max.ms", "3000\\", "backslash"},
		{Broker, "replica.lag.time.max.ms", "\xff", "not valid UTF-8"},
		{Broker, "replica.lag.time.max.ms", "3s", "want a whole number (LONG, 64 bits)"},
		{Broker, "log.dirs", "/", "names a host directory"},
		{Broker, "listeners", "PLAINTEXT://:1", "listeners"},
		{Broker, "node.id", "1", "identity"},
		{Broker, "config.providers", "file", "config provider"},
		{Broker, "principal.builder.class", "x", "a class to load"},
		{Broker, "authorizer.class.name", "x", "a class to load"},
		{Broker, "ssl.keystore.location", "/etc/shadow", "a host path"},
		{Broker, "auto.create.topics.enable", "TRUE", ""},
		{Broker, "auto.create.topics.enable", "yes", "want true or false"},
		{Broker, "num.io.threads", "0", "want a value in [1,...]"},
		{Broker, "replica.lag.time.max", "3000", "unknown setting"},
		{Topic, "min.insync.replicas", "2", ""},
		{Topic, "min.insync.replicas", "0", "want a value in [1,...]"},
		{Topic, "min.cleanable.dirty.ratio", "1.5", "[0,...,1]"},
		{Topic, "min.cleanable.dirty.ratio", "NaN", "want a number"},
		{Topic, "segment.bytes", "99999999999", "32 bits"},
		{Topic, "cleanup.policy", "compact,delete", ""},
	}
	for _, c := range cases {
		err := Check("4.3.1", c.kind, c.name, c.value)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s=%q: %v, want no error", c.kind, c.name, c.value, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %s=%q: %v, want an error with %q", c.kind, c.name, c.value, err, c.want)
		}
	}
	if err := CheckTopic("4.3.1", "min.insync", "2"); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown topic setting: %v, want ErrUnknown", err)
	}
	if err := CheckTopic("3.0.0", "min.insync.replicas", "2"); err == nil || !strings.Contains(err.Error(), "not one kafkabook knows") {
		t.Errorf("unknown release: %v", err)
	}
}

// TestParseRange reads the ranges Kafka prints and leaves the rest alone.
func TestParseRange(t *testing.T) {
	for valid, want := range map[string][2]float64{"[1,...]": {1, 0}, "[0,...,1]": {0, 1}, "[...,5]": {0, 5}, "[-2,...]": {-2, 0}} {
		lo, hi, ok := parseRange(valid)
		if !ok || (want[0] != 0 && lo != want[0]) || (want[1] != 0 && hi != want[1]) {
			t.Errorf("parseRange(%q) = %v, %v, %v", valid, lo, hi, ok)
		}
	}
	for _, valid := range []string{"", "[1,...,9] or -1", "[compact, delete]"} {
		if _, _, ok := parseRange(valid); ok {
			t.Errorf("parseRange(%q) ok, want not a range", valid)
		}
	}
}

// TestOwnedEveryRelease: in every release, every CLASS-typed setting and
// every setting kafkabook writes for a node is refused, and the settings
// the examples use are not.
func TestOwnedEveryRelease(t *testing.T) {
	writes := []string{"process.roles", "node.id", "controller.quorum.voters", "listeners", "advertised.listeners",
		"controller.listener.names", "inter.broker.listener.name", "listener.security.protocol.map", "log.dirs"}
	for _, r := range Releases() {
		for _, n := range Names(r, Broker) {
			s, _ := Lookup(r, Broker, n)
			if s.Type == "CLASS" && Owned(s) == "" {
				t.Errorf("Kafka %s: %s is a CLASS setting a runbook may set", r, n)
			}
		}
		for _, n := range writes {
			if err := CheckBroker(r, n, "x"); !errors.Is(err, ErrOwned) {
				t.Errorf("Kafka %s: %s: %v, want it refused as kafkabook's", r, n, err)
			}
		}
		for _, n := range []string{"replica.lag.time.max.ms", "unclean.leader.election.enable", "min.insync.replicas"} {
			if s, ok := Lookup(r, Broker, n); !ok || Owned(s) != "" {
				t.Errorf("Kafka %s: %s: present %v, refused because it %s", r, n, ok, Owned(s))
			}
		}
	}
}
