package runbook

import (
	"strings"
	"testing"
)

// TestTransformClient: a transform runs on franz-go or java, by its own
// --client or the run's; any other client is refused at the client.
func TestTransformClient(t *testing.T) {
	for _, c := range []struct {
		line, run, refused string
	}{
		{"transform in --to out --group g --eos --client java &", "", ""},
		{"transform in --to out --group g --eos &", "java@4.3.1", ""},
		{"transform in --to out --group g --eos --client franz-go &", "librdkafka", ""},
		{"transform in --to out --group g --eos --client librdkafka &", "", "transform runs through librdkafka"},
		{"transform in --to out --group g --client spring &", "", "transform runs through spring"},
		{"transform in --to out --group g &", "librdkafka@2.15.1", "transform runs through librdkafka"},
	} {
		src := "```kafka\ntopic create in --replication-factor 1\ntopic create out --replication-factor 1\n" + c.line + "\n```\n"
		var o Overrides
		if c.run != "" {
			o.Client = []string{c.run}
		}
		d, err := Load("t.md", []byte(src), o)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s (run client %q): %v", c.line, c.run, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s (run client %q): error %v, want %q", c.line, c.run, err, c.refused)
		case c.refused == "" && strings.HasSuffix(c.line, "--client java &"):
			if a := d.Blocks[0].Steps[2].Action.(Transform); a.Client != "java" {
				t.Errorf("%s: client %q", c.line, a.Client)
			}
		}
	}
}
