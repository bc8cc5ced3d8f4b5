package templates

import (
	"errors"
	"html/template"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tm, err := Parse(template.FuncMap{"licenseURL": func(string) string { return "" }, "noticeURL": func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"report.html.tmpl", "site.html.tmpl", "head", "scripts", "footer", "chart"} {
		if tm.Lookup(name) == nil {
			t.Errorf("template %s missing", name)
		}
	}
	if !strings.Contains(string(InitScript()), "echarts.init") || !strings.Contains(string(Style()), ".chart") {
		t.Errorf("embedded script or style missing")
	}
}

// TestEcharts passes with the fetched echarts, and otherwise checks that
// the error says how to get it.
func TestEcharts(t *testing.T) {
	e, err := LoadEcharts()
	if errors.Is(err, ErrNoEcharts) {
		if !strings.Contains(err.Error(), "scripts/fetch-echarts.sh") {
			t.Errorf("error does not say how to fix it: %v", err)
		}
		t.Skip("echarts not fetched: run scripts/fetch-echarts.sh")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(e.JS) < 100000 || !strings.Contains(string(e.License), "Apache License") || !strings.Contains(string(e.Notice), "Apache ECharts") {
		t.Errorf("echarts files look wrong: js %d bytes", len(e.JS))
	}
	if e.Version == "" {
		t.Errorf("no version")
	}
}
