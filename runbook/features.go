package runbook

import (
	"fmt"
	"regexp"
	"strings"
)

// features: the cluster's finalized feature levels, now; features upgrade:
// finalize higher levels, as an operator does after a rolling upgrade.

const (
	OpFeatures        Op = "features"
	OpFeaturesUpgrade Op = "features upgrade"
)

// Features shows the finalized feature levels: features.
type Features struct{}

// FeaturesUpgrade finalizes feature levels with Kafka's own tool, as
// kafka-features.sh upgrade does: features upgrade [--metadata VERSION]
// [--feature NAME=LEVEL]...
type FeaturesUpgrade struct {
	Metadata string            // a metadata.version by release ("4.3", "4.3-IV0"), or ""
	Release  string            // every feature to this release's levels ("4.3"), or ""
	Features map[string]string // other features by name: transaction.version=2
}

func (Features) action() {}

func (FeaturesUpgrade) action() {}

var featuresDirective = &Directive{
	Op:    OpFeatures,
	build: func(*Step) Action { return Features{} },
	Name:  "features",
	Summary: "Show the cluster's finalized feature levels now (metadata.version, transaction.version, group.version, ...), " +
		"as a broker answers ApiVersions; the levels at the run's start are in the provenance.",
	Example: `features`,
}

var featuresUpgradeDirective = &Directive{
	Op:    OpFeaturesUpgrade,
	build: buildFeaturesUpgrade,
	check: checkFeaturesUpgrade,
	Name:  "features upgrade",
	Summary: "Finalize higher feature levels, as kafka-features.sh upgrade does after a rolling upgrade: Kafka's own tool runs on a node, with that node's release. " +
		"The step prints the tool's output and the levels finalized afterwards, which the evidence keeps. The local, docker and kubernetes backends can.",
	Flags: []FlagSpec{
		{Name: "metadata", Kind: KindText, Meta: "VERSION",
			Help: "The metadata.version to finalize, by release: `4.3`, or a level's name like `4.3-IV0`; the other features keep their levels (kafka-features.sh upgrade --metadata)."},
		{Name: "release", Kind: KindText, Meta: "VERSION",
			Help: "Every feature to the levels of this release (`4.3`), as kafka-features.sh upgrade --release-version does: kraft.version too, which makes the controller quorum dynamic (KIP-853)."},
		{Name: "feature", Kind: KindKeyValue, Meta: "NAME=LEVEL", Many: true,
			Help: "Another feature's level: `transaction.version=2`, `group.version=1`."},
	},
	Example: `features upgrade --metadata 4.3`,
	Hurts:   true,
}

func buildFeaturesUpgrade(st *Step) Action {
	return FeaturesUpgrade{Metadata: st.flagStr("metadata"), Release: st.flagStr("release"), Features: st.flagKeyValues("feature")}
}

var metadataVersionRE = regexp.MustCompile(`^\d+\.\d+(-IV\d+)?$`)

// checkFeaturesUpgrade: at least one feature, each level a number.
func checkFeaturesUpgrade(c *checker, st *Step, _ string, _ Pos) {
	n := 0
	for _, f := range []string{"metadata", "release", "feature"} {
		if st.given(f) {
			n++
		}
	}
	switch {
	case n == 0:
		c.errorf(st.Pos, "features upgrade needs --metadata VERSION, --release VERSION or --feature NAME=LEVEL: which levels to finalize")
	case n > 1:
		c.errorf(st.Pos, "features upgrade takes one of --metadata, --release and --feature, as kafka-features.sh upgrade does")
	}
	for _, f := range []string{"metadata", "release"} {
		if m := st.flagStr(f); m != "" && !metadataVersionRE.MatchString(m) {
			c.errorf(st.flagPos(f), "bad --%s %q: want a release like 4.3 or a level like 4.3-IV0", f, m)
		}
	}
	for _, a := range st.Flags["feature"] {
		name, level, _ := strings.Cut(a.Text, "=")
		if name == "metadata.version" {
			c.errorf(a.Pos, "--feature metadata.version: use --metadata VERSION")
			continue
		}
		var n int
		if _, err := fmt.Sscanf(level, "%d", &n); err != nil || n < 0 || fmt.Sprint(n) != level {
			c.errorf(a.Pos, "bad --feature %q: want NAME=LEVEL with a whole-number level, like transaction.version=2", a.Text)
		}
	}
}
