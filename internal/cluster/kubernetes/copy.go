package kubernetes

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// copiedDir holds, in the client pod, one empty marker file per content
// copied there: a second copy of the same content is skipped, also by
// another kafkabook process.
const copiedDir = "/tmp/kafkabook-copied"

// copyIn copies paths on this machine (files or directories, absolute) to
// the same paths in the client pod, as one tar stream over an exec's
// standard input, skipping those whose content (every entry's path, mode,
// size and modification time) is there already.
func (c *clients) copyIn(ctx context.Context, paths ...string) error {
	keys := map[string]string{}
	var missing []string
	c.mu.Lock()
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			c.mu.Unlock()
			return fmt.Errorf("kubernetes: copying %s into the client pod: want an absolute path", p)
		}
		key, err := contentKey(p)
		if err != nil {
			c.mu.Unlock()
			return fmt.Errorf("kubernetes: copying %s into the client pod: %w", p, err)
		}
		if c.copied[p] != key {
			keys[p] = key
			missing = append(missing, p)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	// Which of them the pod lacks: one exec for all.
	script := `for k in "$@"; do test -e ` + copiedDir + `/"$k" || echo "$k"; done`
	argv := []string{"sh", "-c", script, "sh"}
	for _, p := range missing {
		argv = append(argv, keys[p])
	}
	out, err := c.api.run(ctx, c.pod, c.container, argv...)
	if err != nil {
		return fmt.Errorf("kubernetes: checking what the client pod holds: %w", err)
	}
	lacks := map[string]bool{}
	for _, k := range strings.Fields(out) {
		lacks[k] = true
	}
	var send []string
	for _, p := range missing {
		if lacks[keys[p]] {
			send = append(send, p)
		}
	}
	if len(send) > 0 {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeTar(pw, send)) }()
		marks := ""
		for _, p := range send {
			marks += " " + copiedDir + "/" + keys[p]
		}
		script := "mkdir -p " + copiedDir + " && tar -x -f - -C / --no-same-owner && touch" + marks
		var stderr strings.Builder
		err := c.api.stream(ctx, c.pod, c.container, []string{"sh", "-c", script}, pr, nil, &stderr)
		pr.CloseWithError(io.ErrClosedPipe)
		if err != nil {
			return fmt.Errorf("kubernetes: copying %s into the client pod %s: %w: %s", strings.Join(send, ", "), c.pod, err, strings.TrimSpace(stderr.String()))
		}
	}
	c.mu.Lock()
	for p, k := range keys {
		c.copied[p] = k
	}
	c.mu.Unlock()
	return nil
}

// copyExe copies this kafkabook binary into node n's faults container, at
// the path it has here, for a role it runs there (a link delayer, a
// corruption) and returns that path.
func copyExe(ctx context.Context, a *api, n node) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	into := &clients{api: a, pod: n.Pod.Name, container: containerFaults, exe: exe, copied: map[string]string{}}
	if err := into.copyIn(ctx, exe); err != nil {
		return "", fmt.Errorf("%s: %w", n.Name, err)
	}
	return exe, nil
}

// contentKey names the content under path: a hash of every entry's path,
// mode, size, modification time and link target.
func contentKey(path string) (string, error) {
	h := sha256.New()
	err := walkEntries(path, func(p string, fi fs.FileInfo, link string) error {
		fmt.Fprintf(h, "%s\x00%v\x00%d\x00%d\x00%s\n", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), link)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// walkEntries walks the tree at root as filepath.WalkDir does, giving fn
// each entry's information and, for a symbolic link, its target: what
// both the content key and the tar stream of a copy are made of.
func walkEntries(root string, fn func(p string, fi fs.FileInfo, link string) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if fi.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		return fn(p, fi, link)
	})
}

// writeTar writes paths (files, directories and symbolic links under
// them) as a tar stream of names relative to /.
func writeTar(w io.Writer, paths []string) error {
	tw := tar.NewWriter(w)
	for _, root := range paths {
		err := walkEntries(root, func(p string, fi fs.FileInfo, link string) error {
			hdr, err := tar.FileInfoHeader(fi, link)
			if err != nil {
				return err
			}
			hdr.Name = strings.TrimPrefix(p, "/")
			hdr.Uname, hdr.Gname = "", ""
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			if !fi.Mode().IsRegular() {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(tw, f)
			return err
		})
		if err != nil {
			return err
		}
	}
	return tw.Close()
}

// copyOut copies paths (absolute; files or directories) from the client
// pod to the same paths on this machine, replacing files there: how what
// a client wrote in the pod (a consumer group's SQLite store) comes back.
func (c *clients) copyOut(ctx context.Context, paths ...string) error {
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("kubernetes: copying %s from the client pod: want an absolute path", p)
		}
	}
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() {
		argv := append([]string{"tar", "-c", "-f", "-", "-C", "/"}, relPaths(paths)...)
		err := c.api.stream(ctx, c.pod, c.container, argv, nil, quietWriter{pw}, &stderr)
		pw.CloseWithError(err)
		done <- err
	}()
	rerr := readTar(pr, paths)
	if rerr == nil {
		io.Copy(io.Discard, pr) // tar pads its stream past the end of the archive
	}
	pr.CloseWithError(io.ErrClosedPipe)
	if err := <-done; err != nil {
		return fmt.Errorf("kubernetes: copying %s from the client pod %s: %w: %s", strings.Join(paths, ", "), c.pod, err, strings.TrimSpace(stderr.String()))
	}
	if rerr != nil {
		return fmt.Errorf("kubernetes: copying %s from the client pod %s: %w", strings.Join(paths, ", "), c.pod, rerr)
	}
	return nil
}

func relPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = strings.TrimPrefix(filepath.Clean(p), "/")
	}
	return out
}

// readTar writes a tar stream's regular files and directories under /,
// refusing any entry outside paths.
func readTar(r io.Reader, paths []string) error {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Join("/", hdr.Name)
		inside := false
		for _, p := range paths {
			p = filepath.Clean(p)
			if name == p || strings.HasPrefix(name, p+"/") {
				inside = true
			}
		}
		if !inside {
			return fmt.Errorf("the pod sent %s, which was not asked for", name)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, os.FileMode(hdr.Mode).Perm())
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, tr); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		}
	}
}
