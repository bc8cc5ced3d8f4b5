package driver

import (
	"context"
	"encoding/json"
	"time"
)

// TransformSpec is a consume-transform-produce member a driver runs
// (docs/driver-protocol.md, "Transform members"): the work of kafkabook's
// own transform member (package consumer, TransformSpec) through the
// driver's client, with the same reports.
type TransformSpec struct {
	Client    string   // java: the driver's name for itself
	Bootstrap []string // the group's cluster
	In, Out   string   // the input topic (subscribed in Group) and the output topic
	Group     string   // group.id
	Member    int      // the member's number in the group, in every event
	EOS       bool     // each poll's derived records and input offsets in one transaction
	TxnID     string   // with EOS: the transactional.id every member of the group shares
	// TxnTimeout is transaction.timeout.ms with EOS; 0: the client's
	// default.
	TxnTimeout time.Duration
	Batch      int           // the most records a poll (and a transaction) holds
	Work       time.Duration // the processing time of one record
	CrashAt    int           // SIGKILL after the CrashAt-th derived record, before the commit; 0: none
	Effect     bool          // also apply each record's effect to Store, guarded by Dedup
	Dedup      string        // none, table or transactional
	Store      string        // the group's SQLite file, absolute, with Effect
	// Properties are consumer properties by the client's own names,
	// applied after the member's own settings.
	Properties map[string]string
	Access     map[string]string // the cluster's access (SecurityProperties), applied last
}

// MarshalJSON writes the spec line: "role":"transform" and durations in
// milliseconds.
func (s TransformSpec) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Role       string            `json:"role"`
		Client     string            `json:"client"`
		Bootstrap  []string          `json:"bootstrap_servers"`
		In         string            `json:"in"`
		Out        string            `json:"out"`
		Group      string            `json:"group"`
		Member     int               `json:"member"`
		EOS        bool              `json:"eos"`
		TxnID      string            `json:"txn_id,omitempty"`
		TxnTimeout int64             `json:"transaction_timeout_ms,omitempty"`
		Batch      int               `json:"batch"`
		Work       int64             `json:"work_ms"`
		CrashAt    int               `json:"crash_at"`
		Effect     bool              `json:"effect"`
		Dedup      string            `json:"dedup"`
		Store      string            `json:"store,omitempty"`
		Properties map[string]string `json:"properties"`
		Access     map[string]string `json:"access,omitempty"`
	}{"transform", s.Client, s.Bootstrap, s.In, s.Out, s.Group, s.Member, s.EOS, s.TxnID, s.TxnTimeout.Milliseconds(),
		s.Batch, s.Work.Milliseconds(), s.CrashAt, s.Effect, s.Dedup, s.Store, s.Properties, s.Access})
}

// StartTransform spawns the driver as a transform member and waits for
// its startup_complete; the member consumes from then on. It is read,
// stopped and killed as a Member.
func (d Driver) StartTransform(ctx context.Context, spec TransformSpec) (*Member, error) {
	if spec.Client == "" {
		spec.Client = d.Ref.Client
	}
	return d.startMember(ctx, spec, spec.Store)
}
