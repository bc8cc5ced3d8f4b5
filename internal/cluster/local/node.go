package local

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/nsexec"
)

// Ports every node listens on, inside its own namespace.
const (
	brokerPort     = 9092
	controllerPort = 9093
)

// jvmFlags keep three brokers within a 2-core, small-memory machine and
// shorten start-up: a small serial-GC heap and the C1 compiler only.
var jvmFlags = []string{
	"-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
	"-XX:+ExitOnOutOfMemoryError", "-Xshare:auto", "-Djava.awt.headless=true",
}

// defaultBroker are the settings every node gets unless --set overrides
// them: few threads and small buffers, and groups that form at once.
var defaultBroker = map[string]string{
	"num.network.threads":                          "2",
	"num.io.threads":                               "2",
	"background.threads":                           "2",
	"num.replica.fetchers":                         "1",
	"num.recovery.threads.per.data.dir":            "1",
	"log.cleaner.dedupe.buffer.size":               "2097152",
	"log.cleaner.threads":                          "1",
	"offsets.topic.num.partitions":                 "3",
	"group.initial.rebalance.delay.ms":             "0",
	"auto.create.topics.enable":                    "false",
	"share.coordinator.state.topic.num.partitions": "1",
}

// properties renders node id's server.properties.
func (st state) properties(n nodeState) string {
	ip := st.Network.nodeIP(n.ID)
	rf := min(3, len(st.Nodes))
	props := map[string]string{
		"process.roles":                                    "broker,controller",
		"node.id":                                          fmt.Sprint(n.ID),
		"listeners":                                        fmt.Sprintf("PLAINTEXT://%s:%d,CONTROLLER://%s:%d", ip, brokerPort, ip, controllerPort),
		"advertised.listeners":                             fmt.Sprintf("PLAINTEXT://%s:%d", ip, brokerPort),
		"controller.listener.names":                        "CONTROLLER",
		"inter.broker.listener.name":                       "PLAINTEXT",
		"listener.security.protocol.map":                   "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
		"log.dirs":                                         filepath.Join(n.Dir, "data"),
		"offsets.topic.replication.factor":                 fmt.Sprint(rf),
		"transaction.state.log.replication.factor":         fmt.Sprint(rf),
		"transaction.state.log.min.isr":                    fmt.Sprint(min(2, rf)),
		"share.coordinator.state.topic.replication.factor": fmt.Sprint(rf),
		"share.coordinator.state.topic.min.isr":            fmt.Sprint(min(2, rf)),
	}
	if st.Dynamic {
		// The quorum's voters are in its own log; a node finds them
		// through the initial voters' endpoints, and a controller
		// advertises its own endpoint for the voter set.
		props["controller.quorum.bootstrap.servers"] = strings.Join(st.initialVoters(false), ",")
		props["advertised.listeners"] += fmt.Sprintf(",CONTROLLER://%s:%d", ip, controllerPort)
	} else {
		props["controller.quorum.voters"] = strings.Join(st.initialVoters(true), ",")
	}
	if n.Added && !n.Controller { // a broker only: it joins the quorum's brokers, not the quorum
		props["process.roles"] = "broker"
		props["listeners"] = fmt.Sprintf("PLAINTEXT://%s:%d", ip, brokerPort)
		props["advertised.listeners"] = props["listeners"]
	}
	if st.secure() {
		st.secureProperties(n, props)
	}
	maps.Copy(props, defaultBroker)
	maps.Copy(props, st.Broker)
	maps.Copy(props, n.Broker)
	var b strings.Builder
	b.WriteString("# written by kafkabook\n")
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	return b.String()
}

// initialVoters are the controllers the cluster was made with, the
// nodes not added since: with ids ("1@ip:port", controller.quorum.voters)
// or without (controller.quorum.bootstrap.servers).
func (st state) initialVoters(withIDs bool) []string {
	var voters []string
	for _, o := range st.Nodes {
		if o.Added {
			continue
		}
		addr := fmt.Sprintf("%s:%d", st.Network.nodeIP(o.ID), controllerPort)
		if withIDs {
			addr = fmt.Sprintf("%d@%s", o.ID, addr)
		}
		voters = append(voters, addr)
	}
	return voters
}

// formatArgs are the storage format's arguments that say how node n
// joins a dynamic quorum: the initial voters, each with its directory id
// (KIP-853's --initial-controllers), for the nodes the cluster was made
// with; none for an added controller, which starts as an observer.
func (st state) formatArgs(n nodeState) []string {
	switch {
	case !st.Dynamic || (n.Added && !n.Controller):
		return nil
	case n.Added:
		return []string{"--no-initial-controllers"}
	}
	var voters []string
	for _, o := range st.Nodes {
		if !o.Added {
			voters = append(voters, fmt.Sprintf("%d@%s:%d:%s", o.ID, st.Network.nodeIP(o.ID), controllerPort, o.DirectoryID))
		}
	}
	return []string{"--initial-controllers", strings.Join(voters, ",")}
}

// log4j2 sends every broker log line to logs/server.log with UTC ISO
// timestamps, so lines can be placed on the run's timeline.
const log4j2 = `status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:kafka.logs.dir}/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d{yyyy-MM-dd'T'HH:mm:ss.SSS'Z'}{UTC}] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.request.name = kafka.request.logger
logger.request.level = WARN
`

// LogFile is where a node's broker log is, relative to its directory.
const LogFile = "logs/server.log"

// prepare writes node n's configuration and formats its storage.
func (st state) prepare(ctx context.Context, n nodeState, extra ...string) error {
	for _, d := range []string{"data", "logs"} {
		if err := os.MkdirAll(filepath.Join(n.Dir, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(n.Dir, "server.properties"), []byte(st.properties(n)), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(n.Dir, "log4j2.properties"), []byte(log4j2), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "java", st.javaArgs(n, "kafka.tools.StorageTool", "format", "-t", st.ClusterID, "-c", filepath.Join(n.Dir, "server.properties"))...)
	cmd.Args = append(cmd.Args, st.formatArgs(n)...)
	cmd.Args = append(cmd.Args, extra...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// A format never outlives the process that asked for it.
	err := nsexec.Start("", cmd, true)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s: formatting storage failed: %v\n%s", n.Name, err, cluster.TailLines(out.String(), 20))
	}
	if st.PowerLoss {
		return n.moveToLayer()
	}
	return nil
}

// javaArgs is the JVM command line for running a main class for node n.
func (st state) javaArgs(n nodeState, args ...string) []string {
	full := append(slices.Clone(jvmFlags),
		"-Dkafka.logs.dir="+filepath.Join(n.Dir, "logs"),
		"-Dlog4j2.configurationFile="+filepath.Join(n.Dir, "log4j2.properties"),
		"-cp", filepath.Join(st.libs(n), "*"))
	return append(full, args...)
}

// libs is the directory of the jars node n runs on: its own release's
// after a Release, else the cluster's.
func (st state) libs(n nodeState) string {
	if n.Libs != "" {
		return n.Libs
	}
	return st.Libs
}

// launch starts node n's broker in its namespace (on its power-loss layer,
// mounted first, when the cluster has one; with libfaketime preloaded on
// the node's clock, when the cluster has Clock), in a session of its own
// (a Ctrl-C at the terminal reaches kafkabook, which takes the cluster down
// in order, not the JVMs). The JVM of a private cluster dies with this
// process; that of a kept cluster outlives it. It returns the node with
// its pid filled in.
func (st state) launch(n nodeState) (nodeState, error) {
	if st.PowerLoss {
		var err error
		if n, err = st.mountLayer(n); err != nil {
			return n, err
		}
	}
	out, err := os.OpenFile(filepath.Join(n.Dir, "logs", "stdout.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return n, err
	}
	defer out.Close()
	cmd := exec.Command("java", st.javaArgs(n, "kafka.Kafka", filepath.Join(n.Dir, "server.properties"))...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = n.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if st.Clock {
		if cmd.Env, err = n.clockEnv(); err != nil {
			return n, err
		}
	}
	if err := nsexec.Start(n.NS, cmd, st.private()); err != nil {
		return n, fmt.Errorf("%s: start java: %w", n.Name, err)
	}
	// Reap it if it dies while this process lives, so it does not linger
	// as a zombie that looks alive.
	go cmd.Wait()
	n.PID = cmd.Process.Pid
	n.StartTime = startTime(n.PID)
	n.Last = "start"
	return n, nil
}

// logTail is the end of node n's logs, for error messages.
func (n nodeState) logTail(lines int) string {
	var b strings.Builder
	for _, f := range []string{"logs/stdout.log", LogFile} {
		data, err := os.ReadFile(filepath.Join(n.Dir, f))
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		fmt.Fprintf(&b, "--- %s %s (last %d lines)\n%s\n", n.Name, f, lines, cluster.TailLines(string(data), lines))
	}
	return b.String()
}
