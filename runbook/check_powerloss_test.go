package runbook

import (
	"strings"
	"testing"
)

const powerlossRunbook = "---\nbackend: BACKEND\n---\n```kafka\n" + `topic create t --replicas 1:2:3
produce t --acks all --count 10
powerloss k1 k2
powerloss leader(t)
wait healthy
start k1 k2
wait healthy
` + "```\n"

// TestCheckPowerloss: check refuses powerloss, once, where the caller says
// the machine cannot mount the layer or the runbook asks for the docker backend, and
// otherwise takes the nodes for down until a start, as after kill.
func TestCheckPowerloss(t *testing.T) {
	load := func(backend, missing string) error {
		t.Helper()
		src := []byte(strings.Replace(powerlossRunbook, "BACKEND", backend, 1))
		doc, err := LoadFor("pl.md", src, Overrides{}, Capabilities{PowerLossMissing: missing})
		if err == nil {
			if !doc.Uses(OpPowerloss) || doc.Uses(OpConsume) {
				t.Errorf("Uses: powerloss %v, consume %v", doc.Uses(OpPowerloss), doc.Uses(OpConsume))
			}
			if len(doc.Warnings) != 2 || !strings.Contains(doc.Warnings[0].Error(), `pl.md:9:1: k1 is down ("powerloss k1 k2" on line 7)`) {
				t.Errorf("warnings %v, want that k1 and k2 are still down at the first wait healthy", doc.Warnings)
			}
		}
		return err
	}
	if err := load("local", ""); err != nil {
		t.Errorf("with FUSE and root: %v", err)
	}
	err := load("local", "root, fusermount3 (Debian's fuse3 package: apt-get install fuse3)")
	if err == nil || strings.Count(err.Error(), "this machine lacks root, fusermount3") != 1 || !strings.Contains(err.Error(), "pl.md:7:1:") {
		t.Errorf("without root and fusermount3: %v, want one error at the first powerloss naming both", err)
	}
	err = load("docker", "")
	if err == nil || !strings.Contains(err.Error(), "pl.md:7:1: powerloss needs the local backend") {
		t.Errorf("docker backend: %v", err)
	}
}

// TestCheckDisk: disk needs the layer as powerloss does, so check refuses
// it on docker and Kubernetes with the reason, and a runbook with it asks
// for a cluster on the layer.
func TestCheckDisk(t *testing.T) {
	src := "---\nbackend: BACKEND\n---\n```kafka\ntopic create t --replicas 1:2:3\ndisk k2 --full\ndisk k2 --heal\n```\n"
	for backend, want := range map[string]string{
		"local":      "",
		"docker":     "d.md:6:1: disk needs the local backend (backend: docker keeps a node's data in a Docker volume, not on kafkabook's layer (a FUSE mount of this machine))",
		"kubernetes": "d.md:6:1: disk needs the local backend (backend: kubernetes keeps a node's data on a PersistentVolumeClaim, not on kafkabook's layer (a FUSE mount of this machine))",
	} {
		doc, err := LoadFor("d.md", []byte(strings.Replace(src, "BACKEND", backend, 1)), Overrides{}, Capabilities{})
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", backend, err)
		case want == "" && !doc.NeedsLayer():
			t.Errorf("%s: a runbook with disk does not ask for the layer", backend)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "needs the local backend") != 1):
			t.Errorf("%s: %v, want once: %s", backend, err, want)
		}
	}
}
