package results

import (
	"slices"
	"testing"
)

// TestCheckEOS: on a constructed pair of reads the check finds each
// input once, the duplicated ones with every copy's offset, the missing
// ones with the input's offset, and strays; sentinels count on neither
// side.
func TestCheckEOS(t *testing.T) {
	in := RecordsOf([]Record{
		{ID: "m-001", Partition: 0, Offset: 0}, {ID: "m-002", Partition: 0, Offset: 1},
		{ID: "m-003", Partition: 1, Offset: 0}, {ID: "m-004", Partition: 1, Offset: 1},
		{ID: "m-002", Partition: 0, Offset: 2}, // a producer's retry: one input
		{ID: "sentinel-x", Partition: 0, Offset: 3},
	})
	out := RecordsOf([]Record{
		{ID: "m-001", Partition: 0, Offset: 0}, {ID: "m-002", Partition: 0, Offset: 1},
		{ID: "m-002", Partition: 1, Offset: 4}, {ID: "m-004", Partition: 0, Offset: 2},
		{ID: "m-099", Partition: 0, Offset: 3},
	})
	c := CheckEOS(EOSRead{Name: "in", Records: in}, EOSRead{Name: "out", Records: out}, true)
	if c.Inputs != 4 || c.Outputs != 5 || c.Once != 2 {
		t.Errorf("inputs %d outputs %d once %d, want 4, 5, 2", c.Inputs, c.Outputs, c.Once)
	}
	if got := c.DuplicateIDs(); !slices.Equal(got, []string{"m-002"}) {
		t.Fatalf("duplicates %v, want m-002", got)
	}
	if d := c.Duplicates[0]; d.Partition != 0 || d.Offset != 1 || !slices.Equal(d.Out, []EOSCopy{{"m-002", 0, 1}, {"m-002", 1, 4}}) {
		t.Errorf("duplicate proof %+v, want input 0@1 and copies 0@1, 1@4", d)
	}
	if !slices.Equal(c.Missing, []EOSMissing{{ID: "m-003", Partition: 1, Offset: 0}}) {
		t.Errorf("missing %+v, want m-003 at 1@0", c.Missing)
	}
	if !slices.Equal(c.Strays, []EOSCopy{{"m-099", 0, 3}}) {
		t.Errorf("strays %+v, want m-099", c.Strays)
	}
	clean := CheckEOS(EOSRead{Records: in}, EOSRead{Records: RecordsOf([]Record{{ID: "m-004"}, {ID: "m-003"}, {ID: "m-002"}, {ID: "m-001"}})}, true)
	if clean.Once != 4 || len(clean.Duplicates)+len(clean.Missing)+len(clean.Strays) != 0 {
		t.Errorf("a correct output: %+v, want every input once and no finding", clean)
	}
}
