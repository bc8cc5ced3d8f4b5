package netdelay

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Why a copy is sent rather than the packet let go: a packet the kernel
// holds for its queue still belongs to the socket that sent it, and TCP
// lets only about a millisecond of its pacing rate sit below it (TCP
// small queues). Held for the delay, a connection's packets would hit
// that limit and TCP would slow itself far below what a link of that
// delay carries: measured here, 3 Mbit/s over a 20 ms delay on a link
// that carries gigabits. tc netem frees the packet from its socket for
// the same reason. So the delayer copies each packet, drops the
// original at once (which TCP counts as sent, as it would a packet on
// the wire), and sends the copy when it is due, through a raw socket in
// the same namespace whose packets carry Mark, by which the rule lets
// them pass.

// Mark is the firewall mark of the delayer's copies: the rule that
// queues a node's packets skips packets that carry it.
const Mark = 0x6b62 // "kb"

// sender sends IPv4 packets whole, headers as they are.
type sender struct {
	fd int
	to unix.SockaddrInet4 // reused: sending costs no allocation
}

func openSender() (*sender, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.IPPROTO_RAW)
	if err != nil {
		return nil, fmt.Errorf("open a raw socket to send the delayed packets: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_MARK, Mark); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mark the raw socket's packets: %w", err)
	}
	return &sender{fd: fd}, nil
}

// send sends one IPv4 packet to its destination; a packet that is not
// one, or that the kernel refuses (larger than the link's MTU), is an
// error, and lost, as a link would lose it.
func (s *sender) send(pkt []byte) error {
	if len(pkt) < 20 || pkt[0]>>4 != 4 {
		return fmt.Errorf("not an IPv4 packet (%d bytes)", len(pkt))
	}
	copy(s.to.Addr[:], pkt[16:20])
	return unix.Sendto(s.fd, pkt, 0, &s.to)
}

func (s *sender) close() error { return unix.Close(s.fd) }
