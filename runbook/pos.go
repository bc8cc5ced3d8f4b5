package runbook

import "fmt"

// Pos is a place in a runbook file. Line and Col are 1-based; Col counts
// bytes of the file line, so indentation and tabs count as written. A Pos
// with Line 0 names the file (or the command line) as a whole.
type Pos struct {
	File      string
	Line, Col int
}

// String formats p as "file:line:col", the form editors jump to.
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}
