package runbook

import (
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLoadBounded: on pathological runbooks up to the size limit, Load
// allocates a bounded amount in all, returns quickly, and its message
// shows at most MaxShown errors with lines cut to maxEcho columns. The
// first is the input that drove check out of memory in 12 s (issue 23):
// 20,000 repeated flags on one 180 KB line.
func TestLoadBounded(t *testing.T) {
	inputs := map[string]string{
		"20000 flags on one line":    "```kafka\nproduce t" + strings.Repeat(" --count", 20000) + "\n```\n",
		"unknown flags in every run": "---\nrepeat: 1000\nparams: {a: 1}\n---\n```kafka\n" + strings.Repeat("produce t${run}"+strings.Repeat(" --x", 1015)+"\n", 62) + "```\n",
		"repeated flags":             "```kafka\n" + strings.Repeat("produce t"+strings.Repeat(" --count", 450)+"\n", 70) + "```\n",
		"unclosed quotes":            "```kafka\n" + strings.Repeat("x"+strings.Repeat(" \"", 2000)+"\n", 62) + "```\n",
		"bad references":             "```kafka\n" + strings.Repeat("x ${}\n", 40000) + "```\n",
		"nested blocks":              strings.Repeat("- ```kafka\n", 20000),
	}
	const maxAlloc = 150 << 20
	for name, src := range inputs {
		if len(src) > MaxRunbookBytes {
			t.Fatalf("%s: %d bytes, over the limit it means to test under", name, len(src))
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		_, err := Load("big.md", []byte(src), Overrides{})
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes in, %v, %d MB allocated, %d bytes of message", name, len(src), elapsed, alloc>>20, len(msg))
		if alloc > maxAlloc {
			t.Errorf("%s: Load allocated %d MB, want at most %d", name, alloc>>20, maxAlloc>>20)
		}
		if elapsed > 10*time.Second {
			t.Errorf("%s: Load took %v", name, elapsed)
		}
		if n := strings.Count(msg, "\nbig.md:") + 1; msg != "" && n > MaxShown {
			t.Errorf("%s: %d errors shown, want at most %d", name, n, MaxShown)
		}
		for _, line := range strings.Split(msg, "\n") {
			if strings.HasPrefix(line, "    ") && len([]rune(line)) > 4+maxEcho+2 {
				t.Errorf("%s: echoed line of %d columns", name, len([]rune(line)))
				break
			}
		}
	}
}

// TestLoadTooLarge: a runbook over MaxRunbookBytes is refused before it is
// parsed.
func TestLoadTooLarge(t *testing.T) {
	src := strings.Repeat("prose\n", MaxRunbookBytes/6+1)
	_, err := Load("big.md", []byte(src), Overrides{})
	var list ErrorList
	if !errors.As(err, &list) || err.Error() != "big.md: the runbook is 257 KiB: a runbook is at most 256 KiB" {
		t.Errorf("Load of %d bytes: %v", len(src), err)
	}
}

// TestLimitOverrides: --nodes and --repeat have the front matter's limits.
func TestLimitOverrides(t *testing.T) {
	_, err := Load("o.md", []byte("```kafka\nsleep 1s\n```\n"), Overrides{Nodes: 10, Repeat: 1001, Kafka: []string{"3.0.0"}})
	for _, want := range []string{
		"o.md: --nodes 10 is too large: at most 9",
		"o.md: --repeat 1001 is too large: at most 1000",
		"o.md: --kafka 3.0.0: release 3.0.0 is not one kafkabook knows: use one of 4.0.0,",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("errors %v, want %q", err, want)
		}
	}
}

// TestCaret: control characters, invalid bytes and format characters are
// escaped, the caret stays under its column, and a long line is cut
// around it.
func TestCaret(t *testing.T) {
	cases := []struct {
		line string
		col  int
		want string
	}{
		{"\tkill k1", 7, "    kill k1\n         ^\n"},
		{"a\tb c", 5, "    a\tb c\n     \t  ^\n"},
		{"x\x1b[2J y", 8, "    x\\x1b[2J y\n              ^\n"},
		{"x\xff y", 4, "    x\\xff y\n          ^\n"},
		{"x \u202e y", 7, "    x \\u202e y\n             ^\n"},
		{"ab", 5, "    ab\n        ^\n"},
	}
	for _, c := range cases {
		e := &Error{Pos: Pos{"f", 1, c.col}, Line: c.line}
		if got := e.Caret(); got != c.want {
			t.Errorf("Caret(%q, col %d) =\n%q\nwant\n%q", c.line, c.col, got, c.want)
		}
	}
	long := strings.Repeat("a", 300) + "X" + strings.Repeat("b", 300)
	got := (&Error{Pos: Pos{"f", 1, 301}, Line: long}).Caret()
	lines := strings.Split(got, "\n")
	text, pad := []rune(lines[0]), []rune(lines[1])
	if len(text) != 4+maxEcho+2 || text[4] != '…' || text[len(pad)-1] != 'X' {
		t.Errorf("long line cut to %d columns, caret under %q:\n%s", len(text), string(text[len(pad)-1]), got)
	}
}

// TestNoMachineProbe: runbook checks against the Capabilities its caller
// passes and links nothing that probes the machine (issue 19 item 5).
func TestNoMachineProbe(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "go-fuse") || strings.HasSuffix(dep, "internal/powerfs") || strings.Contains(dep, "internal/cluster") {
			t.Errorf("runbook depends on %s", dep)
		}
	}
}
