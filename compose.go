// Package kafkabook holds what the tool ships from the repository's root:
// compose.yaml, the Docker backend's cluster, and kubernetes.yaml, the
// Kubernetes backend's.
package kafkabook

import _ "embed"

// Compose is compose.yaml: the shape of a Docker cluster (services k1..k3,
// their network, volumes and settings), read by internal/cluster/docker
// and usable with `docker compose` by hand.
//
//go:embed compose.yaml
var Compose []byte
