package runbook

// Meta is the front matter of a runbook, with defaults filled in and the
// command-line overrides applied.
type Meta struct {
	Title  string            // the title key, or else the first heading
	Kafka  []string          // Kafka versions to run against; default ["4.3.1"]
	Nodes  int               // number of nodes k1..kN; default 3
	Broker map[string]string // server.properties overrides, values as written
	Repeat int               // runs of the whole runbook; default 1
	Params map[string]string // parameter values after -p overrides
	// Sweep are the swept parameters, in the order written (sweep.go):
	// the runbook runs once per combination of their values.
	Sweep []SweepParam
	// Backend is the cluster backend the runbook asks for: one of
	// Backends, or "" for kafkabook's choice; --backend wins. The front
	// matter never names an external cluster's file: that file is the
	// machine's, not the runbook's (run --cluster-file).
	Backend string
	// Client are the clients produce steps send through, as written
	// (franz-go, java, java@3.9.1, librdkafka@2.15.1); the runbook runs
	// once per client, like once per Kafka release. Default
	// [DefaultClient]; --client wins.
	Client []string
	// Producer and Consumer are client properties by the client's own
	// names, for every produce step (and, later, consumer), checked
	// against each client's catalogue (Capabilities.ClientProperty).
	Producer map[string]string
	Consumer map[string]string
	// Quorum is the controller quorum the runbook's cluster is formatted
	// with: QuorumStatic, QuorumDynamic, or "" for the backend's choice (a
	// new local cluster's is static). voter add and voter remove need a
	// dynamic one.
	Quorum string
}

// The controller quorums a runbook may ask for (quorum:).
const (
	QuorumStatic  = "static"
	QuorumDynamic = "dynamic"
)

// DefaultKafka is the Kafka version used when the front matter names none.
const DefaultKafka = "4.3.1"

// Overrides are the command-line settings that take precedence over the
// front matter. Zero values leave the front matter alone.
type Overrides struct {
	Params map[string]string // -p name=value
	Repeat int               // --repeat
	Kafka  []string          // --kafka
	Nodes  int               // --nodes
	Client []string          // --client
	// Sweep is the combination of the sweep to load (run loads each in
	// turn); nil loads the first.
	Sweep Combination
}

// Backends are the backends a front matter may ask for: external runs
// against a cluster kafkabook did not start, described by a cluster file
// given on the command line.
var Backends = []string{"local", "docker", "kubernetes", "external"}
