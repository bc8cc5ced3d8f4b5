package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kafkabook/kafkabook/internal/echarts"
)

// The site's shared assets, under <site>/assets/.
const (
	assetsDir    = "assets"
	assetJS      = "echarts.min.js"
	assetLicense = "echarts-LICENSE.txt"
	assetNotice  = "echarts-NOTICE.txt"
)

// writeAssets puts echarts and its licence files into <site>/assets/,
// rewriting a file only when its content differs, so a site is written once
// and re-renders leave it untouched.
func writeAssets(site string, e *echarts.Files) error {
	dir := filepath.Join(site, assetsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for name, data := range map[string][]byte{assetJS: e.JS, assetLicense: e.License, assetNotice: e.Notice} {
		p := filepath.Join(dir, name)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := writeFile(p, data); err != nil {
			return err
		}
	}
	return nil
}
