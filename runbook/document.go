package runbook

import (
	"fmt"
	"slices"
	"strings"
)

// Doc is a parsed and checked runbook.
type Doc struct {
	Path   string
	Source []byte
	Meta   Meta
	Blocks []Block // the whole file in order; steps expanded for run 1
	// Warnings are problems that do not stop the runbook from running but
	// will make it fail (a wait for health while a node is still down),
	// shown like errors, with a caret.
	Warnings ErrorList
	// Combination is the sweep's combination this Doc runs with; nil
	// without a sweep.
	Combination Combination

	usesRun bool // some step refers to ${run}
}

// ShellBlocks returns the sh blocks of d in file order. They run only when
// the user allows shell blocks, so check tells the user they are there.
func (d *Doc) ShellBlocks() []Block {
	var out []Block
	for _, b := range d.Blocks {
		if b.Kind == Shell {
			out = append(out, b)
		}
	}
	return out
}

// Expand returns the blocks of d with ${run} expanded for the given run
// (1-based). Parameters were already expanded by Load. The steps of runs
// 1..Meta.Repeat were validated by Load, so for those runs Expand does not
// fail.
func (d *Doc) Expand(run int) ([]Block, error) {
	if !d.usesRun || run == 1 {
		return d.Blocks, nil
	}
	c := newChecker(d, run)
	blocks := c.expandAll()
	if len(c.errs) > 0 {
		c.errs.sort()
		return blocks, c.errs
	}
	return blocks, nil
}

// Uses reports whether any step of the runbook is the directive op.
func (d *Doc) Uses(op Op) bool {
	for _, b := range d.Blocks {
		for _, s := range b.Steps {
			if s.Op == op {
				return true
			}
		}
	}
	return false
}

// NeedsLayer reports whether a step of the runbook needs the layer under
// each node's data (a directive with Layer: powerloss, disk).
func (d *Doc) NeedsLayer() bool {
	for _, b := range d.Blocks {
		for _, s := range b.Steps {
			if dir := Lookup(s.Name); dir != nil && dir.Layer {
				return true
			}
		}
	}
	return false
}

// NeedsClock reports whether a step of the runbook steps a broker's wall
// clock (a directive with Clock), which needs a cluster whose brokers run
// with libfaketime preloaded.
func (d *Doc) NeedsClock() bool {
	for _, b := range d.Blocks {
		for _, s := range b.Steps {
			if dir := Lookup(s.Name); dir != nil && dir.Clock {
				return true
			}
		}
	}
	return false
}

// Lacking checks each step that hurts the cluster against lacks (a
// backend's answer to what a step needs: FaultMissing's names) and
// returns the first step it refuses, with why, as a file:line error;
// nil when the cluster can run every step. A run asks it once its
// cluster's backend is known, before any step runs.
func (d *Doc) Lacking(lacks func(need string) string) error {
	for _, b := range d.Blocks {
		for _, s := range b.Steps {
			if s.dir == nil || !s.dir.Hurts {
				continue
			}
			for _, need := range s.needs() {
				if msg := lacks(need); msg != "" {
					return fmt.Errorf("%s: %s", s.Pos, msg)
				}
			}
		}
	}
	return nil
}

// Expectations are the runbook's expect lines as written, without the
// directive's name: "lost(t) == 0".
func (d *Doc) Expectations() []string {
	var out []string
	for _, b := range d.Blocks {
		for _, s := range b.Steps {
			if s.Op == OpExpect && s.Expr != nil {
				out = append(out, strings.TrimSpace(strings.TrimPrefix(s.Text, s.Name)))
			}
		}
	}
	return out
}

// Topics are the labels of the topics the runbook creates or produces
// to, each once, in the order they first appear.
func (d *Doc) Topics() []string {
	var out []string
	for _, b := range d.Blocks {
		for _, s := range b.Steps {
			if (s.Op == OpTopicCreate || s.Op == OpProduce) && len(s.Args) > 0 && !slices.Contains(out, s.Args[0].Text) {
				out = append(out, s.Args[0].Text)
			}
		}
	}
	return out
}
