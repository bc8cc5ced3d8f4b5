package cluster

import "context"

// PowerLoss is implemented by backends whose nodes can lose power: each
// node's data directory sits on a layer that keeps what the broker writes
// in memory until the broker fsyncs it (the local backend's FUSE layer,
// internal/powerfs), so that a power loss can throw away exactly what a
// machine losing power loses. Apply(Start) brings a node back on what was
// durable.
type PowerLoss interface {
	// PowerLoss kills the nodes' brokers with SIGKILL, all at once, and
	// discards everything they wrote and had not fsynced. It fails for a
	// cluster started without the layer.
	PowerLoss(ctx context.Context, nodes []string, progress Progress) ([]Dropped, error)
}

// Dropped is what one node lost with its power.
type Dropped struct {
	Node     string `json:"node"`
	Bytes    int64  `json:"bytes"`    // written and not fsynced
	Files    int    `json:"files"`    // files those bytes were written to
	Metadata int    `json:"metadata"` // creations, renames, removals and size changes not yet durable
}
