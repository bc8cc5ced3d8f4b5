package cluster

import (
	"fmt"
	"os"
	"path/filepath"
)

// StateRoot is where clusters keep their state, data and logs:
// $KAFKABOOK_STATE, else $XDG_STATE_HOME/kafkabook, else
// ~/.local/state/kafkabook. Both backends use it: the local backend keeps
// its clusters' files there, the Docker backend labels its containers with
// it, so that the clusters of one root are one set whatever runs them.
func StateRoot() (string, error) {
	if d := os.Getenv("KAFKABOOK_STATE"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "kafkabook"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory (set KAFKABOOK_STATE): %w", err)
	}
	return filepath.Join(home, ".local", "state", "kafkabook"), nil
}
