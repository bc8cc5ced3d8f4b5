// Command genrdkafkaconfig writes the catalogues of librdkafka properties
// that internal/clientconfig embeds, from librdkafka itself: for each
// confluent-kafka version it installs the librdkafka driver's virtual
// environment (internal/driver, pip from PyPI, cached), runs
// show_properties.py there, which calls rd_kafka_conf_properties_show in
// the wheel's own library, and keeps each property's name, role (the C/P
// column), type, range and default. Nothing in the catalogue is typed by
// hand.
//
//	go run ./cmd/genrdkafkaconfig              # every version already catalogued
//	go run ./cmd/genrdkafkaconfig 2.17.0       # add (or refresh) a version
//
// It needs python3 with venv and the network to PyPI.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/internal/driver"
)

//go:embed show_properties.py
var showProperties []byte

func main() {
	out := flag.String("out", "internal/clientconfig/catalog", "directory of the catalogue files")
	flag.Parse()
	versions := flag.Args()
	if len(versions) == 0 {
		versions = clientconfig.Versions(clientconfig.Librdkafka)
	}
	if err := generate(context.Background(), *out, versions); err != nil {
		fmt.Fprintln(os.Stderr, "genrdkafkaconfig:", err)
		os.Exit(1)
	}
}

// generate writes librdkafka-VERSION.txt into out for each version.
func generate(ctx context.Context, out string, versions []string) error {
	tmp, err := os.MkdirTemp("", "genrdkafkaconfig-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	script := filepath.Join(tmp, "show_properties.py")
	if err := os.WriteFile(script, showProperties, 0o644); err != nil {
		return err
	}
	progress := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "… "+format+"\n", args...) }
	for _, version := range versions {
		d, err := driver.Install(ctx, driver.Ref{Client: "librdkafka", Version: version}, progress)
		if err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, d.Argv[0], "-I", script)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		table, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("listing the properties of confluent-kafka %s: %v: %s", version, err, strings.TrimSpace(stderr.String()))
		}
		text, err := clientconfig.RdkafkaCatalog(string(table))
		if err != nil {
			return fmt.Errorf("confluent-kafka %s: %w", version, err)
		}
		name := filepath.Join(out, "librdkafka-"+version+".txt")
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			return err
		}
		progress("wrote %s (%d properties)", name, strings.Count(text, "\n")-1)
	}
	return nil
}
