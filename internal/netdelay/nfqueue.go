package netdelay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The kernel hands each packet an NFQUEUE rule matched to the process
// bound to that queue number over netlink (NETLINK_NETFILTER, subsystem
// nfnetlink_queue), and holds the packet until the process answers with
// a verdict naming the packet's id. These are the protocol's numbers, as
// linux/netfilter/nfnetlink_queue.h and nfnetlink.h define them.
const (
	subsysQueue = 3 // NFNL_SUBSYS_QUEUE: the high byte of a message's type

	msgPacket  = 0 // NFQNL_MSG_PACKET: kernel → us, one queued packet
	msgVerdict = 1 // NFQNL_MSG_VERDICT: us → kernel, one packet's fate
	msgConfig  = 2 // NFQNL_MSG_CONFIG: bind the queue, set its parameters

	attrCfgCmd      = 1 // NFQA_CFG_CMD: struct nfqnl_msg_config_cmd
	attrCfgParams   = 2 // NFQA_CFG_PARAMS: struct nfqnl_msg_config_params
	attrCfgQueueMax = 3 // NFQA_CFG_QUEUE_MAXLEN: be32

	cmdBind = 1 // NFQNL_CFG_CMD_BIND

	copyPacket = 2 // NFQNL_COPY_PACKET: the packet comes along

	attrPacketHdr  = 1  // NFQA_PACKET_HDR: be32 packet id, be16 hw protocol, u8 hook
	attrVerdictHdr = 2  // NFQA_VERDICT_HDR: be32 verdict, be32 packet id
	attrPayload    = 10 // NFQA_PAYLOAD: the packet from its IP header

	verdictDrop = 0 // NF_DROP

	nlHdrLen  = unix.SizeofNlMsghdr // 16
	nfgenLen  = 4                   // struct nfgenmsg: family, version, res_id (be16)
	attrHdr   = 4                   // struct nlattr: len, type
	verdictSz = nlHdrLen + nfgenLen + attrHdr + 8

	// copyRange is how much of each packet the kernel copies to us: all
	// of it. Without NFQA_CFG_F_GSO the kernel cuts a TCP segment
	// offload packet into packets of the link's MTU before it queues
	// them, and completes their checksums, so each is a packet as it
	// would go on the wire.
	copyRange = 0xffff
	// queueMax is how many packets the kernel holds for us at once before
	// it drops the next; it holds each only until the reader takes it.
	queueMax = 1 << 15
	// rcvBuf is the socket's receive buffer: a burst of packets waits
	// there until the reader takes it.
	rcvBuf = 32 << 20
)

// queue is a netlink socket bound to one NFQUEUE queue number in the
// network namespace of the thread that opened it.
type queue struct {
	fd  int
	num uint16
	// out holds verdicts not yet written; flush writes them in one send.
	out []byte
}

// openQueue binds queue number num in the current network namespace.
func openQueue(num uint16) (*queue, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_NETFILTER)
	if err != nil {
		return nil, fmt.Errorf("open a netfilter netlink socket: %w", err)
	}
	q := &queue{fd: fd, num: num, out: make([]byte, 0, 64*verdictSz)}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		q.close()
		return nil, fmt.Errorf("bind the netlink socket: %w", err)
	}
	// A full receive buffer costs packets, not the socket: with
	// NO_ENOBUFS the reader is not told of the loss with an error that
	// would end it (the kernel counts it, see /proc/net/netfilter/nfnetlink_queue).
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, rcvBuf); err != nil {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, rcvBuf)
	}
	unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_NO_ENOBUFS, 1)

	bind := attr(nil, attrCfgCmd, []byte{cmdBind, 0, 0, 0})
	params := make([]byte, 5)
	binary.BigEndian.PutUint32(params, copyRange)
	params[4] = copyPacket
	cfg := attr(nil, attrCfgParams, params)
	cfg = attr(cfg, attrCfgQueueMax, be32(queueMax))
	for i, body := range [][]byte{bind, cfg} {
		if err := q.request(uint32(i+1), body); err != nil {
			q.close()
			if errors.Is(err, unix.EBUSY) {
				return nil, fmt.Errorf("queue %d of this network namespace is bound by another process: %w", num, err)
			}
			return nil, fmt.Errorf("configure queue %d: %w", num, err)
		}
	}
	return q, nil
}

func (q *queue) close() error { return unix.Close(q.fd) }

// request sends one config message with attrs and waits for its ack.
func (q *queue) request(seq uint32, attrs []byte) error {
	msg := q.header(nil, msgConfig, unix.NLM_F_REQUEST|unix.NLM_F_ACK, seq, len(attrs))
	msg = append(msg, attrs...)
	if _, err := unix.Write(q.fd, msg); err != nil {
		return err
	}
	buf := make([]byte, 8192)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		n, _, err := unix.Recvfrom(q.fd, buf, 0)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			return err
		}
		for b := buf[:n]; len(b) >= nlHdrLen; {
			l := int(binary.NativeEndian.Uint32(b[0:4]))
			if l < nlHdrLen || l > len(b) {
				break
			}
			typ := binary.NativeEndian.Uint16(b[4:6])
			s := binary.NativeEndian.Uint32(b[8:12])
			if typ == unix.NLMSG_ERROR && s == seq && l >= nlHdrLen+4 {
				if e := int32(binary.NativeEndian.Uint32(b[nlHdrLen:])); e != 0 {
					return unix.Errno(-e)
				}
				return nil
			}
			b = b[min(align(l), len(b)):]
		}
	}
	return errors.New("the kernel did not answer")
}

// header appends a netlink header and nfgenmsg for a queue message with
// payload bytes of attributes after it.
func (q *queue) header(b []byte, msg uint16, flags uint16, seq uint32, payload int) []byte {
	var h [nlHdrLen + nfgenLen]byte
	binary.NativeEndian.PutUint32(h[0:], uint32(nlHdrLen+nfgenLen+payload))
	binary.NativeEndian.PutUint16(h[4:], subsysQueue<<8|msg)
	binary.NativeEndian.PutUint16(h[6:], flags)
	binary.NativeEndian.PutUint32(h[8:], seq)
	// h[12:16], the port id: 0, the kernel.
	h[16] = unix.AF_UNSPEC
	h[17] = 0 // NFNETLINK_V0
	binary.BigEndian.PutUint16(h[18:], q.num)
	return append(b, h[:]...)
}

// drop queues the verdict that frees packet id, whose copy the delayer
// keeps; flush sends it.
func (q *queue) drop(id uint32) {
	q.out = q.header(q.out, msgVerdict, unix.NLM_F_REQUEST, 0, attrHdr+8)
	var a [attrHdr + 8]byte
	binary.NativeEndian.PutUint16(a[0:], attrHdr+8)
	binary.NativeEndian.PutUint16(a[2:], attrVerdictHdr)
	binary.BigEndian.PutUint32(a[4:], verdictDrop)
	binary.BigEndian.PutUint32(a[8:], id)
	q.out = append(q.out, a[:]...)
}

// flush writes the verdicts drop queued, in one send: netlink takes
// many messages in one datagram.
func (q *queue) flush() error {
	if len(q.out) == 0 {
		return nil
	}
	_, err := unix.Write(q.fd, q.out)
	q.out = q.out[:0]
	return err
}

// packet is one queued packet.
type packet struct {
	id   uint32
	flow uint32 // a hash of its addresses, protocol and ports
	data []byte // from its IP header on, in the reader's buffer
}

// read receives once (with flags: 0 waits, MSG_DONTWAIT does not) and
// appends each packet received to into; their data is in buf.
func (q *queue) read(buf []byte, into []packet, flags int) ([]packet, error) {
	n, _, err := unix.Recvfrom(q.fd, buf, flags)
	if err != nil {
		return into, err
	}
	for b := buf[:n]; len(b) >= nlHdrLen; {
		l := int(binary.NativeEndian.Uint32(b[0:4]))
		if l < nlHdrLen || l > len(b) {
			break
		}
		typ := binary.NativeEndian.Uint16(b[4:6])
		if typ == subsysQueue<<8|msgPacket && l >= nlHdrLen+nfgenLen {
			if p, ok := parsePacket(b[nlHdrLen+nfgenLen : l]); ok {
				into = append(into, p)
			}
		} else if typ == unix.NLMSG_ERROR && l >= nlHdrLen+4 {
			// A verdict the kernel refused (for a packet it no longer
			// holds): nothing to do for it, but say so.
			if e := int32(binary.NativeEndian.Uint32(b[nlHdrLen:])); e != 0 {
				fmt.Fprintf(os.Stderr, "netdelay: the kernel refused a message: %v\n", unix.Errno(-e))
			}
		}
		b = b[min(align(l), len(b)):]
	}
	return into, nil
}

// parsePacket reads a packet message's attributes.
func parsePacket(attrs []byte) (packet, bool) {
	var p packet
	var have bool
	for len(attrs) >= attrHdr {
		l := int(binary.NativeEndian.Uint16(attrs[0:2]))
		typ := binary.NativeEndian.Uint16(attrs[2:4]) & 0x3fff // without NLA_F_NESTED, NLA_F_NET_BYTEORDER
		if l < attrHdr || l > len(attrs) {
			break
		}
		v := attrs[attrHdr:l]
		switch typ {
		case attrPacketHdr:
			if len(v) >= 4 {
				p.id, have = binary.BigEndian.Uint32(v), true
			}
		case attrPayload:
			p.flow, p.data = flowOf(v), v
		}
		attrs = attrs[min(align(l), len(attrs)):]
	}
	return p, have
}

// flowOf hashes an IPv4 packet's addresses, protocol and, for TCP and
// UDP, ports (FNV-1a): packets of one connection get one value. Anything
// else hashes what it has.
func flowOf(ip []byte) uint32 {
	h := uint32(2166136261)
	mix := func(b []byte) {
		for _, c := range b {
			h = (h ^ uint32(c)) * 16777619
		}
	}
	if len(ip) >= 20 && ip[0]>>4 == 4 {
		mix(ip[9:10])  // protocol
		mix(ip[12:20]) // source, destination
		ihl := int(ip[0]&0x0f) * 4
		if (ip[9] == unix.IPPROTO_TCP || ip[9] == unix.IPPROTO_UDP) && len(ip) >= ihl+4 {
			mix(ip[ihl : ihl+4])
		}
		return h
	}
	mix(ip[:min(len(ip), 40)])
	return h
}

// attr appends a netlink attribute, padded to 4 bytes.
func attr(b []byte, typ uint16, v []byte) []byte {
	var h [attrHdr]byte
	binary.NativeEndian.PutUint16(h[0:], uint16(attrHdr+len(v)))
	binary.NativeEndian.PutUint16(h[2:], typ)
	b = append(append(b, h[:]...), v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func align(n int) int { return (n + 3) &^ 3 }
