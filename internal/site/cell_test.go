package site

import "testing"

// TestCellID: a cell id reads back as what made it, for release names with
// dots and dashes, runbook names with dots, and with a client; anything
// else is refused.
func TestCellID(t *testing.T) {
	for _, c := range []struct {
		runbook, client, kafka string
		repeat                 int
		id                     string
	}{
		{"producer-acks", "", "4.3.1", 1, "producer-acks.kafka-4.3.1.r1"},
		{"a.b", "", "4.0.0-rc1", 12, "a.b.kafka-4.0.0-rc1.r12"},
		{"producer-acks", "java", "4.4.0", 3, "producer-acks.java.kafka-4.4.0.r3"},
	} {
		id := CellID(c.runbook, c.client, c.kafka, c.repeat)
		if id != c.id {
			t.Errorf("cellID = %q, want %q", id, c.id)
		}
		prefix, kafka, repeat, err := ParseCellID(id)
		want := c.runbook
		if c.client != "" {
			want += "." + c.client
		}
		if err != nil || prefix != want || kafka != c.kafka || repeat != c.repeat {
			t.Errorf("ParseCellID(%q) = %q %q %d %v", id, prefix, kafka, repeat, err)
		}
	}
	for _, bad := range []string{"", "x", "x.kafka-4.3.1", "x.kafka-4.3.1.r", "x.kafka-4.3.1.r0", "x.kafka-4.3.1.r01", "x.kafka-.r1", "kafka-4.3.1.r1", ".kafka-4.3.1.r1", "x.kafka-4.3.1.r1x"} {
		if _, _, _, err := ParseCellID(bad); err == nil {
			t.Errorf("ParseCellID(%q) took it", bad)
		}
	}
}

// TestPlanAdd: a plan lists release, then client, then repeat; a
// release or client given twice makes one cell; franz-go's cells have no
// client.
func TestPlanAdd(t *testing.T) {
	p := NewPlan("b1")
	p.Add("x/acks.md", "acks", []string{"4.3.1", "4.0.0", "4.3.1"}, []string{"franz-go", "java", "java"}, 2)
	var ids []string
	for _, c := range p.Include {
		ids = append(ids, c.ID)
		if c.Batch != "b1" || c.Runbook != "x/acks.md" {
			t.Errorf("cell %+v: want batch b1 and the runbook's path", c)
		}
	}
	want := []string{"acks.kafka-4.3.1.r1", "acks.kafka-4.3.1.r2", "acks.java.kafka-4.3.1.r1", "acks.java.kafka-4.3.1.r2",
		"acks.kafka-4.0.0.r1", "acks.kafka-4.0.0.r2", "acks.java.kafka-4.0.0.r1", "acks.java.kafka-4.0.0.r2"}
	if len(ids) != len(want) {
		t.Fatalf("cells %q, want %q", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Errorf("cell %d is %s, want %s", i, ids[i], want[i])
		}
	}
}

// TestNameProblem: the names a runbook's directory may not have.
func TestNameProblem(t *testing.T) {
	for _, bad := range []string{"", ".x", "..", "a/b", `a\b`, "a\nb", "assets", "index.html", "latest", "summary.json", "comparisons.json"} {
		if NameProblem(bad) == "" {
			t.Errorf("NameProblem(%q) took it", bad)
		}
	}
	for _, ok := range []string{"producer-acks", "a.b", "x_1"} {
		if why := NameProblem(ok); why != "" {
			t.Errorf("NameProblem(%q): %s", ok, why)
		}
	}
}
