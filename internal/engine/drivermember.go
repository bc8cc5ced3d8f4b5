package engine

// A consumer group member whose client is not franz-go runs through that
// client's driver (driver.Member, docs/driver-protocol.md "Consumer group
// members"): same spec, same store, same reports, so the group's tallies
// do not depend on the client.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/kafka"
	"github.com/kafkabook/kafkabook/internal/launch"
	"github.com/kafkabook/kafkabook/results"
)

// startDriverMember starts member n of g through the driver ref names,
// records the client's startup in the provenance, and reads its reports.
// A property the client does not know fails the start, as for producers.
func (w *workload) startDriverMember(ctx context.Context, g *group, ref driver.Ref, n, crashAt int, crashPoint string) (memberProcess, error) {
	d, err := w.drivers.get(ctx, ref, w.con)
	if err != nil {
		return memberProcess{}, err
	}
	c := g.spec
	props := memberProperties(c.Properties)
	if err := driver.Refuse(ref.Client, clientconfig.Consumer, props); err != nil {
		return memberProcess{}, err
	}
	spec := driver.MemberSpec{
		Client: ref.Client, Bootstrap: w.reachable(ctx).Seeds, Topic: g.topic.name, Group: g.name, Member: n,
		Commit: c.Commit, AutoCommit: c.AutoCommit, Batch: c.Batch, Work: c.Work, Dedup: c.Dedup,
		CrashAt: crashAt, CrashPoint: crashPoint, Store: g.store, Handoff: c.Handoff, AckMode: c.AckMode,
		Properties: props, Access: driver.SecurityProperties(ref.Client, w.access),
	}
	var dm *driver.Member
	if g.transform != nil {
		var ts driver.TransformSpec
		if ts, err = w.driverTransformSpec(ctx, g, ref, n, crashAt); err == nil {
			dm, err = d.StartTransform(ctx, ts)
		}
	} else {
		dm, err = d.StartMember(ctx, spec)
	}
	if err != nil {
		return memberProcess{}, fmt.Errorf("starting member %d of group %s: %w", n, g.label, err)
	}
	st := w.redactStartup(dm.Startup())
	letThrough, refused := splitUnknown(st.Unknown, c.AllowUnknown)
	if len(refused) > 0 {
		dm.Close()
		return memberProcess{}, fmt.Errorf("the %s client does not know the consumer properties %s: it would ignore them; fix their names (kafkabook check lists the client's), or let them through with --allow-unknown NAME to record what the client does with them",
			ref, strings.Join(refused, ", "))
	}
	info := st.Info()
	for k := range maps.Keys(props) {
		if _, given := c.Properties[k]; !given && !slices.Contains(info.SetByKafkabook, k) {
			info.SetByKafkabook = append(info.SetByKafkabook, k) // the group timing (memberProperties)
		}
	}
	for _, k := range memberOwn {
		if _, given := c.Properties[k]; !given && !slices.Contains(info.SetByKafkabook, k) {
			if _, ok := info.Config[k]; ok {
				info.SetByKafkabook = append(info.SetByKafkabook, k)
			}
		}
	}
	slices.Sort(info.SetByKafkabook)
	w.ev.Emit(results.KindClient, w.num, info)
	w.con.printf("  group %s member %d: client %s (started in %s): %s\n", g.label, n, ref, st.Took.Round(time.Millisecond), st.DescribeMember())
	var notes []string
	if len(c.AllowUnknown) > 0 {
		notes = clientReaction(ctx, ref.String(), c.AllowUnknown, letThrough, dm.StderrLines, dm.Exited())
	}
	return w.memberProcess(g, n, dm, notes), nil
}

// memberOwn are the settings every driver's member takes from the
// protocol rather than from the step or the client's defaults
// (docs/driver-protocol.md), named as kafkabook's in the evidence where
// the client has them: it reads from the earliest offset (the Java client
// and librdkafka default to the latest), kafkabook's values as bytes, and
// the Java client reports its commits through kafkabook's interceptor.
var memberOwn = []string{"auto.offset.reset", "key.deserializer", "value.deserializer", "interceptor.classes"}

// memberProcess is a started member of any client: how to signal it (a
// clean stop is the driver's own), read its reports and reap it.
func (w *workload) memberProcess(g *group, n int, dm *driver.Member, notes []string) memberProcess {
	m := &member{n: n, pid: dm.Pid(), start: time.Now().UTC(), done: make(chan struct{}), stderr: dm.StderrTail,
		logged: dm.StderrLines, notes: notes}
	m.signal = func(sig syscall.Signal) error {
		if sig == syscall.SIGTERM {
			return dm.Stop() // the driver's own clean stop
		}
		// The whole process group, where it runs: the JVM's or Python's
		// children too.
		return dm.Signal(sig)
	}
	read := func(yield func(results.ConsumerEvent)) {
		for {
			ev, err := dm.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					w.con.printf("  group %s member %d: reading its reports: %v\n", g.label, n, err)
				}
				return
			}
			yield(ev)
		}
	}
	wait := func() (launch.Exit, error) {
		state, err := dm.Wait()
		dm.Close()
		return state, err
	}
	return memberProcess{m, read, wait}
}

// memberProperties are a step's consumer properties with kafkabook's
// group timing where they do not set it: the session and heartbeat its
// franz-go member runs with (kafka.SessionTimeout), so that a crashed
// member's partitions reach its successor within seconds on every client
// (the Java client's default session is 45 s). With group.protocol=consumer
// (KIP-848) the broker owns both, and the client refuses them.
func memberProperties(given map[string]string) map[string]string {
	props := maps.Clone(given)
	if props == nil {
		props = map[string]string{}
	}
	if props["group.protocol"] == "consumer" {
		return props
	}
	if _, ok := props["session.timeout.ms"]; !ok {
		props["session.timeout.ms"] = strconv.FormatInt(kafka.SessionTimeout.Milliseconds(), 10)
		if _, ok := props["heartbeat.interval.ms"]; !ok {
			props["heartbeat.interval.ms"] = strconv.FormatInt(kafka.HeartbeatInterval.Milliseconds(), 10)
		}
	}
	return props
}
