package engine

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func TestSplitUnknown(t *testing.T) {
	through, refused := splitUnknown([]string{"value-serializer", "linger.msx"}, []string{"value-serializer"})
	if !slices.Equal(through, []string{"value-serializer"}) || !slices.Equal(refused, []string{"linger.msx"}) {
		t.Fatalf("let through %v, refused %v", through, refused)
	}
}

// TestClientReaction: the lines naming the property as a whole name are
// recorded once they come (value-serializer.x and xvalue-serializer do
// not name it); a property nothing names is said to have none.
func TestClientReaction(t *testing.T) {
	logged := []string{
		"[main] WARN org.apache.kafka.clients.NetworkClient - something else",
		"[main] INFO org.apache.kafka.common.config.AbstractConfig - These configurations '[value-serializer]' were supplied but are not used yet.",
		"value-serializer.x xvalue-serializer",
	}
	var lines atomic.Pointer[[]string]
	lines.Store(&[]string{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		lines.Store(&logged) // after the first looks: the container logs after startup
	}()
	exited := make(chan struct{})
	start := time.Now()
	get := func() []string { return *lines.Load() }
	notes := clientReaction(context.Background(), "spring", []string{"value-serializer"}, []string{"value-serializer"}, get, exited)
	want := []string{
		"-X value-serializer let through (--allow-unknown): the spring driver lists it among its unknown properties (unknown_properties)",
		"client log: " + logged[1],
	}
	if !slices.Equal(notes, want) {
		t.Fatalf("notes:\n%q\nwant\n%q", notes, want)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v: it should stop once every name has a line", took)
	}
	close(exited)
	notes = clientReaction(context.Background(), "java", []string{"foo.bar"}, nil, get, exited)
	want = []string{
		"-X foo.bar let through (--allow-unknown): the java driver does not list it among its unknown properties",
		"client log: no line naming foo.bar within 10s",
	}
	if !slices.Equal(notes, want) {
		t.Fatalf("notes:\n%q\nwant\n%q", notes, want)
	}
}

// TestClientErrors keeps the ERROR lines with their exception and causes,
// without stack frames, and nothing at another level.
func TestClientErrors(t *testing.T) {
	lines := []string{
		"[main] INFO org.apache.kafka.common.config.AbstractConfig - These configurations '[x]' were supplied but are not used yet.",
		"[c-1] ERROR org.springframework.kafka.listener.DefaultErrorHandler - Backoff none exhausted for t-0@0",
		"org.springframework.kafka.listener.ListenerExecutionFailedException: Listener failed",
		"\tat org.springframework.kafka.listener.KafkaMessageListenerContainer.run(KafkaMessageListenerContainer.java:1)",
		"Caused by: java.lang.ClassCastException: class java.lang.String cannot be cast to class [B",
		"\t... 12 more",
		"[c-1] WARN org.apache.kafka.clients.NetworkClient - disconnected",
		"a line of the warning",
		"[ERROR] DefaultErrorHandler - Backoff FixedBackOffExecution[interval=0, currentAttempts=1, maxAttempts=0] exhausted for t-0@1 <x>x",
		"Caused by: java.lang.ClassCastException: class java.lang.String cannot be cast to class [B",
		"",
		"[WARN] Something - else",
		"a line of the warning",
	}
	got := clientErrors(lines)
	want := []string{lines[1], lines[2], lines[4], lines[8], lines[9]}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}
