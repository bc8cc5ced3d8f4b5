package local

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/procstat"
	"github.com/kafkabook/kafkabook/runbook"
)

// maxNodes is the most nodes a local cluster has.
const maxNodes = 9

// derived is every host-wide name a cluster called name may have created,
// derived from the name alone: what remains of it can be found and removed
// with or without its state file.
type derived struct {
	Namespaces []string // kb-<name>-k1 ...
	Links      []string // host and peer veth of each node (the peer, once moved, lives in the namespace)
	Bridge     string   // kb<tag>
}

func derivedNames(name string) derived {
	d := derived{Bridge: "kb" + tag(name)}
	net := Network{Bridge: d.Bridge}
	for id := 1; id <= maxNodes; id++ {
		d.Namespaces = append(d.Namespaces, fmt.Sprintf("kb-%s-k%d", name, id))
		d.Links = append(d.Links, net.hostVeth(id), net.peerVeth(id))
	}
	return d
}

// removeStrays deletes namespaces and links that carry this cluster's names
// whether or not a state file records them (a crash between creating them
// and saving). Errors are recorded in errs, by name.
func (b *Backend) removeStrays(errs map[string]error) {
	d := derivedNames(b.name)
	for _, ns := range d.Namespaces {
		note(errs, ns, deleteNS(ns))
	}
	for _, l := range d.Links {
		note(errs, l, deleteLink(l))
	}
	note(errs, d.Bridge, deleteLink(d.Bridge))
}

func note(errs map[string]error, what string, err error) {
	if err != nil && errs[what] == nil {
		errs[what] = err
	}
}

// remove kills the cluster's processes and deletes its namespaces, links
// and directory. It goes on past errors and records them in errs, keyed by
// the resource's name; leftovers then says what remains. It records the
// namespaces' inodes in st first, so that a namespace that lives on after
// its name is gone can still be found.
func (b *Backend) remove(ctx context.Context, st *state, progress cluster.Progress, errs map[string]error) {
	for i, n := range st.Nodes {
		if ino := nsInode(n.NS); ino != 0 {
			st.Nodes[i].NSInode = ino
		}
	}
	// Kill the nodes, then wait for them to exit before looking for strays:
	// a JVM that is still exiting is not a stray.
	var killed []nodeState
	for _, n := range st.Nodes {
		if alive, _ := n.alive(); alive {
			progress("killing %s (pid %d)", n.Name, n.PID)
			note(errs, n.Name, n.signal(syscall.SIGKILL))
			killed = append(killed, n)
		}
	}
	for _, n := range killed {
		note(errs, n.Name, n.waitGone(ctx, 10*time.Second, progress))
	}
	// Then their power-loss layers, whose mounts go below.
	for _, n := range st.Nodes {
		if n.Layer.alive() {
			progress("stopping the power-loss layer of %s (pid %d)", n.Name, n.Layer.PID)
			note(errs, n.Name+" layer", n.stopLayer(ctx))
		}
	}
	// Then their links' delayers, recorded or not, which keep the
	// namespaces alive.
	note(errs, "delayers", b.killDelayers(ctx, *st, progress))
	// JVMs (and layers) of this cluster that the state file lost track of.
	if strays := javaPIDsUnder(b.dir); len(strays) > 0 {
		for _, pid := range strays {
			progress("killing stray %s (pid %d)", what(pid), pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
		note(errs, "strays", procstat.WaitGone(ctx, strays, 10*time.Second))
	}
	for _, n := range st.Nodes {
		if st.Network.Bridge != "" {
			note(errs, st.Network.hostVeth(n.ID), deleteLink(st.Network.hostVeth(n.ID)))
			note(errs, st.Network.peerVeth(n.ID), deleteLink(st.Network.peerVeth(n.ID)))
		}
		note(errs, n.NS, deleteNS(n.NS))
	}
	if st.Network.Bridge != "" {
		note(errs, st.Network.Bridge, deleteLink(st.Network.Bridge))
	}
	b.removeForwardRules(*st, errs)
	b.removeStrays(errs)
	// Never remove through a mount: a directory mounted into the cluster's
	// would lose its files. Unmount (lazily) what is mounted under it first.
	for _, m := range mountsUnder(b.dir) {
		note(errs, m, unmountLazy(m))
	}
	if len(mountsUnder(b.dir)) == 0 {
		note(errs, b.dir, os.RemoveAll(b.dir))
	}
}

// removeAll removes the cluster and checks that nothing of it remains.
// When something does, it keeps (or writes back) the state file, so that a
// later down retries, and returns a *LeftoverError naming each leftover and
// how to remove it.
func (b *Backend) removeAll(ctx context.Context, st state, progress cluster.Progress) error {
	errs := map[string]error{}
	b.remove(ctx, &st, progress, errs)
	left := b.leftovers(st, errs)
	if len(left) == 0 {
		return nil
	}
	st.Ready = false
	if err := b.save(st); err != nil {
		left = append(left, Leftover{What: "state file " + b.stateFile(), Why: "could not be written back, so a later down may not find everything: " + err.Error()})
	}
	return &LeftoverError{Cluster: b.name, Leftovers: left}
}

// Leftover is something of a cluster that still exists.
type Leftover struct {
	What string // "network namespace kb-run31177-k1"
	Why  string // why it could not be removed, when known
	Fix  string // a shell command that removes it
}

func (l Leftover) String() string {
	s := l.What
	if l.Why != "" {
		s += " (" + l.Why + ")"
	}
	if l.Fix != "" {
		s += ": remove with `" + l.Fix + "`"
	}
	return s
}

// LeftoverError is a down that could not remove everything.
type LeftoverError struct {
	Cluster   string
	Leftovers []Leftover
}

func (e *LeftoverError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster %s is not fully removed; what remains:\n", e.Cluster)
	for _, l := range e.Leftovers {
		fmt.Fprintf(&b, "  - %s\n", l)
	}
	fmt.Fprintf(&b, "then run `kafkabook cluster down --name %s` again: it retries", e.Cluster)
	return b.String()
}

// Leftovers lists whatever of this cluster still exists: processes,
// namespaces, links, mounts, its directory. Empty after a clean Down.
func (b *Backend) Leftovers() []Leftover {
	st, ok, _ := b.load()
	if !ok {
		st = b.guess()
	}
	return b.leftovers(st, nil)
}

// guess is the state of a cluster whose state file is missing or damaged:
// every name it may have used, no processes.
func (b *Backend) guess() state {
	d := derivedNames(b.name)
	st := state{Name: b.name, Network: Network{Bridge: d.Bridge}}
	for i, ns := range d.Namespaces {
		st.Nodes = append(st.Nodes, nodeState{Name: runbook.NodeName(i + 1), ID: i + 1, NS: ns, Dir: filepath.Join(b.dir, runbook.NodeName(i+1))})
	}
	return st
}

// leftovers checks, resource by resource, what of the cluster remains, with
// the removal error (from errs) that explains it.
func (b *Backend) leftovers(st state, errs map[string]error) []Leftover {
	why := func(key string) string {
		if err := errs[key]; err != nil {
			return err.Error()
		}
		return ""
	}
	var out []Leftover
	listed := map[int]bool{}
	for _, n := range st.Nodes {
		if n.Delayer.alive() {
			listed[n.Delayer.PID] = true
			out = append(out, Leftover{What: fmt.Sprintf("link delayer of %s (pid %d)", n.Name, n.Delayer.PID), Why: why("delayers"), Fix: fmt.Sprintf("kill -9 %d", n.Delayer.PID)})
		}
		if alive, _ := n.alive(); alive {
			listed[n.PID] = true
			out = append(out, Leftover{What: fmt.Sprintf("JVM of %s (pid %d)", n.Name, n.PID), Why: why(n.Name), Fix: fmt.Sprintf("kill -9 %d", n.PID)})
		}
	}
	for _, pid := range javaPIDsUnder(b.dir) {
		if !listed[pid] {
			listed[pid] = true
			out = append(out, Leftover{What: fmt.Sprintf("%s (pid %d) running from %s", what(pid), pid, b.dir), Why: why("strays"), Fix: fmt.Sprintf("kill -9 %d", pid)})
		}
	}
	// Namespaces live on while a process runs in one or a mount holds it,
	// also once their name is gone.
	// A recorded inode whose namespace is gone may since have been given to
	// a new namespace; one that has another name now is not ours.
	named := namedNetns()
	inodes := map[uint64]string{}
	for _, n := range st.Nodes {
		if ino := nsInode(n.NS); ino != 0 {
			inodes[ino] = n.Name
		} else if other, ok := named[n.NSInode]; n.NSInode != 0 && (!ok || other == n.NS) {
			inodes[n.NSInode] = n.Name
		}
	}
	inNS := pidsInNetns(inodes)
	for _, pid := range slices.Sorted(maps.Keys(inNS)) {
		if !listed[pid] && isDelayer(pid) {
			listed[pid] = true
			out = append(out, Leftover{What: fmt.Sprintf("link delayer (pid %d) in the network namespace of %s", pid, inNS[pid]), Why: why("delayers"), Fix: fmt.Sprintf("kill -9 %d", pid)})
		}
		if !listed[pid] {
			out = append(out, Leftover{
				What: fmt.Sprintf("process %d (%s) in the network namespace of %s", pid, comm(pid), inNS[pid]),
				Why:  "the namespace lives on while it runs; kafkabook did not start it, so does not kill it",
				Fix:  fmt.Sprintf("kill %d", pid),
			})
		}
	}
	d := derivedNames(b.name)
	for _, ns := range d.Namespaces {
		if nsExists(ns) {
			out = append(out, Leftover{What: "network namespace " + ns, Why: why(ns), Fix: "ip netns delete " + ns})
		}
	}
	for _, ino := range slices.Sorted(maps.Keys(inodes)) {
		for _, p := range nsMounts(ino) {
			if filepath.Dir(p) == nsDir && strings.HasPrefix(filepath.Base(p), "kb-"+b.name+"-") {
				continue // the namespace's own name, listed above
			}
			out = append(out, Leftover{
				What: fmt.Sprintf("mount of the network namespace of %s at %s", inodes[ino], p),
				Why:  "it keeps the namespace alive; kafkabook did not mount it there, so does not unmount it",
				Fix:  "umount -l " + p,
			})
		}
	}
	for _, l := range append(d.Links, d.Bridge) {
		if linkExists(l) {
			out = append(out, Leftover{What: "link " + l, Why: why(l), Fix: "ip link delete " + l})
		}
	}
	out = append(out, b.forwardLeftovers(st, errs)...)
	for _, m := range mountsUnder(b.dir) {
		out = append(out, Leftover{What: "mount at " + m, Why: why(m), Fix: "umount -l " + m})
	}
	if _, err := os.Stat(b.dir); err == nil {
		w := why(b.dir)
		if w == "" && len(mountsUnder(b.dir)) > 0 {
			w = "not removed while something is mounted in it"
		}
		out = append(out, Leftover{What: "directory " + b.dir, Why: w, Fix: "rm -rf " + b.dir})
	}
	return out
}

// killDelayers kills every delayer in the cluster's namespaces, recorded
// in st or not, and waits for them to go.
func (b *Backend) killDelayers(ctx context.Context, st state, progress cluster.Progress) error {
	inodes := map[uint64]string{}
	for _, n := range st.Nodes {
		if ino := nsInode(n.NS); ino != 0 {
			inodes[ino] = n.Name
		}
	}
	var pids []int
	for pid, node := range pidsInNetns(inodes) {
		if isDelayer(pid) {
			progress("stopping the link delayer of %s (pid %d)", node, pid)
			syscall.Kill(pid, syscall.SIGKILL)
			pids = append(pids, pid)
		}
	}
	return procstat.WaitGone(ctx, pids, 10*time.Second)
}

// what names a stray process of a cluster.
func what(pid int) string {
	if isLayer(pid) {
		return "power-loss layer"
	}
	return "JVM"
}

// namedNetns maps the inode of every named network namespace to its name.
func namedNetns() map[uint64]string {
	out := map[uint64]string{}
	entries, _ := os.ReadDir(nsDir)
	for _, e := range entries {
		if ino := nsInode(e.Name()); ino != 0 {
			out[ino] = e.Name()
		}
	}
	return out
}

// unmountLazy detaches a mount.
func unmountLazy(path string) error {
	if err := syscall.Unmount(path, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("unmount %s: %w", path, err)
	}
	return nil
}
