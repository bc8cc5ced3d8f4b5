package cluster

import (
	"crypto/rand"
	"encoding/base64"
)

// RandomUUID is a random id as Kafka writes one (base64 of 16 bytes, URL
// alphabet, unpadded): a cluster id, a metadata log directory's id. It
// never starts with '-', which Kafka's storage tool would take for a flag
// (Kafka's own Uuid.randomUuid draws again too).
func RandomUUID() string {
	id := make([]byte, 16)
	for {
		rand.Read(id)
		if s := base64.RawURLEncoding.EncodeToString(id); s[0] != '-' {
			return s
		}
	}
}
