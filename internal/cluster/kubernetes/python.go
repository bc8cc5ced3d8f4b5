package kubernetes

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Python client's driver (librdkafka, through confluent-kafka) is a
// virtual environment made on this machine, whose interpreter is a link
// to this machine's Python. The image has Debian's python3 instead
// (docker's base recipe), so in the pod the driver runs under that
// Python, isolated (-I) as on this machine, with the environment's
// site-packages first on its path: the wheels (confluent-kafka carries
// its librdkafka) need the same major.minor Python, which is checked.

// pythonLoader runs a script with a site-packages directory first on
// sys.path: python3 -I -c pythonLoader SITE SCRIPT ARGS...
const pythonLoader = `import runpy, sys; sys.path.insert(0, sys.argv[1]); del sys.argv[:2]; runpy.run_path(sys.argv[0], run_name="__main__")`

// venvArgv is argv with a virtual environment's interpreter replaced by
// the pod's python3, when argv[0] is the interpreter of a virtual
// environment in files; otherwise argv unchanged.
func (c *clients) venvArgv(ctx context.Context, argv []string, files []string) ([]string, error) {
	dir := filepath.Dir(filepath.Dir(argv[0])) // venv/bin/python
	cfg := filepath.Join(dir, "pyvenv.cfg")
	if _, err := os.Stat(cfg); err != nil {
		return argv, nil
	}
	for _, f := range files {
		if dir != f && !strings.HasPrefix(dir, f+string(filepath.Separator)) {
			continue
		}
		want, err := venvVersion(cfg)
		if err != nil {
			return nil, err
		}
		have, err := c.podPython(ctx)
		if err != nil {
			return nil, fmt.Errorf("kubernetes: %s is a Python virtual environment (the librdkafka driver) and the client pod has no python3 (%v): rebuild the image with `kafkabook image build --force`, whose base has Debian's python3", dir, err)
		}
		if have != want {
			return nil, fmt.Errorf("kubernetes: the librdkafka driver's virtual environment %s is for Python %s, and the client pod's python3 is %s: its wheels need the same version; run this runbook on the local or docker backend, or with a Python %s on this machine", dir, want, have, have)
		}
		site := filepath.Join(dir, "lib", "python"+want, "site-packages")
		rest := argv[1:]
		if len(rest) > 0 && rest[0] == "-I" {
			rest = rest[1:]
		}
		return append([]string{"python3", "-I", "-c", pythonLoader, site}, rest...), nil
	}
	return argv, nil
}

// podPython is the client pod's python3 major.minor, asked once: every
// librdkafka member of a run starts through venvArgv.
func (c *clients) podPython(ctx context.Context) (string, error) {
	c.mu.Lock()
	v := c.python
	c.mu.Unlock()
	if v != "" {
		return v, nil
	}
	out, err := c.api.run(ctx, c.pod, c.container, "python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])")
	if err != nil {
		return "", err
	}
	v = strings.TrimSpace(out)
	c.mu.Lock()
	c.python = v
	c.mu.Unlock()
	return v, nil
}

// venvVersion is the major.minor Python version of a virtual
// environment's pyvenv.cfg (version = 3.11.7, or version_info).
func venvVersion(cfg string) (string, error) {
	f, err := os.Open(cfg)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if k = strings.TrimSpace(k); !ok || (k != "version" && k != "version_info") {
			continue
		}
		parts := strings.Split(strings.TrimSpace(v), ".")
		if len(parts) >= 2 {
			return parts[0] + "." + parts[1], nil
		}
	}
	return "", fmt.Errorf("%s says no Python version", cfg)
}
