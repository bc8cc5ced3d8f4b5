package kubernetes

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kafkabook/kafkabook/internal/cluster"
)

// Access is a stand-in until the clients' pod relays connections: it
// dials a broker's pod address straight from this machine, which works
// where this machine routes the pod network (a single-node cluster on it).
// A pod's DNS name under the cluster's Service is looked up through the
// API (this machine does not resolve it).
func (b *Backend) Access(ctx context.Context) (cluster.Access, error) {
	a, err := b.client(ctx)
	if err != nil {
		return cluster.Access{}, err
	}
	var mu sync.Mutex
	ips := map[string]string{}
	suffix := "." + b.service() + "." + a.namespace + ".svc." + b.opts.Domain
	var d net.Dialer
	return cluster.Access{Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		pod, ok := strings.CutSuffix(host, suffix)
		if !ok {
			return d.DialContext(ctx, network, addr)
		}
		mu.Lock()
		ip := ips[pod]
		mu.Unlock()
		if ip == "" {
			p, err := a.cs.CoreV1().Pods(a.namespace).Get(ctx, pod, metav1.GetOptions{})
			if err != nil {
				return nil, fmt.Errorf("dial %s: %w", addr, err)
			}
			if ip = p.Status.PodIP; ip == "" {
				return nil, fmt.Errorf("dial %s: pod %s has no address yet", addr, pod)
			}
			mu.Lock()
			ips[pod] = ip
			mu.Unlock()
		}
		return d.DialContext(ctx, network, net.JoinHostPort(ip, port))
	}}, nil
}
