package docker

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// A dynamic controller quorum (KIP-853, cluster.QuorumDynamic) on Docker:
// the compose file's controller.quorum.voters become the nodes' bootstrap
// servers, each initial voter is formatted with all of them and their
// directory ids (kafkabook/kafka's entrypoint reads
// KAFKABOOK_INITIAL_CONTROLLERS), and every controller advertises its
// controller listener for the voter set. A controller added later
// (AddController) is formatted without voters and joins as an observer.

var _ cluster.Controllers = (*Backend)(nil)

// labelQuorum is the quorum a container's cluster was formatted with.
const labelQuorum = "kafkabook.quorum"

// applyQuorum turns the project's static quorum into a dynamic one.
func (p *project) applyQuorum() error {
	for i := range p.Nodes {
		if v := p.Nodes[i].Service.Environment["KAFKA_CONTROLLER_QUORUM_VOTERS"]; v == nil || *v == "" {
			return fmt.Errorf("compose file: service %s sets no KAFKA_CONTROLLER_QUORUM_VOTERS, which a dynamic quorum is made from", p.Nodes[i].Name)
		}
	}
	voters := strings.Split(*p.Nodes[0].Service.Environment["KAFKA_CONTROLLER_QUORUM_VOTERS"], ",")
	var initial, bootstrap []string
	for _, v := range voters {
		id, addr, ok := strings.Cut(v, "@")
		if !ok {
			return fmt.Errorf("compose file: KAFKA_CONTROLLER_QUORUM_VOTERS entry %q is not ID@HOST:PORT", v)
		}
		initial = append(initial, fmt.Sprintf("%s@%s:%s", id, addr, cluster.RandomUUID()))
		bootstrap = append(bootstrap, addr)
	}
	for i := range p.Nodes {
		env := maps.Clone(p.Nodes[i].Service.Environment)
		delete(env, "KAFKA_CONTROLLER_QUORUM_VOTERS")
		set := func(k, v string) { env[k] = &v }
		set("KAFKA_CONTROLLER_QUORUM_BOOTSTRAP_SERVERS", strings.Join(bootstrap, ","))
		set("KAFKABOOK_INITIAL_CONTROLLERS", strings.Join(initial, ","))
		own := ""
		for _, v := range voters {
			if id, addr, _ := strings.Cut(v, "@"); id == fmt.Sprint(p.Nodes[i].ID) {
				own = addr
			}
		}
		if own == "" {
			return fmt.Errorf("compose file: node %s is not among the voters %s", p.Nodes[i].Name, strings.Join(voters, ","))
		}
		names := env["KAFKA_CONTROLLER_LISTENER_NAMES"]
		if names == nil {
			return fmt.Errorf("compose file: service %s sets no KAFKA_CONTROLLER_LISTENER_NAMES", p.Nodes[i].Name)
		}
		adv := ""
		if a := env["KAFKA_ADVERTISED_LISTENERS"]; a != nil {
			adv = *a + ","
		}
		set("KAFKA_ADVERTISED_LISTENERS", adv+strings.Split(*names, ",")[0]+"://"+own)
		p.Nodes[i].Service.Environment = env
	}
	return nil
}

// AddController starts a new broker and controller, the next node id,
// formatted to join the dynamic quorum as an observer.
func (b *Backend) AddController(ctx context.Context, version string, progress cluster.Progress) (cluster.Node, error) {
	return b.addNode(ctx, version, true, progress)
}
