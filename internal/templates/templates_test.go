package templates

import (
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
