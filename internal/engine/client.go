package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// drivers are the client drivers one invocation has installed, by the
// version asked for, so that each is installed (or found in the cache)
// once however many steps and runs use it.
type drivers struct {
	mu sync.Mutex
	by map[driver.Ref]driver.Driver
	// launcher starts them where the cluster's clients run (see
	// package launch); nil: on this machine.
	launcher launch.Launcher
}

// setLauncher makes every driver start through l.
func (ds *drivers) setLauncher(l launch.Launcher) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.launcher = l
}

// get installs ref on first use, saying so on the console: a first
// install resolves kafka-clients or confluent-kafka and builds the
// driver, which takes a minute.
func (ds *drivers) get(ctx context.Context, ref driver.Ref, con *console) (driver.Driver, error) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if d, ok := ds.by[ref]; ok {
		d.Launcher = ds.launcher
		return d, nil
	}
	d, err := driver.Install(ctx, ref, func(format string, args ...any) {
		con.printf("  [client %s] %s\n", ref, fmt.Sprintf(format, args...))
	})
	if err != nil {
		return d, fmt.Errorf("install the %s client: %w", ref, err)
	}
	if ds.by == nil {
		ds.by = map[driver.Ref]driver.Driver{}
	}
	ds.by[ref] = d
	d.Launcher = ds.launcher
	return d, nil
}

// clientRef is the driver a produce step sends through: the step's own
// --client, else the run's; ok is false for franz-go, whose driver is
// kafkabook's own binary. java without a version is kafka-clients at the
// cluster's Kafka release, so that the client matches the brokers; spring
// sends through Spring Kafka's KafkaTemplate (its driver refuses a
// transactional step at start, as check does first).
func (w *workload) clientRef(p runbook.Produce) (driver.Ref, bool, error) {
	return w.refOf(p.Client)
}

// consumerRef is the driver a consume step's members run through, as
// clientRef; ok is false for franz-go, whose member is kafkabook's own.
func (w *workload) consumerRef(c runbook.Consume) (driver.Ref, bool, error) {
	return w.refOf(c.Client)
}

// refOf is the driver of a step's --client, else of the run's client.
func (w *workload) refOf(client string) (ref driver.Ref, ok bool, err error) {
	if client == "" {
		client = w.opts.Client
	}
	if client == "" || client == runbook.FranzGo {
		return ref, false, nil
	}
	if ref, err = driver.ParseRef(client); err != nil {
		return ref, false, err
	}
	if ref.Client == runbook.Java && ref.Version == "" {
		ref.Version = w.opts.Provenance.Kafka
	}
	return ref, true, nil
}

// startDriver starts the step's producer driver, records in the evidence
// which client at which exact version runs with which configuration, and
// says the settings in force that decide durability. A property the
// client does not know is an error: the Java client only warns of one,
// and a setting silently ignored is the mistake evidence must not carry.
func (w *workload) startDriver(ctx context.Context, ref driver.Ref, spec driver.Spec, log *stepLog) (*driver.Producer, error) {
	d, err := w.drivers.get(ctx, ref, w.con)
	if err != nil {
		return nil, err
	}
	p, err := d.StartProducer(ctx, spec)
	if err != nil {
		return nil, err
	}
	st := w.redactStartup(p.Startup())
	if len(st.Unknown) > 0 {
		p.Close()
		return nil, fmt.Errorf("the %s client does not know the properties %s: it would ignore them; fix their names (kafkabook check lists the client's)",
			ref, strings.Join(st.Unknown, ", "))
	}
	w.ev.Emit(results.KindClient, w.num, st.Info())
	log.line("client %s: %s", ref, st.Describe())
	return p, nil
}

// startFranzGo starts franz-go's driver where the cluster's clients run,
// with the producer the step asks for, and says which franz-go runs.
func (w *workload) startFranzGo(ctx context.Context, seeds kafka.Brokers, spec kafka.ProduceSpec, p runbook.Produce, id string, log *stepLog) (*driver.Producer, error) {
	exe, err := franzGoBinary()
	if err != nil {
		return nil, err
	}
	fs := driver.FranzGoSpec{Brokers: seeds.Seeds, Access: w.access, Produce: spec}
	if p.Transactional {
		fs.Txn = &kafka.TxnSpec{ID: id, Size: p.TxnSize, AbortEvery: p.AbortEvery}
	}
	dp, err := driver.FranzGo(exe, w.launcher, w.access).StartFranzGo(ctx, fs)
	if err != nil {
		return nil, err
	}
	w.ev.Emit(results.KindClient, w.num, dp.Startup().Info())
	log.line("client franz-go: %s (pid %d)", dp.Startup().Describe(), dp.Pid())
	return dp, nil
}

// redactStartup is a driver's startup as the evidence and the console
// get it: secret properties hidden (the SASL password in a JAAS
// configuration), and machine paths (a CA file's) and secrets elsewhere
// in its values replaced as in every other captured text.
func (w *workload) redactStartup(st driver.Startup) driver.Startup {
	st = st.Redacted()
	for k, v := range st.Config {
		st.Config[k] = w.con.red.String(v)
	}
	return st
}

// driverSpec is a produce step's spec as a driver takes it.
func driverSpec(spec kafka.ProduceSpec, seeds []string) driver.Spec {
	return driver.Spec{Topic: spec.Topic, Bootstrap: slices.Clone(seeds), From: spec.From, Count: spec.Count,
		Properties: spec.Properties, Rate: spec.Rate, Size: spec.Size, Keys: spec.Keys, Key: spec.Key, EventID: spec.EventID}
}

// installDrivers installs, before the run's first step, every driver its
// steps name: a first install resolves and compiles for a minute, which
// inside a timed experiment would shift every step after it (a `pause
// producer` three seconds after its producer started found no driver yet).
func (w *workload) installDrivers(ctx context.Context) error {
	for _, b := range w.opts.Doc.Blocks {
		for _, s := range b.Steps {
			var client string
			switch a := s.Action.(type) {
			case runbook.Produce:
				client = a.Client
			case runbook.Consume:
				client = a.Client
			case runbook.Transform:
				client = a.Client
			default:
				continue
			}
			ref, ok, err := w.refOf(client)
			if err != nil || !ok {
				continue // the step reports its own error when it runs
			}
			if _, err := w.drivers.get(ctx, ref, w.con); err != nil {
				return err
			}
		}
	}
	return nil
}
