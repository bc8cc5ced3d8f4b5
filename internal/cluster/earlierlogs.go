package cluster

import (
	"bytes"
	"io"
	"sync"
)

// EarlierLogs keeps what a node logged in containers or pods a backend has
// since replaced or removed (a move to another release, a broker taken
// out), so that a node's log still reads from its first start: the run's
// evidence is collected from it at the end.
type EarlierLogs struct {
	mu   sync.Mutex
	logs map[string][]byte
}

// Keep appends what rc holds to node's earlier log, and closes rc.
func (e *EarlierLogs) Keep(node string, rc io.ReadCloser) error {
	defer rc.Close()
	data, err := io.ReadAll(rc)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.logs == nil {
		e.logs = map[string][]byte{}
	}
	e.logs[node] = append(e.logs[node], data...)
	return err
}

// Has says whether anything of node's was kept.
func (e *EarlierLogs) Has(node string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.logs[node]
	return ok
}

// Before is node's log: what was kept of it, then current (nil when the
// node has no container or pod now).
func (e *EarlierLogs) Before(node string, current io.ReadCloser) io.ReadCloser {
	e.mu.Lock()
	kept := e.logs[node]
	e.mu.Unlock()
	if current == nil {
		return io.NopCloser(bytes.NewReader(kept))
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(kept), current), current}
}

// Forget drops every kept log: the cluster was made new.
func (e *EarlierLogs) Forget() {
	e.mu.Lock()
	e.logs = nil
	e.mu.Unlock()
}
