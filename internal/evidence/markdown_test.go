package evidence

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// hostileBlock is evidence whose every text a stranger could have chosen
// tries to break out of where the Markdown puts it.
func hostileBlock() Block {
	return Block{
		Title: "t\n# injected heading", Runbook: "rb` <b>x</b> `", RunbookPath: "p](http://evil.example)",
		RunbookSHA256: "``", ResultsSHA256: "ab|cd", Complete: false, Error: "boom\n\n| a | b |",
		Held: 0, Runs: 1, Kafka: "4.3.1 | <script>alert(1)</script>", Backend: "`local` [x](http://evil.example)", Nodes: 3,
		Client: "java@1 <img src=x>", ClientVersion: "kafka-clients **1** [y](http://evil.example)", OtherClients: []string{"x\n# h", "<b>b</b>"},
		Broker:       map[string]string{"a": "1\nlog.dirs=/etc", "b`": "``x``"},
		Params:       map[string]string{"p": "` | injected | cell |"},
		TopicConfigs: map[string]map[string]string{"acks` |": {"min.insync.replicas": "2`"}}, TopicConfigsRecorded: true,
		Experiments:  []Experiment{{Label: "lab`el | x", LostPerRun: []int{0}, Runs: 1}},
		Groups:       []Group{{Label: "g``|", Commit: "after|x", Dedup: "<i>none</i>", Runs: 1}},
		Expectations: []ExpectationVerdict{{Pos: "r.md:1:1", Expr: "lost(a) > 0 `| <script>", Runs: 1, Actual: []string{"1|2"}}},
		Tool:         "v1 **bold**", Commit: "c\\|x", Report: "run dir/index.html) [x](y",
	}
}

// TestMarkdownHostile: no value closes its code span, starts a block,
// adds a table cell, a link or HTML; the golden file shows how each is
// written.
func TestMarkdownHostile(t *testing.T) {
	var md bytes.Buffer
	if err := hostileBlock().Markdown(&md); err != nil {
		t.Fatal(err)
	}
	golden(t, "hostile.md", md.Bytes())

	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	for _, bad := range []string{"<script", "<b>", "<i>", "<img", "<h1", "evil.example\">", "<em>"} {
		if strings.Contains(page, bad) {
			t.Errorf("rendered Markdown holds %q:\n%s", bad, page)
		}
	}
	if n := strings.Count(page, "<a "); n != 1 {
		t.Errorf("%d links, want only the report's:\n%s", n, page)
	}
	if n := strings.Count(page, "<h4"); n != 1 || strings.Count(page, "<h") != 1 {
		t.Errorf("want one heading, the evidence's:\n%s", page)
	}
	for _, table := range strings.Split(page, "<table>")[1:] {
		table = table[:strings.Index(table, "</table>")]
		head := table[:strings.Index(table, "</tr>")]
		cols := strings.Count(head, "<th>") + strings.Count(head, "<th ")
		for _, row := range strings.Split(table, "</tr>")[1:] {
			if cells := strings.Count(row, "<td"); cells != 0 && cells != cols {
				t.Errorf("a row of %d cells in a table of %d columns:\n%s", cells, cols, row)
			}
		}
	}
	if n := strings.Count(page, "<strong>"); n != 2 || !strings.Contains(page, "v1 **bold**") {
		t.Errorf("a value's emphasis was rendered:\n%s", page)
	}
	for _, code := range []string{"<code>lab`el | x</code>", "<code>lost(a) &gt; 0 `| &lt;script&gt;</code>", "<code>b`=``x``</code>", "<code>p=` | injected | cell |</code>"} {
		if !strings.Contains(page, code) {
			t.Errorf("rendered Markdown lacks %s:\n%s", code, page)
		}
	}
}

// TestMarkdownBidiAndLink: a bidi override in a value is shown as its code
// point, and a line break in the report's link target cannot end the line
// and forge a verdict of its own.
func TestMarkdownBidiAndLink(t *testing.T) {
	b := hostileBlock()
	b.Title = "gpj.\u202eexe"
	b.Report = "x\n\n**Verdict:** expectations held in 1 of 1 runs\n/index.html"
	var md bytes.Buffer
	if err := b.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	if strings.ContainsRune(out, '\u202e') || !strings.Contains(out, `gpj.\[U+202E\]exe`) {
		t.Errorf("the bidi override is not shown as its code point:\n%s", out)
	}
	if n := strings.Count(out, "**Verdict:**"); n != 1 {
		t.Errorf("%d verdict lines, want kafkabook's one:\n%s", n, out)
	}
	if !strings.Contains(out, "(x%0A%0A%2A%2AVerdict:%2A%2A%20expectations%20held%20in%201%20of%201%20runs%0A/index.html)") {
		t.Errorf("the link target is not percent-encoded:\n%s", out)
	}
}
