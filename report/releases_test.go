package report

import (
	"slices"
	"testing"
)

// TestComparisonPairs checks that a comparison page compares one thing:
// consecutive releases of one client, or the clients of one release.
func TestComparisonPairs(t *testing.T) {
	var newest []siteRun
	for _, v := range []string{"4.2.0", "4.3.1", "4.3.1-java", "4.3.1-librdkafka-2.15.1", "4.4.0", "4.4.0-java"} {
		newest = append(newest, siteRun{Version: v})
	}
	var got []string
	for _, p := range comparisonPairs(newest) {
		got = append(got, p[0].Version+" → "+p[1].Version)
	}
	want := []string{
		"4.2.0 → 4.3.1", "4.3.1 → 4.4.0", "4.3.1-java → 4.4.0-java",
		"4.3.1 → 4.3.1-java", "4.3.1-java → 4.3.1-librdkafka-2.15.1", "4.4.0 → 4.4.0-java",
	}
	if !slices.Equal(got, want) {
		t.Errorf("comparisonPairs =\n%q\nwant\n%q", got, want)
	}
}
