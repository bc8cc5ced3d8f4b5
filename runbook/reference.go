package runbook

import (
	"bytes"
	_ "embed"
	"strings"
	"text/template"
)

//go:embed reference.tmpl
var referenceTmpl string

var kindText = map[Kind]string{
	KindTopic:    "a topic name",
	KindTarget:   "`k1`..`kN`, `leader(TOPIC)` or `followers(TOPIC)`",
	KindNode:     "`k1`..`kN` or `leader(TOPIC)`",
	KindNodes:    "nodes `k1`..`kN` separated by commas",
	KindInt:      "a whole number, at most 10,000,000",
	KindDuration: "a duration, at most `24h`",
	KindAcks:     "`0`, `1` or `all`",
	KindRegex:    "a Go regular expression",
	KindReplicas: "broker ids like `1:2:3`",
	KindKeyValue: "`KEY=VALUE`",
	KindBool:     "none",
	KindExpr:     "`FUNC(TOPIC) OP VALUE`, see [Expectations](#expectations)",
	KindRate:     "messages per second like `500/s`, at most `10000000/s`",
	KindSide:     "nodes `k1`..`kN` with `|` between the two sides",
	KindPercent:  "a share of packets like `30%`",
	KindGroup:    "a consumer group name",
	KindWord:     "one of the words in the usage line",
	KindRetries:  "a whole number, or `max`",
	KindText:     "a word",
	KindClient:   "`franz-go`, `java[@VERSION]` or `librdkafka[@VERSION]`",
	KindProperty: "`NAME=VALUE`, a property by the client's own name",
}

// Reference returns the Markdown reference of the runbook language,
// generated from the directive registry, so that it cannot drift from what
// the parser accepts. docs/runbook-language.md is this text.
func Reference() []byte {
	t := template.Must(template.New("reference").Funcs(template.FuncMap{
		"kind":    func(k Kind) string { return kindText[k] },
		"anchor":  func(s string) string { return strings.ReplaceAll(s, " ", "-") },
		"keyword": func(k Kind) bool { return k == KindKeyword },
		"expr":    func(k Kind) bool { return k == KindExpr },
	}).Parse(referenceTmpl))
	var b bytes.Buffer
	err := t.Execute(&b, map[string]any{
		"DefaultKafka": DefaultKafka,
		"Directives":   Directives,
		"Funcs":        ExprFuncs,
		"Ops":          ExprOps,
	})
	if err != nil {
		panic(err)
	}
	return b.Bytes()
}
