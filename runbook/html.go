package runbook

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// proseMarkdown renders prose: CommonMark plus GFM (tables, strikethrough,
// autolinks, task lists). It is goldmark's default renderer, which is not
// told that raw HTML is safe: it omits raw HTML blocks and inline tags
// (leaving a "<!-- raw HTML omitted -->" comment) and drops link and image
// targets with dangerous schemes such as javascript:.
var proseMarkdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// HTML renders the block for a page. A prose block is its Markdown rendered
// as HTML, raw HTML omitted and dangerous link targets dropped, so the
// result is safe to place in a page as it is. Any other block is its text,
// escaped, in <pre><code>: reports lay out kafka and sh blocks themselves,
// and this is how they show the rest.
func (b Block) HTML() template.HTML {
	if b.Kind != Prose {
		return template.HTML("<pre><code>" + template.HTMLEscapeString(strings.TrimRight(b.Text, "\n")) + "</code></pre>\n")
	}
	var out bytes.Buffer
	if err := proseMarkdown.Convert([]byte(b.Text), &out); err != nil {
		return template.HTML("<p><em>(this part of the runbook could not be rendered: " + template.HTMLEscapeString(err.Error()) + ")</em></p>\n")
	}
	return template.HTML(out.String())
}
