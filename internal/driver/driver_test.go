package driver

import (
	"context"
	"maps"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/internal/testcluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestMain lets this test binary run franz-go's driver, as the kafkabook
// binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == FranzGoSubcommand {
		os.Exit(FranzGoMain(os.Stdin, os.Stdout))
	}
	os.Exit(testcluster.Main(m)) // takes down the cluster the tests share
}

// installFor installs a driver or, when this machine lacks its runtime,
// fails the test under CI=true and skips it elsewhere.
func installFor(t *testing.T, ref Ref) Driver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	d, err := Install(ctx, ref, func(f string, a ...any) { t.Logf(f, a...) })
	if err == nil {
		return d
	}
	if strings.Contains(err.Error(), "not found") || strings.Contains(err.Error(), "apt-get install") {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v; CI must provide it", err)
		}
		t.Skip(err)
	}
	t.Fatal(err)
	return d
}

// produce runs spec through d and returns its startup and results by
// message number.
func produce(t *testing.T, d Driver, spec Spec) (Startup, map[int]Result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := startProducer(ctx, d, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got := make(map[int]Result)
	var mu sync.Mutex
	stats, err := p.Run(ctx, func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := got[r.Num]; dup {
			t.Errorf("message %d reported twice", r.Num)
		}
		got[r.Num] = r
	})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Sent != spec.Count || len(got) != spec.Count {
		t.Fatalf("sent %d, %d results; want %d of each", stats.Sent, len(got), spec.Count)
	}
	return p.Startup(), got
}

// TestProducers runs each driver against one real single-node cluster: a
// healthy produce whose offsets an independent franz-go reader confirms,
// the client's effective configuration, and unknown outcomes when the
// broker stops answering.
func TestProducers(t *testing.T) {
	b, st := testcluster.Shared(t, 1, nil)
	admin, err := kafka.Dial(kafka.Plain(st.Bootstrap()...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, tc := range []struct {
		ref      Ref
		defaults map[string]string // effective configuration without properties
	}{
		{Ref{Client: "java", Version: st.Kafka}, map[string]string{"acks": "-1", "enable.idempotence": "true"}},
		{Ref{Client: "librdkafka"}, map[string]string{"request.required.acks": "-1", "enable.idempotence": "false"}},
		// Spring Kafka's template on kafka-clients 4.2.2 (spring-kafka
		// 4.1.2's): the Java client's defaults.
		{Ref{Client: "spring"}, map[string]string{"acks": "-1", "enable.idempotence": "true"}},
		// franz-go's driver reports the settings it was given, not a
		// client's own defaults: nothing to check there.
		{Ref{Client: "franz-go"}, nil},
	} {
		t.Run(tc.ref.Client, func(t *testing.T) {
			var d Driver
			if tc.ref.Client == "franz-go" {
				d = FranzGo(testExe(t), launch.Host, cluster.Access{})
			} else {
				d = installFor(t, tc.ref)
			}
			testStartup(t, d)
			topic := "healthy-" + tc.ref.Client
			ctx := context.Background()
			if err := admin.CreateTopic(ctx, kafka.TopicSpec{Name: topic, Partitions: 1, ReplicationFactor: 1}); err != nil {
				t.Fatal(err)
			}
			start, got := produce(t, d, Spec{Topic: topic, Bootstrap: st.Bootstrap(), From: 1, Count: 100, Size: 100})
			t.Logf("%s %s (%s, librdkafka %q), startup %v", start.Library, start.Version, start.Runtime, start.Librdkafka, start.Took)
			for k, want := range tc.defaults {
				if start.Config[k] != want {
					t.Errorf("effective %s = %q, want %q", k, start.Config[k], want)
				}
			}
			checkOffsets(t, st.Bootstrap(), topic, got)
			testStop(t, d, st)
			testUnknown(t, b, d, st)
		})
	}
}

// startProducer starts d with spec; franz-go's driver takes the producer
// kafkabook's engine would ask of it.
func startProducer(ctx context.Context, d Driver, spec Spec) (*Producer, error) {
	if d.Ref.Client != "franz-go" {
		return d.StartProducer(ctx, spec)
	}
	props := map[string]string{"delivery.timeout.ms": "30000"}
	maps.Copy(props, spec.Properties)
	ps := kafka.ProduceSpec{Topic: spec.Topic, From: spec.From, Count: spec.Count, Rate: spec.Rate, Size: spec.Size, Properties: props}
	return d.StartFranzGo(ctx, FranzGoSpec{Brokers: spec.Bootstrap, Produce: ps})
}

// testExe is this test binary, which runs franz-go's driver (TestMain).
func testExe(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// testStartup measures spawn to startup_complete with no broker to reach
// (the client connects on the first send).
func testStartup(t *testing.T, d Driver) {
	for i := range 2 {
		p, err := startProducer(context.Background(), d, Spec{Topic: "t", Bootstrap: []string{"127.0.0.1:1"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("startup with no broker (%d): %v", i+1, p.Startup().Took)
		p.Close()
	}
}

// checkOffsets reads the topic with franz-go and checks that every result
// is ok and its offset holds its message.
func checkOffsets(t *testing.T, seeds []string, topic string, got map[int]Result) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := make(map[int64]string)
	for len(log) < len(got) && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { log[r.Offset] = string(kafka.IDOf(r.Value)) })
	}
	if len(log) != len(got) {
		t.Fatalf("the reader found %d records, want %d", len(log), len(got))
	}
	for n, r := range got {
		if r.Status != results.StatusOK || log[r.Offset] != results.MessageID(int64(n)) || r.Done.Before(r.Intended) {
			t.Errorf("message %d: %+v; the log holds %q at offset %d", n, r, log[r.Offset], r.Offset)
		}
	}
}

// testUnknown pauses the only broker once the first of a steady stream of
// sends is acknowledged, and checks that the sends that then time out are
// unknown (they may or may not be in the log), never failed.
func testUnknown(t *testing.T, b cluster.Backend, d Driver, st cluster.Status) {
	node := st.Nodes[0].Name
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	spec := Spec{Topic: "healthy-" + d.Ref.Client, Bootstrap: st.Bootstrap(), From: 101, Count: 30, Rate: 10,
		Properties: map[string]string{"acks": "1", "delivery.timeout.ms": "3000"}}
	p, err := startProducer(ctx, d, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	first := make(chan struct{})
	var once sync.Once
	got := make(map[int]Result)
	var mu sync.Mutex
	paused := make(chan struct{})
	go func() {
		defer close(paused)
		select {
		case <-first:
			testcluster.Apply(t, b, cluster.Pause, node)
		case <-ctx.Done():
		}
	}()
	_, err = p.Run(ctx, func(r Result) {
		mu.Lock()
		got[r.Num] = r
		mu.Unlock()
		once.Do(func() { close(first) })
	})
	<-paused
	testcluster.Apply(t, b, cluster.Resume, node)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[results.Status]int{}
	for n, r := range got {
		counts[r.Status]++
		if r.Status == results.StatusFailed || (r.Status == results.StatusUnknown && (r.Err == "" || r.Offset != -1)) {
			t.Errorf("message %d: %+v, want ok, or unknown with an error", n, r)
		}
	}
	last := got[spec.From+spec.Count-1]
	t.Logf("broker paused after the first ack: %v; the last: %s %s", counts, last.Status, last.Err)
	if len(got) != spec.Count || last.Status != results.StatusUnknown {
		t.Errorf("%d results, the last %+v; want %d, the last unknown", len(got), last, spec.Count)
	}
}

// testStop ends a slow run early: the driver stops sending, reports what
// it had, and exits well within the grace kafkabook gives it.
func testStop(t *testing.T, d Driver, st cluster.Status) {
	p, err := startProducer(context.Background(), d, Spec{Topic: "healthy-" + d.Ref.Client,
		Bootstrap: st.Bootstrap(), From: 1001, Count: 100, Rate: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	n := 0
	stats, err := p.Run(ctx, func(Result) { n++ })
	took := time.Since(stats.Start)
	if err != nil || stats.Sent == 0 || stats.Sent >= 100 || n != stats.Sent || took > 6*time.Second {
		t.Errorf("stopped after 1.5s: %v, %+v, %d results, returned after %v; want no error, a few sent, each with a result, within 6s",
			err, stats, n, took)
	}
}
