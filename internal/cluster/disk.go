package cluster

import (
	"context"
	"fmt"
	"time"
)

// Disks is implemented by backends whose nodes' data sits on a layer
// kafkabook serves, through which every operation the broker makes on its
// log directory passes (the local backend's power-loss layer): the layer
// answers as a full, failed or slow disk would, with the errno a real one
// gives, to the broker's own system calls and nothing else.
type Disks interface {
	// Disk puts f in force under the nodes' log directories (the zero
	// DiskFault heals them) and returns, for each node, the fault it
	// replaced and what that fault did while in force.
	Disk(ctx context.Context, nodes []string, f DiskFault) ([]DiskState, error)
	// DiskStates is every node's fault in force and what it did so far.
	DiskStates(ctx context.Context) ([]DiskState, error)
}

// A DiskFault is what a node's disk does wrong; the zero value is a
// healthy disk.
type DiskFault struct {
	Full bool          `json:"full,omitempty"` // writes fail with ENOSPC
	Fail bool          `json:"fail,omitempty"` // every operation fails with EIO
	Slow time.Duration `json:"slow,omitempty"` // each write and fsync waits this long
	Size int64         `json:"size,omitempty"` // the directory holds at most this many bytes
	Free int64         `json:"free,omitempty"` // Size is what the directory's files take when set, plus this
}

// String is the fault as a fault event's argument says it: "full",
// "failed", "slow 50ms", "size 64.0 MiB", "free 4.0 MiB", or "healthy".
func (f DiskFault) String() string {
	switch {
	case f.Fail:
		return "failed"
	case f.Full:
		return "full"
	case f.Slow > 0:
		return "slow " + f.Slow.String()
	case f.Free > 0:
		return "free " + BytesText(f.Free)
	case f.Size > 0:
		return "size " + BytesText(f.Size)
	}
	return "healthy"
}

// BytesText is a byte count for people: 812 B, 14.2 KiB, 3.1 MiB.
func BytesText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}

// DiskState is one node's disk fault and what it did: the operations it
// refused (ENOSPC, EIO) and those it delayed since it was put in force.
// A fault that did neither changed nothing the broker did. Used is the
// space the log directory's files take, as the layer counts it, with or
// without a fault: what a size limit is measured against.
type DiskState struct {
	Node    string    `json:"node"`
	Fault   DiskFault `json:"fault"`
	Refused int64     `json:"refused"`
	Delayed int64     `json:"delayed"`
	Used    int64     `json:"used"`
	Limit   int64     `json:"limit,omitempty"` // the size in force (Size, or what Free made of it)
}

// InForce says a fault is in force on the node's disk.
func (s DiskState) InForce() bool { return s.Fault != DiskFault{} }

// Landed says, in words, what the fault did, or that it did nothing; a
// fault that refused and delayed nothing did not land (landed false):
// the broker never met it.
func (s DiskState) Landed() (said string, landed bool) {
	switch {
	case s.Fault == DiskFault{}:
		return s.Node + "'s disk was healthy", true
	case s.Refused > 0:
		return fmt.Sprintf("%s's disk (%s) refused %d operations", s.Node, s.Fault, s.Refused), true
	case s.Delayed > 0:
		return fmt.Sprintf("%s's disk (%s) delayed %d writes and fsyncs", s.Node, s.Fault, s.Delayed), true
	}
	return fmt.Sprintf("%s's disk (%s) met no operation of the broker: the fault changed nothing", s.Node, s.Fault), false
}

// healDisks heals every node's disk that has a fault in force, before
// BringBack starts a broker that the fault took down.
func healDisks(ctx context.Context, b Backend, say func(op Op, node string, was State)) error {
	d, ok := b.(Disks)
	if !ok {
		return nil
	}
	states, err := d.DiskStates(ctx)
	if err != nil {
		return fmt.Errorf("reading the disks' faults: %w", err)
	}
	var sick []string
	for _, s := range states {
		if s.Fault != (DiskFault{}) {
			sick = append(sick, s.Node)
		}
	}
	if len(sick) == 0 {
		return nil
	}
	healed, err := d.Disk(ctx, sick, DiskFault{})
	for _, s := range healed {
		say(repairOf("disk"), s.Node, State(s.Fault.String()))
	}
	return err
}
