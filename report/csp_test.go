package report

import (
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	cspMeta      = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	inlineScript = regexp.MustCompile(`(?s)<script>(.*?)</script>`)
)

// TestCSPHashesInlineScripts: every inline script of a page (the chart
// script; echarts too in a single-file page) is allowed by its sha256, and
// nothing else is: no 'unsafe-inline' for scripts; a page without charts
// runs no script.
func TestCSPHashesInlineScripts(t *testing.T) {
	site, dirs := fixtureSite(t)
	if err := RenderSite(site, Options{}); err != nil {
		t.Fatal(err)
	}
	single := acksDir(t)
	if err := Render(single, Options{SingleFile: true}); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	if err := RenderSite(empty, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file    string
		scripts int
		self    bool
	}{
		{filepath.Join(dirs[1], IndexFile), 1, true},
		{filepath.Join(site, IndexFile), 1, true},
		{filepath.Join(single, IndexFile), 2, false},
		{filepath.Join(empty, IndexFile), 0, false},
	} {
		page := mustRead(t, tc.file)
		m := cspMeta.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s: no CSP", tc.file)
		}
		csp := html.UnescapeString(m[1])
		var scriptSrc string
		for _, d := range strings.Split(csp, ";") {
			if f := strings.Fields(d); len(f) > 0 && f[0] == "script-src" {
				scriptSrc = strings.Join(f[1:], " ")
			}
		}
		var want []string
		if tc.self {
			want = append(want, "'self'")
		}
		for _, s := range inlineScript.FindAllStringSubmatch(page, -1) {
			want = append(want, scriptHash(s[1]))
		}
		if len(want) == 0 {
			want = []string{"'none'"}
		}
		if got := len(inlineScript.FindAllString(page, -1)); got != tc.scripts {
			t.Errorf("%s: %d inline scripts, want %d", tc.file, got, tc.scripts)
		}
		if scriptSrc != strings.Join(want, " ") {
			t.Errorf("%s: script-src %s, want %s", tc.file, scriptSrc, strings.Join(want, " "))
		}
	}
}
