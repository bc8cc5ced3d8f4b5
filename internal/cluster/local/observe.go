package local

import (
	"context"
	"fmt"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/procstat"
)

var _ cluster.Observer = (*Backend)(nil)

// Observe reads what op left each node from /proc (a JVM gone, stopped
// or running) and, for isolate and rejoin, from a connection to its
// broker port: the process table and the kernel, not the state file.
func (b *Backend) Observe(ctx context.Context, op cluster.Op, names []string) (string, bool, error) {
	st, ok, err := b.load()
	if err != nil || !ok {
		return "", false, fmt.Errorf("no cluster %q is up", b.name)
	}
	idx, err := st.indexes(names)
	if err != nil {
		return "", false, err
	}
	var said []string
	all := true
	for _, i := range idx {
		n := st.Nodes[i]
		s, landed := observe(ctx, op, n, fmt.Sprintf("%s:%d", st.Network.nodeIP(n.ID), brokerPort))
		said = append(said, n.Name+": "+s)
		all = all && landed
	}
	return strings.Join(said, "; "), all, nil
}

func observe(ctx context.Context, op cluster.Op, n nodeState, addr string) (string, bool) {
	switch op {
	case cluster.Isolate:
		answered, said := cluster.Reach(ctx, addr, cluster.CutProbe)
		return said, !answered
	case cluster.Rejoin:
		answered, said := cluster.Reach(ctx, addr, cluster.AnswerProbe)
		return said, answered
	}
	p, err := procstat.Read(n.PID)
	gone := err != nil || p.Start != n.StartTime || p.Dead()
	return cluster.ProcessShows(op, fmt.Sprintf("pid %d", n.PID), gone, !gone && p.Stopped(), string(p.State))
}
