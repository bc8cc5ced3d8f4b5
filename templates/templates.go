// Package templates holds the HTML templates of kafkabook's reports and the
// assets they embed, compiled into the binary with go:embed so that a report
// renders anywhere, from results alone, without fetching anything.
//
// Apache ECharts is not part of the repository: scripts/fetch-echarts.sh
// puts a pinned, integrity-checked build into assets/echarts/ before the
// build. Without it the package still compiles; Echarts reports what to do.
package templates

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
)

//go:embed *.tmpl *.css *.js
var files embed.FS

//go:embed assets/echarts
var echartsFS embed.FS

// Parse parses every page template with funcs, which the report package
// supplies. The pages are "report.html.tmpl" and "site.html.tmpl".
func Parse(funcs template.FuncMap) (*template.Template, error) {
	t, err := template.New("").Funcs(funcs).ParseFS(files, "*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	return t, nil
}

// Style returns the stylesheet inlined into every page.
func Style() template.CSS {
	b, _ := files.ReadFile("style.css")
	return template.CSS(b)
}

// InitScript returns the script inlined into every page that draws its
// charts from the JSON data islands.
func InitScript() template.JS {
	b, _ := files.ReadFile("charts.js")
	return template.JS(b)
}

// Echarts is the bundled Apache ECharts build and its licence files.
type Echarts struct {
	Version string
	JS      []byte // dist/echarts.min.js
	License []byte
	Notice  []byte
}

// ErrNoEcharts is returned by LoadEcharts when the binary was built without
// running scripts/fetch-echarts.sh.
var ErrNoEcharts = errors.New("echarts is not bundled in this build: run scripts/fetch-echarts.sh, then rebuild kafkabook")

// LoadEcharts returns the embedded echarts, or ErrNoEcharts.
func LoadEcharts() (*Echarts, error) {
	read := func(name string) ([]byte, error) {
		b, err := fs.ReadFile(echartsFS, "assets/echarts/"+name)
		if err != nil {
			return nil, ErrNoEcharts
		}
		return b, nil
	}
	var e Echarts
	var err error
	if e.JS, err = read("echarts.min.js"); err != nil {
		return nil, err
	}
	if e.License, err = read("LICENSE"); err != nil {
		return nil, err
	}
	if e.Notice, err = read("NOTICE"); err != nil {
		return nil, err
	}
	v, _ := read("VERSION")
	e.Version = string(trimSpace(v))
	return &e, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
