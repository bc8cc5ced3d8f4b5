package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Corrupter is implemented by backends that can reach a stopped node's
// log directory from this machine, to damage a partition's newest
// segment as a disk or a crash in the middle of a write would: bytes
// flipped, or the tail cut. The broker finds it, or not, when it starts:
// Kafka recovers the segments past its recovery point after an unclean
// shutdown, and trusts them after a clean one.
type Corrupter interface {
	// Corrupt damages the newest segment of the partition's log on node,
	// which must not be running, and says what it did.
	Corrupt(ctx context.Context, node string, c Corruption) (Corrupted, error)
}

// Corruption is what to damage: a partition (Dir is its directory's
// name, TOPIC-PARTITION) and how, Flip bytes inverted at random offsets
// of the segment's last tailBytes, or Truncate bytes cut off its end.
type Corruption struct {
	Dir      string
	Flip     int
	Truncate int64
}

// Corrupted is what Corrupt did, for the evidence: the segment (relative
// to the log directory), its size before, and the offsets of the bytes it
// inverted or the size it was cut to.
type Corrupted struct {
	Node    string  `json:"node"`
	Segment string  `json:"segment"`
	Size    int64   `json:"size"`
	Flipped []int64 `json:"flipped,omitempty"`
	CutTo   int64   `json:"cut_to,omitempty"`
}

// String says it in the words of the evidence.
func (c Corrupted) String() string {
	if len(c.Flipped) > 0 {
		offs := make([]string, len(c.Flipped))
		for i, o := range c.Flipped {
			offs[i] = fmt.Sprint(o)
		}
		return fmt.Sprintf("%s: %s (%d bytes): inverted the byte(s) at %s", c.Node, c.Segment, c.Size, strings.Join(offs, ", "))
	}
	return fmt.Sprintf("%s: %s (%d bytes): cut to %d bytes", c.Node, c.Segment, c.Size, c.CutTo)
}

// tailBytes is where flips land: the segment's last batches, those a
// broker that died mid-write would have written last and that recovery
// after an unclean shutdown reads again.
const tailBytes = 4096

// CorruptSubcommand is the kafkabook binary's hidden role that runs
// CorruptLogDir where it runs (package subcommand), for a backend that
// reaches a node's log directory only from inside the node's pod:
// `kafkabook corrupt-logdir LOGDIR NODE CORRUPTION-JSON` prints Corrupted
// as JSON.
const CorruptSubcommand = "corrupt-logdir"

// CorruptLogDir does c in the log directory logDir on this machine, for a
// backend whose node's log directory is one.
func CorruptLogDir(logDir, node string, c Corruption) (Corrupted, error) {
	dir := filepath.Join(logDir, c.Dir)
	segs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return Corrupted{}, err
	}
	if len(segs) == 0 {
		return Corrupted{}, fmt.Errorf("%s holds no log of %s: is a replica of it on %s?", node, c.Dir, node)
	}
	slices.Sort(segs) // base offsets, zero-padded: the newest is last
	seg := segs[len(segs)-1]
	f, err := os.OpenFile(seg, os.O_RDWR, 0)
	if err != nil {
		return Corrupted{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Corrupted{}, err
	}
	done := Corrupted{Node: node, Segment: filepath.Join(c.Dir, filepath.Base(seg)), Size: fi.Size()}
	if fi.Size() == 0 {
		return done, fmt.Errorf("%s's newest segment of %s (%s) is empty: nothing to corrupt", node, c.Dir, done.Segment)
	}
	if c.Truncate > 0 {
		done.CutTo = max(0, fi.Size()-c.Truncate)
		if err := f.Truncate(done.CutTo); err != nil {
			return done, err
		}
		return done, f.Sync()
	}
	from := max(0, fi.Size()-tailBytes)
	for _, off := range pick(c.Flip, from, fi.Size()) {
		b := make([]byte, 1)
		if _, err := f.ReadAt(b, off); err != nil {
			return done, err
		}
		b[0] ^= 0xff
		if _, err := f.WriteAt(b, off); err != nil {
			return done, err
		}
		done.Flipped = append(done.Flipped, off)
	}
	return done, f.Sync()
}

// pick is n distinct offsets in [from, to), sorted (fewer when the range
// is shorter).
func pick(n int, from, to int64) []int64 {
	n = int(min(int64(n), to-from))
	seen := map[int64]bool{}
	for len(seen) < n {
		seen[from+rand.Int64N(to-from)] = true
	}
	out := make([]int64, 0, n)
	for o := range seen {
		out = append(out, o)
	}
	slices.Sort(out)
	return out
}
