// Package netdelay delays what a network namespace sends without tc
// netem (which these kernels lack): an iptables NFQUEUE rule hands each
// packet to a queue, and a process of kafkabook's own, bound to that
// queue inside the same namespace, gives each its ACCEPT verdict once the
// delay has passed. The package is that process (Serve) and how to start
// it (Command, Launch); the rule is package netfault's.
//
// The process keeps no goroutine or allocation per packet: a reader
// takes what the kernel queued in batches, one heap orders it by due
// time, a releaser wakes at the first due time and sends every due
// verdict in one write. The kernel copies only a packet's first 64 bytes
// (the headers that say its flow) and takes GSO packets whole.
//
// If the process dies, the rule's --queue-bypass lets packets through
// undelayed rather than dropping them: a dead delayer heals the link
// instead of cutting it, and the heal that follows removes the rule.
package netdelay

import (
	"os"
	"os/exec"
	"strings"
)

// Queue is the queue number the rule and the delayer share. Queues are
// per network namespace, so every node uses the same one.
const Queue = 3838

// Missing says what this machine lacks to delay a link, "" when nothing:
// root (a netlink queue socket and iptables in a node's namespace need
// it) and iptables with the NFQUEUE target; nfnetlink_queue itself is
// found out when the delayer binds its queue.
func Missing() string {
	var miss []string
	if os.Geteuid() != 0 {
		miss = append(miss, "root")
	}
	if _, err := exec.LookPath("iptables"); err != nil {
		miss = append(miss, "iptables (Debian's iptables package)")
	}
	return strings.Join(miss, ", ")
}
