package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/kafkabook/kafkabook/internal/cluster"
)

// ImageName is the image `kafkabook image build` makes for a Kafka version.
func ImageName(version string) string { return "kafkabook/kafka:" + version }

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
