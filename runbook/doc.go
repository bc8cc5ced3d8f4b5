// Package runbook turns a Markdown runbook into a Doc: its front matter, its
// prose kept as written, and its kafka step blocks parsed into steps that each
// remember the file:line:col they came from, so that every message about a
// step, at check time or at run time, can point at the line the user wrote.
//
// Load parses and validates a runbook in one go and reports every problem it
// finds at once as an ErrorList. The directive registry (Directives) is the
// single description of the step language: the parser checks steps against
// it, each entry builds its step's typed Action (Produce, Fault, Consume,
// ...), which is all the engine reads of a step, and the reference
// docs/runbook-language.md is generated from it.
// Block.HTML renders a block for a report page, so that this package is
// the only one that parses Markdown.
//
// The package never touches a cluster; it is the only user of goldmark's
// parser in kafkabook.
package runbook
