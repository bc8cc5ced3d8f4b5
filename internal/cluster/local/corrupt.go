package local

import (
	"context"
	"fmt"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

var _ cluster.Corrupter = (*Backend)(nil)

// Corrupt damages the newest segment of a partition in a node's log
// directory (<node>/data; on the power-loss layer, through its mount,
// which lives while the broker is down). The broker must be down: a
// running one holds the segment open and would write over the damage.
func (b *Backend) Corrupt(ctx context.Context, node string, c cluster.Corruption) (cluster.Corrupted, error) {
	var done cluster.Corrupted
	err := b.changing("corrupt", []string{node}, func(st *state, idx []int) error {
		n := st.Nodes[idx[0]]
		if alive, _ := n.alive(); alive {
			return fmt.Errorf("%s is running: stop or kill it before corrupting its log (a running broker holds the segment open)", node)
		}
		if st.PowerLoss && !(n.Layer.alive() && layerMounted(n.dataDir())) {
			return fmt.Errorf("%s lost power and its layer is not mounted: start it, then stop it, to corrupt what it holds", node)
		}
		var err error
		done, err = cluster.CorruptLogDir(n.dataDir(), node, c)
		return err
	})
	return done, err
}
