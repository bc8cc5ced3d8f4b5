package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Named network namespaces are bind mounts of /proc/PID/ns/net on files in
// /run/netns, the convention of iproute2 that users, CNI plugins and
// container runtimes share. iproute2's `ip netns add` first makes
// /run/netns a shared mount of itself; when the directory is no mount
// point yet, that means a recursive bind of it onto itself, and every
// namespace mounted under it before is then hidden beneath: a copy stays
// visible, but the original can no longer be reached by its path, and the
// file can never be removed ("device or resource busy"). So kafkabook
// prepares the directory as iproute2 does before its first namespace
// (prepareNSDir), and down removes namespaces an earlier kafkabook left
// hidden this way (removeHidden).

// skipPrepareNSDir is set by a test that makes what an older kafkabook
// left: a namespace under a /run/netns that is no mount point.
var skipPrepareNSDir bool

// prepareNSDir makes nsDir a shared mount of itself, as `ip netns add`
// does: shared when it is a mount point, else bind-mounted onto itself
// first. After it, iproute2 finds a mount point and binds nothing over it.
func prepareNSDir() error {
	if err := os.MkdirAll(nsDir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", nsDir, err)
	}
	err := unix.Mount("", nsDir, "none", unix.MS_SHARED|unix.MS_REC, "")
	if errors.Is(err, unix.EINVAL) { // not a mount point yet
		if err := unix.Mount(nsDir, nsDir, "none", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind-mount %s onto itself (as ip netns does): %w", nsDir, err)
		}
		err = unix.Mount("", nsDir, "none", unix.MS_SHARED|unix.MS_REC, "")
	}
	if err != nil {
		return fmt.Errorf("make %s a shared mount (as ip netns does): %w", nsDir, err)
	}
	return nil
}

// mountsAt counts the mounts at path in this mount namespace.
func mountsAt(path string) int {
	ms, _ := mountinfo("self")
	n := 0
	for _, m := range ms {
		if m.Point == path {
			n++
		}
	}
	return n
}

// removeHidden removes the namespace file p whose original mount lies
// beneath a mount of nsDir made over it later (see above): the covering
// mount, with every namespace mounted on it, is moved aside for the
// moment it takes to unmount and remove p, then moved back. Nothing of
// another's namespaces is unmounted; while they are moved aside (well
// under a millisecond) their files are not at their paths.
func removeHidden(p string) error {
	if mountsAt(p) == 0 || mountsAt(nsDir) == 0 {
		return errors.New("not hidden")
	}
	aside, err := os.MkdirTemp(filepath.Dir(nsDir), ".kafkabook-netns-")
	if err != nil {
		return err
	}
	moved := false
	defer func() {
		if !moved {
			os.Remove(aside)
		}
	}()
	if err := unix.Mount(nsDir, aside, "", unix.MS_MOVE, ""); err != nil {
		return fmt.Errorf("move the mount over %s aside: %w", nsDir, err)
	}
	var errs []error
	for range 16 {
		if err := unix.Unmount(p, unix.MNT_DETACH); err != nil {
			if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, fmt.Errorf("unmount %s: %w", p, err))
			}
			break
		}
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	if err := unix.Mount(aside, nsDir, "", unix.MS_MOVE, ""); err != nil {
		errs = append(errs, fmt.Errorf("moving the mount over %s back failed: %w; move it back with `mount --move %s %s`", nsDir, err, aside, nsDir))
		moved = true // the directory holds the mount still: keep it
	}
	return errors.Join(errs...)
}
