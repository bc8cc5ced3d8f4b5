package docker

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cachedir"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"golang.org/x/sys/unix"
)

// baseRecipe changes whenever the base root file system is made
// differently; it names the cached tarball and the base image.
const baseRecipe = "bookworm-jre17-r5"

// baseImage is the imported Debian base.
const baseImage = "kafkabook/base:" + baseRecipe

// ensureBase imports the Debian base into the Docker host, making its
// tarball first when the cache has none.
func ensureBase(ctx context.Context, cli *client.Client, progress cluster.Progress) error {
	if haveImage(ctx, cli, baseImage) {
		return nil
	}
	tarball, err := baseTarball(ctx, progress)
	if err != nil {
		return err
	}
	f, err := os.Open(tarball)
	if err != nil {
		return err
	}
	defer f.Close()
	progress("importing %s into Docker as %s", tarball, baseImage)
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: bufio.NewReaderSize(f, 1<<20), SourceName: "-"}, baseImage, image.ImportOptions{
		Message: "Debian bookworm (minbase) with openjdk-17-jre-headless, iptables, iproute2, procps, python3 and libfaketime, made by kafkabook with debootstrap",
		Changes: []string{
			"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			"ENV LANG=C.UTF-8",
			"LABEL kafkabook.base=" + baseRecipe,
		},
	})
	if err != nil {
		return fmt.Errorf("import %s: %w", tarball, err)
	}
	defer rc.Close()
	if err := readStream(rc); err != nil {
		return fmt.Errorf("import %s: %w", tarball, err)
	}
	return nil
}

// BaseTarball is where the Debian base is cached.
func BaseTarball() (string, error) {
	cache, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "docker", "base-"+baseRecipe+".tar"), nil
}

// baseTarball returns the cached base tarball, making it with debootstrap
// when there is none: Debian bookworm, minbase, with
// openjdk-17-jre-headless, iptables, iproute2 and procps (the Kubernetes
// backend's faults container runs iptables and tc in its pod and signals
// the broker with them), python3 (the librdkafka driver runs under it in the clients'
// pod) and libfaketime (a cluster with cluster.Config.Clock preloads it,
// linked at cluster.ImageFaketimeLib), trimmed of documentation, locales and package
// lists, with the user appuser (uid 1000) that owns Kafka's config and
// data directories, as in apache/kafka.
func baseTarball(ctx context.Context, progress cluster.Progress) (string, error) {
	out, err := BaseTarball()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if os.Geteuid() != 0 {
		return "", errors.New("making the Debian base with debootstrap needs root: run `sudo kafkabook image build`")
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return "", errors.New("making the Debian base needs debootstrap: install it with `apt-get install debootstrap`")
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), ".base-")
	if err != nil {
		return "", err
	}
	root := filepath.Join(tmp, "root")
	defer func() {
		unmountUnder(tmp) // debootstrap mounts /proc and /sys inside; never delete through them
		os.RemoveAll(tmp)
	}()
	mirror := debianMirror()
	progress("making a Debian bookworm root file system with Java 17 by debootstrap from %s (once; cached in %s)", mirror, out)
	start := time.Now()
	if err := runLogged(ctx, "debootstrap", "--variant=minbase", "--include=openjdk-17-jre-headless,iptables,iproute2,procps,python3,libfaketime", "bookworm", root, mirror); err != nil {
		return "", err
	}
	for _, pattern := range []string{"var/cache/apt/archives/*.deb", "var/lib/apt/lists/*", "usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale/*", "var/log/*"} {
		matches, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, m := range matches {
			os.RemoveAll(m)
		}
	}
	libs, _ := filepath.Glob(filepath.Join(root, "usr/lib/*/faketime/libfaketime.so.1"))
	if len(libs) != 1 {
		return "", fmt.Errorf("the Debian base has %d libfaketime.so.1 under usr/lib/*/faketime, want one", len(libs))
	}
	rel, _ := filepath.Rel(root, libs[0])
	if err := os.Symlink("/"+rel, filepath.Join(root, cluster.ImageFaketimeLib)); err != nil {
		return "", err
	}
	if err := runLogged(ctx, "chroot", root, "useradd", "--uid", "1000", "--gid", "0", "--no-create-home", "--home-dir", "/opt/kafka", "--shell", "/bin/bash", "appuser"); err != nil {
		return "", err
	}
	for _, d := range []string{"opt/kafka/config", "var/lib/kafka/data", "etc/kafkabook", "etc/kafka/docker"} {
		p := filepath.Join(root, d)
		if err := os.MkdirAll(p, 0o775); err != nil {
			return "", err
		}
		if strings.HasPrefix(d, "opt/") || strings.HasPrefix(d, "var/") {
			if err := os.Chown(p, 1000, 0); err != nil {
				return "", err
			}
		}
	}
	unmountUnder(tmp)
	part := filepath.Join(tmp, "base.tar")
	if err := runLogged(ctx, "tar", "--numeric-owner", "-C", root, "-cf", part, "."); err != nil {
		return "", err
	}
	if err := os.Rename(part, out); err != nil {
		return "", err
	}
	progress("made the Debian base in %.0fs", time.Since(start).Seconds())
	return out, nil
}

// debianMirror is $KAFKABOOK_DEBIAN_MIRROR, else the Debian archive this
// host's apt uses, else deb.debian.org.
func debianMirror() string {
	if m := os.Getenv("KAFKABOOK_DEBIAN_MIRROR"); m != "" {
		return m
	}
	files, _ := filepath.Glob("/etc/apt/sources.list.d/*.sources")
	files = append(files, "/etc/apt/sources.list")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			for _, field := range strings.Fields(line) {
				if (strings.HasPrefix(field, "http://") || strings.HasPrefix(field, "https://")) && strings.HasSuffix(strings.TrimSuffix(field, "/"), "/debian") &&
					!strings.HasPrefix(strings.TrimSpace(line), "#") {
					return strings.TrimSuffix(field, "/")
				}
			}
		}
	}
	return "http://deb.debian.org/debian"
}

func runLogged(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) > 20 {
			lines = lines[len(lines)-20:]
		}
		return fmt.Errorf("%s failed: %v\n%s", name, err, strings.Join(lines, "\n"))
	}
	return nil
}

// unmountUnder detaches every mount below dir, deepest first.
func unmountUnder(dir string) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	var ms []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(f[4], dir+"/") {
			ms = append(ms, f[4])
		}
	}
	slices.SortFunc(ms, func(a, b string) int { return len(b) - len(a) })
	for _, m := range ms {
		unix.Unmount(m, unix.MNT_DETACH)
	}
}
