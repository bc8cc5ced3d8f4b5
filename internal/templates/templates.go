// Package templates holds the HTML templates of kafkabook's reports, their
// stylesheet and the script that draws their charts, compiled into the
// binary with go:embed. Apache ECharts itself comes from package
// internal/echarts (fetched once into the cache, or embedded in release
// builds).
package templates

import (
	"embed"
	"fmt"
	"html/template"
)

//go:embed *.tmpl *.css *.js
var files embed.FS

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
