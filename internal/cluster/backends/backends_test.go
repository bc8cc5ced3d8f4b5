package backends

import (
	"strings"
	"testing"
)

// TestChoose: the options name a backend, or are refused for the one
// named.
func TestChoose(t *testing.T) {
	for _, c := range []struct {
		kind string
		o    Options
		want string // the backend, or an error's words
	}{
		{"", Options{}, ""},
		{"local", Options{}, "local"},
		{"", Options{ClusterFile: "c.yaml"}, "external"},
		{"", Options{Kubeconfig: "k"}, "kubernetes"},
		{"", Options{Image: "i"}, "docker"},
		{"kubernetes", Options{Image: "i"}, "kubernetes"},
		{"podman", Options{}, "error: use local, docker, kubernetes or external"},
		{"external", Options{}, "error: needs --cluster-file"},
		{"docker", Options{ClusterFile: "c"}, "error: --cluster-file is for --backend external"},
		{"local", Options{Image: "i"}, "error: --image and --compose are for --backend docker"},
		{"kubernetes", Options{Compose: "c"}, "error: --compose is for --backend docker"},
		{"docker", Options{Namespace: "n"}, "error: --kubeconfig and --namespace are for --backend kubernetes"},
	} {
		got, err := Choose(c.kind, c.o)
		if want, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Choose(%q, %+v) = %q, %v; want an error saying %q", c.kind, c.o, got, err, want)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Choose(%q, %+v) = %q, %v; want %q", c.kind, c.o, got, err, c.want)
		}
	}
	for _, name := range Names() {
		b, err := Open(name, "x", Options{ClusterFile: "testdata/none.yaml"})
		if name == "external" {
			continue // needs a real cluster file
		}
		if err != nil {
			t.Errorf("Open(%s): %v", name, err)
			continue
		}
		if NameOf(b) != name {
			t.Errorf("NameOf(Open(%s)) = %s", name, NameOf(b))
		}
	}
}
