package local

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
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

// nsExists reports whether a named namespace exists.
func nsExists(name string) bool {
	_, err := os.Stat("/var/run/netns/" + name)
	return err == nil
}

// newNamedNS creates a named network namespace without moving this process
// into it (netns.NewNamed switches the calling thread, so switch back).
func newNamedNS(name string) error {
	if nsExists(name) {
		return fmt.Errorf("network namespace %s already exists: another cluster uses this name; pick another --name or run `kafkabook cluster down` for it", name)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		return err
	}
	defer orig.Close()
	h, err := netns.NewNamed(name)
	if err != nil {
		netns.Set(orig)
		return fmt.Errorf("create network namespace %s: %w", name, err)
	}
	h.Close()
	return netns.Set(orig)
}

// deleteNS removes a named namespace if it exists.
func deleteNS(name string) error {
	if !nsExists(name) {
		return nil
	}
	return netns.DeleteNamed(name)
}

// startIn starts cmd with its network namespace set to ns.
func startIn(ns string, cmd *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := netns.Get()
	if err != nil {
		return err
	}
	defer orig.Close()
	h, err := netns.GetFromName(ns)
	if err != nil {
		return fmt.Errorf("network namespace %s: %w", ns, err)
	}
	defer h.Close()
	if err := netns.Set(h); err != nil {
		return err
	}
	startErr := cmd.Start()
	if err := netns.Set(orig); err != nil {
		// This thread is stuck in the node's namespace; keep it locked so
		// the runtime discards it instead of reusing it.
		runtime.LockOSThread()
		return fmt.Errorf("return from namespace %s: %w", ns, err)
	}
	return startErr
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
