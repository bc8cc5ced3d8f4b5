package runbook

import (
	"strings"
	"time"
)

// disk: a node's disk full, failed or slow, under its log directory.

const OpDisk Op = "disk"

// Disk gives the nodes' disks a fault, or heals them:
// disk NODE... --full | --fail | --slow DUR | --size SIZE | --free SIZE | --heal.
type Disk struct {
	Targets []Target
	Full    bool
	Fail    bool
	Slow    time.Duration
	Size    int64 // bytes
	Free    int64 // bytes
	// Heal: none of the above, the disk works again.
}

func (Disk) action() {}

var diskDirective = &Directive{
	Op:    OpDisk,
	build: buildDisk,
	check: checkDisk,
	Name:  "disk",
	Summary: "Make the nodes' disks full (writes fail with ENOSPC), failed (every operation on the log directory fails with EIO), slow (each write and fsync waits DUR) or of a size (SIZE, or SIZE more than the log directory holds now: the broker fills it itself, its last write cut short and the next failing with ENOSPC), " +
		"until disk NODE... --heal or the heal between runs. The fault is the layer's under each node's log directory, so the broker meets it in its own system calls; " +
		"the step that heals says how many operations the fault refused or delayed. Needs the local backend with FUSE and root, as powerloss does.",
	Args: []ArgSpec{{Name: "NODE", Kind: KindTarget, Many: true}},
	Flags: []FlagSpec{
		{Name: "full", Kind: KindBool, Help: "Writes, and allocations that grow a file, fail with ENOSPC; reads, fsyncs of what was written, creations and removals still work."},
		{Name: "fail", Kind: KindBool, Help: "Every operation on the log directory fails with EIO, as on a disk that died; what the kernel answers from its page cache still reads."},
		{Name: "slow", Kind: KindDuration, Meta: "DUR", Help: "Each write and each fsync waits this long first."},
		{Name: "size", Kind: KindText, Meta: "SIZE", Help: "The log directory holds at most SIZE (`64MB`, `64MiB`, `1GB`): of a write that would take its files past it, what fits is written (a short write) and the next write fails with ENOSPC, as do allocations; space a removal or truncation frees takes writes again. " +
			"A file takes its written prefix in 4 KiB blocks, so the sparse index files Kafka lengthens without writing take what was written to them. The step says how much the files took when the limit was set."},
		{Name: "free", Kind: KindText, Meta: "SIZE", Help: "As --size, the size being what the log directory's files take when the step runs plus SIZE: the broker fills it after writing SIZE more, however much earlier experiments and runs left there."},
		{Name: "heal", Kind: KindBool, Help: "The disk works again."},
	},
	Example: `disk k3 --slow 20ms
disk k3 --heal
disk k1 --size 64MB
disk k1 --free 4MiB`,
	Lands: []FaultKind{
		{Op: "disk", Opens: "disk fault", Away: true, Phrase: "disk fault of ", Off: "healthy", Repair: "disk --heal",
			Observed: "the power-loss layer's count of the broker's operations the fault refused or delayed, read when the fault ends or the run does; a fault that met none says so",
			Cannot:   map[string]string{"docker": "keeps a node's data in a Docker volume, not on kafkabook's layer (a FUSE mount of this machine)", "kubernetes": "keeps a node's data on a PersistentVolumeClaim, not on kafkabook's layer (a FUSE mount of this machine)", "external": "applies only the node faults of its cluster file"}},
		{Op: "disk in force", Phrase: "disk faults at the run's end"},
	},
	Hurts: true,
	Layer: true,
	Alone: "it needs a cluster on the layer under each node's data; the engine's TestDisk and examples/disk-full.md run it",
}

func buildDisk(st *Step) Action {
	size, _ := parseSize(st.flagStr("size"))
	free, _ := parseSize(st.flagStr("free"))
	return Disk{Targets: st.targets(), Full: st.flagBool("full"), Fail: st.flagBool("fail"), Slow: st.flagDuration("slow"), Size: size, Free: free}
}

// checkDisk wants exactly one of the six flags, and a machine and
// backend that can serve the layer.
func checkDisk(c *checker, st *Step, _ string, _ Pos) {
	var given []string
	for _, f := range []string{"full", "fail", "slow", "size", "free", "heal"} {
		if st.given(f) {
			given = append(given, "--"+f)
		}
	}
	switch {
	case len(given) == 0:
		c.errorf(st.lineEnd(), "disk needs one of --full, --fail, --slow DUR, --size SIZE, --free SIZE or --heal")
	case len(given) > 1:
		c.errorf(st.flagPos(given[1][2:]), "disk takes one of --full, --fail, --slow, --size, --free and --heal, not %s and %s", given[0], given[1])
	case st.flagDuration("slow") > time.Minute:
		c.errorf(st.flagPos("slow"), "bad --slow %s: at most 1m; a slower disk leaves the run to the broker's timeouts", st.flagStr("slow"))
	case st.given("size") || st.given("free"):
		f := given[0][2:]
		if _, msg := parseSize(st.flagStr(f)); msg != "" {
			c.errorf(st.flagPos(f), "bad --%s %q: %s", f, st.flagStr(f), msg)
		}
	}
	c.needLayer(st, "disk")
}

// parseSize reads a size in bytes with a unit: 64MB, 512KB, 1GB (1000s)
// or 64MiB, 512KiB, 1GiB (1024s).
func parseSize(s string) (bytes int64, msg string) {
	const want = "want a whole number of bytes with a unit, like 64MB, 64MiB, 512KB or 1GB"
	prefixes := map[byte]int64{'K': 1_000, 'k': 1_000, 'M': 1_000_000, 'G': 1_000_000_000}
	num, ok := strings.CutSuffix(s, "iB")
	if ok {
		prefixes = map[byte]int64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}
		if k := len(num); k == 0 || prefixes[num[k-1]] == 0 {
			return 0, want
		}
	} else if num, ok = strings.CutSuffix(s, "B"); !ok {
		return 0, want
	}
	bytes, ok = scaled(num, prefixes, 1<<40)
	switch {
	case !ok:
		return 0, want + ", up to 1TiB"
	case bytes < 1<<20:
		return 0, "at least 1MiB; a disk with no room at all is --full"
	}
	return bytes, ""
}
