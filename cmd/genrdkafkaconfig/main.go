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
	"fmt"
	"path/filepath"

	"github.com/kafkabook/kafkabook/internal/clientconfig"
	"github.com/kafkabook/kafkabook/internal/driver"
	"github.com/kafkabook/kafkabook/internal/gencat"
)

//go:embed show_properties.py
var showProperties []byte

func main() {
	gencat.Main(gencat.Generator{
		Name: "genrdkafkaconfig", Out: "internal/clientconfig/catalog", Program: "show_properties.py", Source: showProperties,
		Versions: func() []string { return clientconfig.Versions(clientconfig.Librdkafka) },
		// librdkafka-VERSION.txt
		Each: func(ctx context.Context, _, script, version, out string) error {
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
			return gencat.Write(filepath.Join(out, "librdkafka-"+version+".txt"), text, "properties")
		},
	})
}
