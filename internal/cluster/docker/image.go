package docker

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cachedir"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
	"golang.org/x/sys/unix"
)

// Images without a registry. `kafkabook image build` makes
// kafkabook/kafka:VERSION on this Docker host from two things kafkabook can
// fetch where no container registry is reachable: a Debian root file
// system with Java 17, made by debootstrap from Debian's mirror (kept as a
// tarball in the cache and imported as kafkabook/base), and Kafka's jars,
// resolved from Maven Central as the local backend resolves them. The
// image reads the same KAFKA_* variables as apache/kafka (see run.sh).

//go:embed run.sh
var runScript []byte

// ImageName is the image `kafkabook image build` makes for a Kafka version.
func ImageName(version string) string { return "kafkabook/kafka:" + version }

// baseRecipe changes whenever the base root file system is made
// differently; it names the cached tarball and the base image.
const baseRecipe = "bookworm-jre17-r1"

// baseImage is the imported Debian base.
const baseImage = "kafkabook/base:" + baseRecipe

// image picks the image the cluster runs: --image, else the compose
// file's (apache/kafka:VERSION) when this host has it, else
// kafkabook/kafka:VERSION when it was built here, else the compose file's
// pulled from its registry.
func (b *Backend) image(ctx context.Context, cli *client.Client, composeImage, version string, progress cluster.Progress) (string, error) {
	if b.opts.Image != "" {
		if haveImage(ctx, cli, b.opts.Image) {
			return b.opts.Image, nil
		}
		if err := pull(ctx, cli, b.opts.Image, progress); err != nil {
			hint := ""
			if strings.HasPrefix(b.opts.Image, "kafkabook/kafka:") {
				hint = fmt.Sprintf(": build it with `kafkabook image build --kafka %s`", strings.TrimPrefix(b.opts.Image, "kafkabook/kafka:"))
			}
			return "", fmt.Errorf("image %s is not on this Docker host and cannot be pulled (%v)%s", b.opts.Image, err, hint)
		}
		return b.opts.Image, nil
	}
	if haveImage(ctx, cli, composeImage) {
		return composeImage, nil
	}
	own := ImageName(version)
	if haveImage(ctx, cli, own) {
		progress("%s is not on this Docker host; using %s, built here by `kafkabook image build`", composeImage, own)
		return own, nil
	}
	if err := pull(ctx, cli, composeImage, progress); err != nil {
		return "", fmt.Errorf("image %s is not on this Docker host and cannot be pulled (%v), and no %s was built here: build it with `kafkabook image build --kafka %s` (it needs no container registry), or name an image with --image", composeImage, err, own, version)
	}
	return composeImage, nil
}

func haveImage(ctx context.Context, cli *client.Client, ref string) bool {
	_, err := cli.ImageInspect(ctx, ref)
	return err == nil
}

// pull fetches ref, bounded in time: where no registry answers it fails.
func pull(ctx context.Context, cli *client.Client, ref string, progress cluster.Progress) error {
	progress("pulling %s", ref)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	rc, err := cli.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		return err
	}
	defer rc.Close()
	return readStream(rc)
}

// BuildResult is what BuildImage made.
type BuildResult struct {
	Image   string
	ID      string
	Size    int64
	Rebuilt bool // false when an identical image was there already
}

// BuildImage makes kafkabook/kafka:VERSION on the Docker host: the Debian
// base (debootstrap, cached as a tarball under the cache directory,
// imported once per Docker host) plus a layer with Kafka's jars from the
// Maven cache and the entrypoint. An image built from the same inputs is
// kept unless force.
func BuildImage(ctx context.Context, version string, force bool, progress cluster.Progress) (BuildResult, error) {
	cli, err := connect(ctx)
	if err != nil {
		return BuildResult{}, err
	}
	defer cli.Close()
	if version == "" {
		version = kafkadist.Default
	}
	dist, err := kafkadist.Install(ctx, version, progress)
	if err != nil {
		return BuildResult{}, err
	}
	version = dist.Version
	ref := ImageName(version)
	files, recipe, err := kafkaLayer(ctx, dist)
	if err != nil {
		return BuildResult{}, err
	}
	if in, err := cli.ImageInspect(ctx, ref); err == nil && !force && in.Config != nil && in.Config.Labels["kafkabook.recipe"] == recipe {
		return BuildResult{Image: ref, ID: in.ID, Size: in.Size}, nil
	}
	if err := ensureBase(ctx, cli, progress); err != nil {
		return BuildResult{}, err
	}
	progress("building %s from %s and %d jars of Kafka %s (%s)", ref, baseImage, len(files)-4, version, dist.Source)
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeContext(pw, files)) }()
	resp, err := cli.ImageBuild(ctx, pr, build.ImageBuildOptions{
		Tags: []string{ref}, Dockerfile: "Dockerfile", Remove: true, ForceRemove: true, Version: build.BuilderV1,
		Labels: map[string]string{
			"kafkabook.recipe": recipe, "kafkabook.kafka": version,
			"org.opencontainers.image.title":       "Apache Kafka " + version + " (built by kafkabook)",
			"org.opencontainers.image.version":     version,
			"org.opencontainers.image.description": "Kafka's jars from Maven Central on Debian bookworm with openjdk-17-jre-headless; configured like apache/kafka through KAFKA_* variables",
		},
	})
	if err != nil {
		pr.CloseWithError(err)
		return BuildResult{}, fmt.Errorf("build %s: %w", ref, err)
	}
	err = readStream(resp.Body)
	resp.Body.Close()
	if err != nil {
		return BuildResult{}, fmt.Errorf("build %s: %w", ref, err)
	}
	in, err := cli.ImageInspect(ctx, ref)
	if err != nil {
		return BuildResult{}, err
	}
	return BuildResult{Image: ref, ID: in.ID, Size: in.Size, Rebuilt: true}, nil
}

// ctxFile is one file of the build context.
type ctxFile struct {
	name string
	mode int64
	data []byte // or
	path string // a file on disk
	size int64
}

// kafkaLayer lists the build context of the Kafka layer and a hash of
// everything that goes into it.
func kafkaLayer(ctx context.Context, dist kafkadist.Dist) ([]ctxFile, string, error) {
	log4j2, err := composeLog4j2(ctx)
	if err != nil {
		return nil, "", err
	}
	dockerfile := `FROM ` + baseImage + `
COPY libs /opt/kafka/libs
COPY run /etc/kafka/docker/run
COPY log4j2.properties /etc/kafkabook/log4j2.properties
ENV KAFKA_HOME=/opt/kafka LANG=C.UTF-8
USER appuser
WORKDIR /opt/kafka
EXPOSE 9092 9093
ENTRYPOINT ["/etc/kafka/docker/run"]
`
	files := []ctxFile{
		{name: "Dockerfile", mode: 0o644, data: []byte(dockerfile)},
		{name: "run", mode: 0o755, data: runScript},
		{name: "log4j2.properties", mode: 0o444, data: log4j2},
		{name: "libs/", mode: 0o755},
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s %d\n", f.name, len(f.data))
		h.Write(f.data)
	}
	jars, err := filepath.Glob(filepath.Join(dist.Libs, "*.jar"))
	if err != nil || len(jars) == 0 {
		return nil, "", fmt.Errorf("no jars in %s", dist.Libs)
	}
	slices.Sort(jars)
	for _, j := range jars {
		fi, err := os.Stat(j)
		if err != nil {
			return nil, "", err
		}
		files = append(files, ctxFile{name: "libs/" + filepath.Base(j), mode: 0o644, path: j, size: fi.Size()})
		fmt.Fprintf(h, "%s %d\n", filepath.Base(j), fi.Size())
	}
	return files, fmt.Sprintf("%x", h.Sum(nil))[:16], nil
}

// composeLog4j2 is the log4j2 configuration the built-in compose.yaml
// mounts into every node: the image has the same one, so that it logs
// alike without the file too.
func composeLog4j2(ctx context.Context) ([]byte, error) {
	p, err := loadCompose(ctx, nil, "", "kafkabook", nil)
	if err != nil {
		return nil, err
	}
	c, ok := p.Configs["log4j2"]
	if !ok || c.Content == "" {
		return nil, errors.New("compose.yaml has no log4j2 config")
	}
	return []byte(c.Content), nil
}

func writeContext(w io.Writer, files []ctxFile) error {
	tw := tar.NewWriter(w)
	now := time.Now()
	for _, f := range files {
		if strings.HasSuffix(f.name, "/") {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: f.name, Mode: f.mode, ModTime: now}); err != nil {
				return err
			}
			continue
		}
		size := int64(len(f.data))
		if f.path != "" {
			size = f.size
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: size, ModTime: now}); err != nil {
			return err
		}
		if f.path == "" {
			if _, err := tw.Write(f.data); err != nil {
				return err
			}
			continue
		}
		in, err := os.Open(f.path)
		if err != nil {
			return err
		}
		_, err = io.CopyN(tw, in, size)
		in.Close()
		if err != nil {
			return err
		}
	}
	return tw.Close()
}

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
		Message: "Debian bookworm (minbase) with openjdk-17-jre-headless, made by kafkabook with debootstrap",
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
// openjdk-17-jre-headless, trimmed of documentation, locales and package
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
	if err := runLogged(ctx, "debootstrap", "--variant=minbase", "--include=openjdk-17-jre-headless", "bookworm", root, mirror); err != nil {
		return "", err
	}
	for _, pattern := range []string{"var/cache/apt/archives/*.deb", "var/lib/apt/lists/*", "usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale/*", "var/log/*"} {
		matches, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, m := range matches {
			os.RemoveAll(m)
		}
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

// readStream reads a stream of JSON messages from the engine (pull,
// import, build) to its end and returns the error one of them carries.
func readStream(r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var m struct {
			Error       string `json:"error"`
			ErrorDetail *struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if m.ErrorDetail != nil && m.ErrorDetail.Message != "" {
			return errors.New(strings.TrimSpace(m.ErrorDetail.Message))
		}
		if m.Error != "" {
			return errors.New(strings.TrimSpace(m.Error))
		}
	}
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
