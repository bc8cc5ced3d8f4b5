package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
)

// configContent is what a compose config holds: inline content, a file, or
// an environment variable.
func configContent(c types.FileObjectConfig) ([]byte, error) {
	switch {
	case c.Content != "":
		return []byte(c.Content), nil
	case c.File != "":
		return os.ReadFile(c.File)
	case c.Environment != "":
		return []byte(os.Getenv(c.Environment)), nil
	}
	return nil, fmt.Errorf("neither content, file nor environment given")
}

// copyFile puts content at target inside a container (created or
// running), with its parent directories, owned by root.
func copyFile(ctx context.Context, cli *client.Client, id, target string, content []byte, mode int64) error {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	now := time.Now()
	rel := strings.TrimPrefix(path.Clean(target), "/")
	dirs := strings.Split(path.Dir(rel), "/")
	for i := range dirs {
		if dirs[0] == "." {
			break
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.Join(dirs[:i+1], "/") + "/", Mode: 0o755, ModTime: now}); err != nil {
			return err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: mode, Size: int64(len(content)), ModTime: now}); err != nil {
		return err
	}
	if _, err := tw.Write(content); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return cli.CopyToContainer(ctx, id, "/", &buf, container.CopyToContainerOptions{})
}
