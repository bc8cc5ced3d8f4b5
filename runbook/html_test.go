package runbook

import (
	"strings"
	"testing"
)

// TestBlockHTML: prose is Markdown with GFM tables; raw HTML and
// javascript: links never reach the page; other blocks are escaped text.
func TestBlockHTML(t *testing.T) {
	src := "---\ntitle: t\n---\n\n# Heading <b>x</b>\n\nSome **bold** & [a link](https://kafka.apache.org/) and [bad](javascript:alert(1)).\n\n" +
		"<script>alert(1)</script>\n\n<div onclick=\"alert(2)\">raw block</div>\n\nInline <img src=x onerror=alert(3)> tag.\n\n" +
		"| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```text\n<script>alert(4)</script>\n```\n\n```kafka\nsleep 1s\n```\n"
	doc, err := Load("t.md", []byte(src), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var prose, code, kafka string
	for _, b := range doc.Blocks {
		switch b.Kind {
		case Prose:
			prose += string(b.HTML())
		case Code:
			code += string(b.HTML())
		case Kafka:
			kafka += string(b.HTML())
		}
	}
	for _, want := range []string{
		"<h1>Heading <!-- raw HTML omitted -->x<!-- raw HTML omitted --></h1>",
		"Some <strong>bold</strong> &amp; <a href=\"https://kafka.apache.org/\">a link</a>",
		"<!-- raw HTML omitted -->",
		"<table>", "<td>1</td>",
	} {
		if !strings.Contains(prose, want) {
			t.Errorf("prose lacks %s:\n%s", want, prose)
		}
	}
	for _, bad := range []string{"<script", "<div", "<img", "onclick", "onerror", "javascript:"} {
		if strings.Contains(prose, bad) {
			t.Errorf("prose holds %q:\n%s", bad, prose)
		}
	}
	if want := "<pre><code>&lt;script&gt;alert(4)&lt;/script&gt;</code></pre>\n"; code != want {
		t.Errorf("code block = %q, want %q", code, want)
	}
	if want := "<pre><code>sleep 1s</code></pre>\n"; kafka != want {
		t.Errorf("kafka block = %q, want %q", kafka, want)
	}
}
