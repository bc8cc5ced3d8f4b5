package typo

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"linger.ms", "linger.ms", 0},
		{"linger.msx", "linger.ms", 1},
		{"lingre.ms", "linger.ms", 1}, // a transposition is one edit
		{"acks", "", 4},
		{string(make([]byte, 65)), "x", 65}, // long names are no typos
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"produce", "read", "isr", "partition"}
	for word, want := range map[string]string{"prodce": "produce", "PRODUCE": "produce", "part": "partition", "xyzzy": "", "read": ""} {
		if got := Closest(word, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", word, got, want)
		}
	}
}
