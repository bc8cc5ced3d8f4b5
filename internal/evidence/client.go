package evidence

import (
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/results"
)

// franzGo is kafkabook's default client, the one evidence without a
// provenance client produced through.
const franzGo = "franz-go"

// clientOf says which client the runs of p produced through, as asked
// (franz-go, java, librdkafka@2.15.1), and its library at its exact
// version as the provenance records it: franz-go's module version, or
// what the driver said of itself at start-up (kafka-clients 4.3.1;
// confluent-kafka 2.15.1, librdkafka 2.15.1). version is "" when the
// evidence does not say. others are the clients that steps named besides
// it, each with its library and exact version.
func clientOf(p results.Provenance) (client, version string, others []string) {
	client = p.Client
	if client == "" {
		client = franzGo
	}
	name, _, _ := strings.Cut(client, "@")
	if name == franzGo {
		if p.FranzGo != "" {
			version = franzGo + " " + p.FranzGo
		}
	}
	for _, c := range p.Clients {
		v := libraryVersion(c)
		switch {
		case c.Client == name && version == "":
			version = v
		case c.Client != name && !slices.Contains(others, c.Client+" ("+v+")"):
			others = append(others, c.Client+" ("+v+")")
		}
	}
	return client, version, others
}

// libraryVersion is a driver's library and exact version: kafka-clients
// 4.3.1; confluent-kafka 2.15.1, librdkafka 2.15.1.
func libraryVersion(c results.ClientInfo) string {
	v := c.Library + " " + c.Version
	if c.Librdkafka != "" {
		v += ", librdkafka " + c.Librdkafka
	}
	return v
}

// ClientLabel is how the evidence names a block's client next to the
// release: franz-go v1.22.3; java (kafka-clients 4.3.1);
// librdkafka@2.15.1 (confluent-kafka 2.15.1, librdkafka 2.15.1); the
// client alone when its version is not recorded, franz-go when the block
// names none (evidence from before clients).
func (b Block) ClientLabel() string {
	switch {
	case b.Client == "":
		return franzGo
	case b.ClientVersion == "":
		return b.Client
	case strings.HasPrefix(b.ClientVersion, b.Client+" "):
		return b.ClientVersion
	}
	return b.Client + " (" + b.ClientVersion + ")"
}
