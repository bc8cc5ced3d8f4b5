package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kafkabook/kafkabook/runbook"
	"github.com/spf13/cobra"
)

// helpCmd replaces cobra's help command so that help answers where a user
// looks: `kafkabook help run` shows a command's help, `kafkabook help
// produce` (or `help wait leader`) prints that directive's section of the
// runbook language reference, generated from the directive registry as
// docs/runbook-language.md is. An unknown name is a usage error with a
// suggestion.
func helpCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND | DIRECTIVE]",
		Short: "Help about a command, or a runbook directive (kafkabook help produce)",
		Long: `Help shows a command's help (kafkabook help run, kafkabook help cluster up),
or the reference of a runbook directive, as docs/runbook-language.md gives
it (kafkabook help produce, kafkabook help wait leader).`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return root.Help()
			}
			if cmd, rest, err := root.Find(args); err == nil && cmd != root && len(rest) == 0 {
				return cmd.Help()
			}
			name := strings.Join(args, " ")
			if sec, ok := directiveReference(name); ok {
				fmt.Fprint(c.OutOrStdout(), sec)
				return nil
			}
			var names []string
			for _, d := range runbook.Directives {
				names = append(names, d.Name)
			}
			for _, sub := range root.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			hint := ""
			if s := runbook.Suggest(name, names); s != "" {
				hint = fmt.Sprintf("; did you mean %q?", s)
			}
			return usageErr("help %s: no such command or runbook directive%s (commands: `kafkabook --help`; directives: kafkabook help DIRECTIVE, as in docs/runbook-language.md)", name, hint)
		},
	}
}

// directiveReference is the section of the language reference about the
// directive called name, from its heading to the next heading, or false
// when no directive has that name.
func directiveReference(name string) (string, bool) {
	if runbook.Lookup(name) == nil {
		return "", false
	}
	ref := runbook.Reference()
	head := []byte("\n### " + name + "\n")
	i := bytes.Index(ref, head)
	if i < 0 {
		return "", false
	}
	sec := ref[i+1:]
	if j := bytes.Index(sec[len(head)-1:], []byte("\n#")); j >= 0 {
		sec = sec[:len(head)-1+j+1]
	}
	return string(bytes.TrimRight(sec, "\n")) + "\n", true
}
