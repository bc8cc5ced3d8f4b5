package docker

import (
	"context"
	"fmt"
	"io"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
)

// Logs opens a node's broker log: its container's output, stdout and
// stderr merged, after that of the containers it had before (restart
// --to, --set) or, for a broker removed, theirs alone.
func (b *Backend) Logs(ctx context.Context, node string) (io.ReadCloser, error) {
	cli, err := b.client(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := b.containers(ctx, cli)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if c.Labels[labelNode] == node {
			rc, err := containerLog(ctx, cli, c.ID)
			if err != nil {
				return nil, err
			}
			return b.earlier.Before(node, rc), nil
		}
	}
	if b.earlier.Has(node) {
		return b.earlier.Before(node, nil), nil // a broker removed
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("no Docker cluster %q is up", b.name)
	}
	return nil, fmt.Errorf("no node %q in cluster %q", node, b.name)
}

func containerLog(ctx context.Context, cli *client.Client, id string) (io.ReadCloser, error) {
	rc, err := cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, pw, rc)
		rc.Close()
		pw.CloseWithError(err)
	}()
	return readCloser{pr, func() error { rc.Close(); return pr.Close() }}, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }
