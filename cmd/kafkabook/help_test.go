package main

import (
	"regexp"
	"testing"

	"github.com/kafkabook/kafkabook/runbook"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagValueNames: pflag takes the first `backticked` word of a usage as
// the flag's value name, so a command quoted that way mangles the help
// line (--image kafkabook image build). Every value name is a word in
// capitals or pflag's type name.
func TestFlagValueNames(t *testing.T) {
	ok := regexp.MustCompile(`^([A-Z][A-Z_]*|string|strings|stringArray|int|float|duration|)$`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check := func(f *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(f); !ok.MatchString(name) {
				t.Errorf("%s --%s: value name %q", c.CommandPath(), f.Name, name)
			}
		}
		c.LocalFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(rootCmd())
}

// TestDirectiveReference: help DIRECTIVE is, for every directive, its
// section of the generated reference, heading and usage line first.
func TestDirectiveReference(t *testing.T) {
	for _, d := range runbook.Directives {
		sec, ok := directiveReference(d.Name)
		if !ok {
			t.Errorf("%s: no section", d.Name)
			continue
		}
		if want := "### " + d.Name + "\n\n```\n" + d.Usage + "\n```\n"; len(sec) < len(want) || sec[:len(want)] != want {
			t.Errorf("%s: section starts %q, want %q", d.Name, sec[:min(len(sec), 80)], want)
		}
		if regexp.MustCompile(`\n#`).MatchString(sec) {
			t.Errorf("%s: section runs into the next heading:\n%s", d.Name, sec)
		}
	}
	if _, ok := directiveReference("nosuch"); ok {
		t.Error("a section for nosuch")
	}
}
