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
	"path/filepath"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/gencat"
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
	_, script, remove, err := gencat.Scratch("show_properties.py", showProperties)
	if err != nil {
		return err
	}
	defer remove()
	for _, version := range versions {
		d, err := driver.Install(ctx, driver.Ref{Client: "librdkafka", Version: version}, gencat.Progress)
		if err != nil {
			return err
		}
		table, err := gencat.Output(ctx, d.Argv[0], "-I", script)
		if err != nil {
			return fmt.Errorf("listing the properties of confluent-kafka %s: %w", version, err)
		}
		text, err := clientconfig.RdkafkaCatalog(table)
		if err != nil {
			return fmt.Errorf("confluent-kafka %s: %w", version, err)
		}
		if err := gencat.Write(filepath.Join(out, "librdkafka-"+version+".txt"), text, "properties"); err != nil {
			return err
		}
	}
	return nil
}
