package local

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"github.com/kafkabook/kafkabook/runbook"
)

// AddBroker starts a new broker-only node, the next id, in a namespace of
// its own on the cluster's bridge, on release version ("" the cluster's),
// formatted with the cluster's id: it registers with the controller
// quorum the cluster was made with and holds no replica until one is
// assigned to it. The caller waits for it to be registered.
func (b *Backend) AddBroker(ctx context.Context, version string, progress cluster.Progress) (cluster.Node, error) {
	return b.addNode(ctx, "broker add", version, false, progress)
}

// AddController starts a new node as AddBroker does, but a broker and
// controller like the cluster's first nodes, formatted to join its dynamic
// quorum as an observer; the caller makes it a voter.
func (b *Backend) AddController(ctx context.Context, version string, progress cluster.Progress) (cluster.Node, error) {
	return b.addNode(ctx, "voter add", version, true, progress)
}

// addNode starts the next node, a broker only or (controller) a broker
// and controller; op names the step in errors.
func (b *Backend) addNode(ctx context.Context, op, version string, controller bool, progress cluster.Progress) (cluster.Node, error) {
	if err := needRoot(op); err != nil {
		return cluster.Node{}, err
	}
	var dist kafkadist.Dist
	if version != "" {
		var err error
		if dist, err = kafkadist.Install(ctx, version, progress); err != nil {
			return cluster.Node{}, err
		}
	}
	var node cluster.Node
	err := b.changing(op, nil, func(st *state, _ []int) error {
		if st.PowerLoss || st.secure() {
			return fmt.Errorf("%s: cluster %q has the power-loss layer or SASL_SSL, which an added node does not get yet", op, b.name)
		}
		if controller && !st.Dynamic {
			return fmt.Errorf("%s: cluster %q has a static controller quorum, which cannot take a voter: make it with a dynamic one (quorum: dynamic)", op, b.name)
		}
		id := len(st.Nodes) + 1
		if id > maxNodes {
			return fmt.Errorf("%s: a local cluster has at most %d nodes", op, maxNodes)
		}
		name := runbook.NodeName(id)
		n := nodeState{Name: name, ID: id, NS: "kb-" + b.name + "-" + name, Dir: filepath.Join(b.dir, name), Added: true, Controller: controller}
		if dist.Version != "" && dist.Version != st.Kafka {
			n.Kafka, n.Libs = dist.Version, dist.Libs
		}
		// Recorded before anything is created, so that Down removes it.
		st.Nodes = append(st.Nodes, n)
		if err := b.save(*st); err != nil {
			return err
		}
		i := len(st.Nodes) - 1
		role := "broker"
		if controller {
			role = "broker and controller"
		}
		progress("adding %s %s (node id %d) to cluster %q", role, name, id, b.name)
		err := st.Network.createNode(n.NS, n.ID)
		st.Nodes[i].NSInode = nsInode(n.NS)
		if err == nil {
			err = b.save(*st)
		}
		if err == nil {
			err = st.prepare(ctx, st.Nodes[i])
		}
		if err == nil {
			st.Nodes[i], err = st.launch(st.Nodes[i])
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", op, name, err)
		}
		node, _ = b.status(*st).Node(name) // by name: Status leaves removed nodes out
		return nil
	})
	return node, err
}

// RemoveBroker takes node out of the cluster as an operator does: a clean
// shutdown (its leaderships move away first), after which the node no
// longer counts as one of the cluster's; the caller unregisters it from
// the controller. Its namespace and data stay until Down or Reset. A node
// the cluster was made with can go only from a dynamic quorum, whose
// voters the caller has checked it is no longer one of.
func (b *Backend) RemoveBroker(ctx context.Context, node string, progress cluster.Progress) error {
	return b.changing("broker remove", []string{node}, func(st *state, idx []int) error {
		i := idx[0]
		if !st.Nodes[i].Added && !st.Dynamic {
			return fmt.Errorf("broker remove %s: it is one of the controllers the cluster was made with (a static quorum): only an added broker can be removed, or, with a dynamic quorum, a node taken out of its voters first", node)
		}
		n, err := b.apply(ctx, st, cluster.Stop, st.Nodes[i], progress)
		st.Nodes[i] = n
		if err == nil {
			st.Nodes[i].Removed = true
		}
		return err
	})
}
