// Package cachedir names kafkabook's cache, where what it downloads (Kafka's
// jars, the chart library) is kept between runs.
package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir is $KAFKABOOK_CACHE, else <user cache dir>/kafkabook
// (~/.cache/kafkabook on Linux).
func Dir() (string, error) {
	if d := os.Getenv("KAFKABOOK_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set KAFKABOOK_CACHE): %w", err)
	}
	return filepath.Join(d, "kafkabook"), nil
}
