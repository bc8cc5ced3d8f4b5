package local

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// The network of a local cluster: one bridge on the host holding the first
// address of a /24, and per node a network namespace whose eth0 is one end
// of a veth pair; the other end is a port of the bridge. Isolating a node
// takes its port off the bridge; rejoining puts it back, so the node keeps
// its address and its sockets.

// Network names the links and namespaces of one cluster. All names carry
// the "kb" prefix and a tag derived from the cluster name.
type Network struct {
	Bridge string `json:"bridge"`
	Subnet string `json:"subnet"` // e.g. 10.213.7.0/24
	// Accept is the iptables rule that lets the bridge forward between its
	// own ports where bridge netfilter is on (see netfilter.go).
	Accept *forwardRule `json:"forward_accept,omitempty"`
}

func (n Network) hostVeth(id int) string { return fmt.Sprintf("%sv%d", n.Bridge, id) }
func (n Network) peerVeth(id int) string { return fmt.Sprintf("%sp%d", n.Bridge, id) }

// ip returns the address of host index i in the subnet (1 is the bridge).
func (n Network) ip(i int) net.IP {
	_, ipn, _ := net.ParseCIDR(n.Subnet)
	ip := ipn.IP.To4()
	return net.IPv4(ip[0], ip[1], ip[2], byte(i))
}

// nodeIP is the address of node id: .11, .12, ...
func (n Network) nodeIP(id int) net.IP { return n.ip(10 + id) }

// createBridge makes the bridge and gives the host its address on it.
func (n Network) createBridge() error {
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: n.Bridge}}
	if err := netlink.LinkAdd(br); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("bridge %s already exists: another cluster uses this name; pick another --name or run `kafkabook cluster down` for it", n.Bridge)
		}
		return fmt.Errorf("create bridge %s: %w", n.Bridge, err)
	}
	link, err := netlink.LinkByName(n.Bridge)
	if err != nil {
		return err
	}
	addr := &netlink.Addr{IPNet: &net.IPNet{IP: n.ip(1), Mask: net.CIDRMask(24, 32)}}
	if err := netlink.AddrAdd(link, addr); err != nil {
		return fmt.Errorf("address %s on %s: %w", addr, n.Bridge, err)
	}
	return netlink.LinkSetUp(link)
}

// createNode makes namespace ns for node id and wires it to the bridge.
func (n Network) createNode(ns string, id int) error {
	if err := newNamedNS(ns); err != nil {
		return err
	}
	host, peer := n.hostVeth(id), n.peerVeth(id)
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: host}, PeerName: peer}
	if err := netlink.LinkAdd(veth); err != nil {
		return fmt.Errorf("create veth %s: %w", host, err)
	}
	handle, err := netns.GetFromName(ns)
	if err != nil {
		return err
	}
	defer handle.Close()
	peerLink, err := netlink.LinkByName(peer)
	if err != nil {
		return err
	}
	if err := netlink.LinkSetNsFd(peerLink, int(handle)); err != nil {
		return fmt.Errorf("move %s into %s: %w", peer, ns, err)
	}
	if err := n.attach(id); err != nil {
		return err
	}
	in, err := netlink.NewHandleAt(handle)
	if err != nil {
		return err
	}
	defer in.Close()
	lo, err := in.LinkByName("lo")
	if err != nil {
		return err
	}
	if err := in.LinkSetUp(lo); err != nil {
		return err
	}
	eth, err := in.LinkByName(peer)
	if err != nil {
		return err
	}
	if err := in.LinkSetName(eth, "eth0"); err != nil {
		return err
	}
	addr := &netlink.Addr{IPNet: &net.IPNet{IP: n.nodeIP(id), Mask: net.CIDRMask(24, 32)}}
	if err := in.AddrAdd(eth, addr); err != nil {
		return err
	}
	return in.LinkSetUp(eth)
}

// attach puts node id's port on the bridge and brings it up.
func (n Network) attach(id int) error {
	port, err := netlink.LinkByName(n.hostVeth(id))
	if err != nil {
		return err
	}
	br, err := netlink.LinkByName(n.Bridge)
	if err != nil {
		return err
	}
	if err := netlink.LinkSetMaster(port, br); err != nil {
		return fmt.Errorf("attach %s to %s: %w", port.Attrs().Name, n.Bridge, err)
	}
	return netlink.LinkSetUp(port)
}

// detach takes node id's port off the bridge: no frame reaches or leaves
// the node any more.
func (n Network) detach(id int) error {
	port, err := netlink.LinkByName(n.hostVeth(id))
	if err != nil {
		return err
	}
	if err := netlink.LinkSetNoMaster(port); err != nil {
		return fmt.Errorf("detach %s from %s: %w", port.Attrs().Name, n.Bridge, err)
	}
	return nil
}

// attached reports whether node id's port is on the bridge.
func (n Network) attached(id int) bool {
	port, err := netlink.LinkByName(n.hostVeth(id))
	if err != nil {
		return false
	}
	br, err := netlink.LinkByName(n.Bridge)
	if err != nil {
		return false
	}
	return port.Attrs().MasterIndex == br.Attrs().Index
}

// deleteLink removes a link if it exists.
func deleteLink(name string) error {
	l, err := netlink.LinkByName(name)
	if err != nil {
		var nf netlink.LinkNotFoundError
		if errors.As(err, &nf) {
			return nil
		}
		return err
	}
	return netlink.LinkDel(l)
}

// nsDir is where named network namespaces are bind-mounted (ip netns).
const nsDir = "/run/netns"

func nsPath(name string) string { return filepath.Join(nsDir, name) }

// nsExists reports whether a named namespace exists.
func nsExists(name string) bool {
	_, err := os.Lstat(nsPath(name))
	return err == nil
}

// nsInode is the inode of a named namespace (what /proc/PID/ns/net of a
// process inside it links to); 0 when there is no such namespace.
func nsInode(name string) uint64 {
	var st unix.Stat_t
	if err := unix.Stat(nsPath(name), &st); err != nil {
		return 0
	}
	return st.Ino
}

// newNamedNS creates a named network namespace without moving this process
// into it (netns.NewNamed switches the calling thread, so switch back).
func newNamedNS(name string) error {
	if nsExists(name) {
		return fmt.Errorf("network namespace %s already exists: another cluster uses this name; pick another --name or run `kafkabook cluster down` for it", name)
	}
	if !skipPrepareNSDir {
		if err := prepareNSDir(); err != nil {
			return err
		}
	}
	runtime.LockOSThread()
	orig, err := netns.Get()
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer orig.Close()
	h, err := netns.NewNamed(name)
	if err == nil {
		h.Close()
	}
	if serr := netns.Set(orig); serr != nil {
		// This thread is stuck in the new namespace: leave it locked so
		// that the runtime ends it with this goroutine instead of reusing it.
		return fmt.Errorf("return from network namespace %s: %w", name, serr)
	}
	runtime.UnlockOSThread()
	if err != nil {
		return fmt.Errorf("create network namespace %s: %w", name, err)
	}
	return nil
}

// deleteNS removes a named namespace if it exists. The name is a bind
// mount of the namespace; it may be mounted more than once (stacked by
// mount propagation, e.g. after a container runtime made /run shared), so
// it is lazily unmounted until it is no mount point any more, then
// unlinked. When unlinking still fails, the error says why and who holds it.
func deleteNS(name string) error {
	p := nsPath(name)
	if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	for range 16 {
		err := unix.Unmount(p, unix.MNT_DETACH)
		if err == unix.EINVAL || err == unix.ENOENT { // not (or no longer) a mount point
			break
		}
		if err != nil {
			return fmt.Errorf("unmount %s: %w", p, err)
		}
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		if errors.Is(err, unix.EBUSY) && mountsAt(p) > 0 {
			// Still a mount point here: its first mount lies beneath a
			// mount of /run/netns made over it (ip netns add).
			herr := removeHidden(p)
			if herr == nil {
				return nil
			}
			return fmt.Errorf("%w: %s is hidden beneath a mount of %s made after it (by ip netns add, as iproute2 does when the directory is no mount point), and removing it failed: %v", err, p, nsDir, herr)
		}
		if holders := mountedElsewhere(p); len(holders) > 0 {
			return fmt.Errorf("%w: %s is still a mount point in the mount namespace of %s", err, p, strings.Join(holders, ", "))
		}
		return err
	}
	return nil
}

// freeSubnet picks a /24 in 10.213.0.0/16 starting at the tag's byte that
// no host address or route already covers and no other cluster holds.
func freeSubnet(tagByte byte, taken map[string]bool) (string, error) {
	routes, _ := netlink.RouteList(nil, netlink.FAMILY_V4)
	addrs, _ := netlink.AddrList(nil, netlink.FAMILY_V4)
	for i := 0; i < 256; i++ {
		third := byte((int(tagByte) + i) % 256)
		cidr := fmt.Sprintf("10.213.%d.0/24", third)
		_, sub, _ := net.ParseCIDR(cidr)
		if taken[cidr] {
			continue
		}
		clash := false
		for _, r := range routes {
			if r.Dst == nil {
				continue
			}
			if ones, _ := r.Dst.Mask.Size(); ones > 0 && (r.Dst.Contains(sub.IP) || sub.Contains(r.Dst.IP)) {
				clash = true
			}
		}
		for _, a := range addrs {
			if sub.Contains(a.IP) {
				clash = true
			}
		}
		if !clash {
			return cidr, nil
		}
	}
	return "", errors.New("no free /24 in 10.213.0.0/16 for the cluster network")
}

func linkExists(name string) bool {
	_, err := netlink.LinkByName(name)
	return err == nil
}
