package results

import (
	"slices"
	"testing"
)

func TestIDSets(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		back string
	}{
		{"{}", []string{}, "{}"},
		{"{m-004..m-006}", []string{"m-004", "m-005", "m-006"}, "{m-004..m-006}"},
		{"{m-010, m-001,liked-2}", []string{"liked-2", "m-001", "m-010"}, "{liked-2, m-001, m-010}"},
		{"{m-099..m-101, m-100}", []string{"m-099", "m-100", "m-101"}, "{m-099..m-101}"},
		{"{m-001, m-002}", []string{"m-001", "m-002"}, "{m-001, m-002}"},
	} {
		got, err := ParseIDSet(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseIDSet(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		if s := FormatIDSet(got); s != tc.back {
			t.Errorf("FormatIDSet(%v) = %q, want %q", got, s, tc.back)
		}
	}
	for _, bad := range []string{"m-001", "{m-001", "{m-005..m-001}", "{x..m-002}", "{m-001,,m-002}"} {
		if _, err := ParseIDSet(bad); err == nil {
			t.Errorf("ParseIDSet(%q) accepted", bad)
		}
	}
}
