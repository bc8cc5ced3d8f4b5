package driver

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed librdkafka/kafkabook_driver.py
var pythonSource []byte

// DefaultLibrdkafka is the confluent-kafka release of `librdkafka` when
// none is pinned. confluent-kafka's releases follow librdkafka's numbering
// and its wheels carry librdkafka; startup_complete says which
// (confluent-kafka 2.16.1 carries librdkafka 2.16.0).
const DefaultLibrdkafka = "2.16.1"

// installLibrdkafka makes a virtual environment driver-librdkafka-<version>
// holding confluent-kafka from PyPI, and the driver beside it.
func installLibrdkafka(ctx context.Context, cache string, ref Ref, progress func(string, ...any)) (Driver, error) {
	if ref.Version == "" {
		ref.Version = DefaultLibrdkafka
	}
	dir := filepath.Join(cache, "driver-librdkafka-"+ref.Version)
	python := filepath.Join(dir, "venv", "bin", "python")
	d := Driver{Ref: ref, Dir: dir, Argv: []string{python, "-I", filepath.Join(dir, "kafkabook_driver.py")}}
	if installed(dir, pythonSource) {
		return d, nil
	}
	if _, err := pythonWithVenv(ctx, "the librdkafka driver runs confluent-kafka for Python"); err != nil {
		return d, err
	}
	err := build(cache, dir, pythonSource, func(tmp string) error {
		progress("librdkafka driver: making a Python virtual environment")
		if err := run(ctx, tmp, "python3", "-m", "venv", "venv"); err != nil {
			return fmt.Errorf("%w\n(Debian/Ubuntu: apt-get install python3-venv)", err)
		}
		progress("librdkafka driver: installing confluent-kafka==%s from PyPI", ref.Version)
		err := run(ctx, tmp, filepath.Join(tmp, "venv", "bin", "python"), "-m", "pip", "install",
			"--disable-pip-version-check", "--no-input", "-q", "--only-binary=:all:", "confluent-kafka=="+ref.Version)
		if err != nil {
			if strings.Contains(err.Error(), "No matching distribution") {
				return fmt.Errorf("confluent-kafka %s has no wheel on PyPI for this machine: releases look like 2.15.1, 2.16.1", ref.Version)
			}
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "kafkabook_driver.py"), pythonSource, 0o644)
	})
	if err != nil {
		return d, fmt.Errorf("install the librdkafka driver (confluent-kafka %s): %w", ref.Version, err)
	}
	progress("librdkafka driver: confluent-kafka %s ready in %s", ref.Version, dir)
	return d, nil
}

// pythonWithVenv is python3's version when it can make a virtual
// environment with pip, as the driver's install and its checks need;
// otherwise an error that says what to install. why says what python3 is
// needed for.
func pythonWithVenv(ctx context.Context, why string) (string, error) {
	if err := need("python3", "python3", why); err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, "python3", "-c", "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3])").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("python3 cannot make a virtual environment with pip (%v: %s): install its venv module (Debian/Ubuntu: apt-get install python3-venv)",
			err, strings.TrimSpace(tailLines(string(out), 3)))
	}
	return strings.TrimSpace(string(out)), nil
}
