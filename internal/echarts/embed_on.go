//go:build embed_echarts

package echarts

import (
	_ "embed"
	"strings"
)

// A release build (-tags embed_echarts) carries the files that
// scripts/fetch-echarts.sh put into embed/; the build fails if they are
// missing.
var (
	//go:embed embed/echarts.min.js
	embedJS []byte
	//go:embed embed/LICENSE
	embedLicense []byte
	//go:embed embed/NOTICE
	embedNotice []byte
	//go:embed embed/VERSION
	embedVersion string
)

var embedded = &Files{Version: strings.TrimSpace(embedVersion), JS: embedJS, License: embedLicense, Notice: embedNotice, From: "embedded in this build"}
