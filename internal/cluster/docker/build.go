package docker

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/kafkadist"
)

// Images without a registry. `kafkabook image build` makes
// kafkabook/kafka:VERSION on this Docker host from two things kafkabook can
// fetch where no container registry is reachable: a Debian root file
// system with Java 17, made by debootstrap from Debian's mirror (kept as a
// tarball in the cache and imported as kafkabook/base), and Kafka's jars,
// resolved from Maven Central by internal/kafkadist, the jars the local
// backend runs. The image reads the same KAFKA_* variables as apache/kafka
// (see run.sh).

//go:embed run.sh
var runScript []byte

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
