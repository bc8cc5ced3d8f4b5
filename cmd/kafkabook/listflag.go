package main

import (
	"fmt"
	"strings"

	"github.com/kafkabook/kafkabook/internal/safetext"
)

// listFlag is a comma-separated list flag (--kafka, --client), repeatable.
// pflag's string slices read their value as CSV, which ends a record at a
// line break and drops the rest silently; a value holding a control
// character is refused here instead, whole.
type listFlag struct{ values *[]string }

func (l listFlag) String() string { return strings.Join(*l.values, ",") }

func (l listFlag) Type() string { return "strings" }

func (l listFlag) Set(v string) error {
	if !safetext.IsLine(v) {
		return fmt.Errorf("%q holds a line break or another control character", v)
	}
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l.values = append(*l.values, part)
		}
	}
	return nil
}
