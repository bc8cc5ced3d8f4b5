package local

import (
	"context"
	"os/exec"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// dropSockets destroys the TCP sockets a killed broker leaves in its
// network namespace. A process killed with SIGKILL dies at once, but the
// kernel keeps its sockets (FIN-WAIT, data unsent) and keeps retransmitting
// what the broker had written into them: a fetch response still queued for
// a follower that was cut off would reach it on rejoin, after the broker
// was dead, and hand it records no live leader has. A machine that
// crashes, or a container that is killed, takes its network stack with
// it; so does this. Where the kernel cannot destroy sockets (no
// SOCK_DESTROY), it says so.
func dropSockets(ctx context.Context, n nodeState, progress cluster.Progress) {
	if !nsExists(n.NS) {
		return
	}
	exec.CommandContext(ctx, "ip", "netns", "exec", n.NS, "ss", "-K", "-tn", "state", "all").Run() // checked below
	out, err := exec.CommandContext(ctx, "ip", "netns", "exec", n.NS, "ss", "-Htn", "state", "all").Output()
	if err != nil {
		return
	}
	if left := strings.Count(strings.TrimSpace(string(out)), "\n") + 1; strings.TrimSpace(string(out)) != "" && progress != nil {
		progress("%s: the kernel kept %d TCP socket(s) of the killed broker (no SOCK_DESTROY here): data queued in them may still be delivered", n.Name, left)
	}
}
