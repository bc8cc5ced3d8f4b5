package runbook

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func loadFile(t *testing.T, path string, ov Overrides) *Doc {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(path, src, ov)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return d
}

// TestLoadAcks checks the acks experiment (examples/producer-acks.md) parses with the
// exact positions, parameters and flags the engine will rely on.
func TestLoadAcks(t *testing.T) {
	const path = "testdata/acks.md"
	d := loadFile(t, path, Overrides{})

	wantMeta := Meta{
		Title:  "Does acks=1 lose acknowledged messages?",
		Kafka:  []string{"4.3.1"},
		Nodes:  3,
		Broker: map[string]string{"replica.lag.time.max.ms": "3000"},
		Repeat: 4,
		Params: map[string]string{"count": "10"},
		Client: []string{DefaultClient},
	}
	if !reflect.DeepEqual(d.Meta, wantMeta) {
		t.Errorf("Meta = %+v\nwant %+v", d.Meta, wantMeta)
	}

	var kinds []BlockKind
	var steps []Step
	for _, b := range d.Blocks {
		kinds = append(kinds, b.Kind)
		steps = append(steps, b.Steps...)
	}
	if want := []BlockKind{Prose, Kafka, Prose, Kafka, Shell}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("block kinds = %v, want %v", kinds, want)
	}
	if got := d.Blocks[0]; got.Pos.Line != 11 || !strings.HasPrefix(got.Text, "# acks=1 versus acks=all\n") {
		t.Errorf("first prose block at %v: %q", got.Pos, got.Text)
	}
	if got := d.Blocks[1]; got.Pos.String() != path+":15:1" || got.Info != "kafka" || len(got.Steps) != 10 {
		t.Errorf("first kafka block at %v, info %q, %d steps", got.Pos, got.Info, len(got.Steps))
	}
	if sh := d.ShellBlocks(); len(sh) != 1 || sh[0].Text != "echo run ${run}\n" || sh[0].Pos.Line != 47 {
		t.Errorf("ShellBlocks = %+v", sh)
	}

	type want struct {
		pos, name, text string
		args            []string
	}
	wants := []want{
		{"16:1", "topic create", "topic create acks1 --replicas 1:2:3", []string{"acks1"}},
		{"17:1", "produce", "produce acks1 --acks 1 --count ${count}", []string{"acks1"}},
		{"18:1", "isr", "isr acks1", []string{"acks1"}},
		{"19:1", "isolate", "isolate k2 k3", []string{"k2", "k3"}},
		{"20:1", "produce", "produce acks1 --acks 1 --from 11 --count ${count}", []string{"acks1"}},
		{"21:1", "kill", "kill k1", []string{"k1"}},
		{"22:1", "rejoin", "rejoin k2 k3", []string{"k2", "k3"}},
		{"23:1", "wait leader", "wait leader acks1 in k2,k3", []string{"acks1", "k2", "k3"}},
		{"24:1", "read", "read acks1 --via k2", []string{"acks1"}},
		{"25:1", "expect", "expect lost(acks1) > 0", nil},
		{"31:1", "start", "start k1", []string{"k1"}},
		{"32:1", "wait isr", "wait isr acks1 --size 3 --timeout=90s", []string{"acks1"}},
		{"33:1", "topic create", "topic create acksall --replicas 1:2:3 --config min.insync.replicas=1", []string{"acksall"}},
		{"34:1", "produce", "produce acksall --acks all --count 10", []string{"acksall"}},
		{"35:1", "isolate", "isolate k2 k3", []string{"k2", "k3"}},
		{"36:2", "produce", "produce acksall --acks all --from 11 --count 10 --timeout 60s &", []string{"acksall"}},
		{"37:1", "sleep", "sleep 5s", []string{"5s"}},
		{"38:1", "kill", "kill leader(acksall)", []string{"leader(acksall)"}},
		{"39:1", "rejoin", "rejoin k2 k3", []string{"k2", "k3"}},
		{"40:1", "wait producers", "wait producers", nil},
		{"41:1", "read", "read acksall --via k2", []string{"acksall"}},
		{"42:1", "expect", "expect lost(acksall) == 0", nil},
		{"43:1", "expect", "expect acked(acksall) == 2${count}", nil},
		{"44:1", "logs", `logs k1 --grep "Shrinking ISR"`, []string{"k1"}},
	}
	if len(steps) != len(wants) {
		t.Fatalf("%d steps, want %d", len(steps), len(wants))
	}
	for i, w := range wants {
		s := steps[i]
		var args []string
		for _, a := range s.Args {
			args = append(args, a.Text)
		}
		if s.Pos.String() != path+":"+w.pos || s.Name != w.name || s.Text != w.text || !reflect.DeepEqual(args, w.args) {
			t.Errorf("step %d = %v %q %q %q\nwant %s %q %q %q", i, s.Pos, s.Name, s.Text, args, w.pos, w.name, w.text, w.args)
		}
	}

	// Positions of arguments and flag values, parameters expanded.
	p := steps[1]
	if got := p.Flags["count"][0]; got.Text != "10" || got.Pos.Col != 32 {
		t.Errorf("--count ${count} = %+v, want 10 at column 32", got)
	}
	if p.flagInt("count") != 10 || p.flagStr("acks") != "1" || p.flagInt("from") != 1 || p.flagBool("idempotent") {
		t.Errorf("getters: count %d acks %q from %d idempotent %v", p.flagInt("count"), p.flagStr("acks"), p.flagInt("from"), p.flagBool("idempotent"))
	}
	if p.flagDuration("delivery-timeout") != 0 {
		t.Errorf("default produce delivery timeout = %v, want none (the client's own)", p.flagDuration("delivery-timeout"))
	}
	if a := steps[7].Args[2]; a.Pos.Col != 25 || a.Target() != (Target{Node: "k3"}) || a.Target().ID() != 3 {
		t.Errorf("wait leader node k3 = %+v target %+v", a, a.Target())
	}
	if got := steps[11].flagDuration("timeout"); got != 90*time.Second {
		t.Errorf("--timeout=90s = %v", got)
	}
	if got := steps[11].Flags["timeout"][0].Pos.Col; got != 35 {
		t.Errorf("--timeout=90s value at column %d, want 35", got)
	}
	if got := steps[12].flagKeyValues("config"); !reflect.DeepEqual(got, map[string]string{"min.insync.replicas": "1"}) {
		t.Errorf("--config = %v", got)
	}
	if got := steps[12].Action.(TopicCreate).Replicas; !reflect.DeepEqual(got, [][]int32{{1, 2, 3}}) {
		t.Errorf("--replicas = %v", got)
	}
	bg := steps[15]
	if !bg.Background || bg.flagDuration("timeout") != 60*time.Second || bg.flagInt("from") != 11 {
		t.Errorf("background produce = %+v", bg)
	}
	if got := steps[17].Args[0].Target(); got != (Target{Leader: "acksall"}) || got.String() != "leader(acksall)" {
		t.Errorf("leader(acksall) = %+v", got)
	}
	if got := steps[19].flagDuration("timeout"); got != 60*time.Second {
		t.Errorf("default wait timeout = %v", got)
	}
	e := steps[9].Expr
	if e == nil || e.Func != "lost" || e.Topic != "acks1" || e.Op != ">" || e.Want != 0 || e.Pos.Col != 8 {
		t.Fatalf("expect = %+v", e)
	}
	if !e.Holds(10) || e.Holds(0) {
		t.Errorf("lost(acks1) > 0: Holds(10) %v Holds(0) %v", e.Holds(10), e.Holds(0))
	}
	if e := steps[22].Expr; e.Value != "210" || e.Want != 210 || e.String() != "acked(acksall) == 210" {
		t.Errorf("expect with ${count} = %+v", e)
	}
	if got := steps[23].Flags["grep"][0]; got.Text != "Shrinking ISR" || got.Pos.Col != 17 {
		t.Errorf("--grep = %+v", got)
	}
}

func TestOverrides(t *testing.T) {
	d := loadFile(t, "testdata/acks.md", Overrides{
		Params: map[string]string{"count": "20"},
		Repeat: 2,
		Kafka:  []string{"4.2.0", "4.3.1"},
		Nodes:  5,
	})
	if d.Meta.Repeat != 2 || d.Meta.Nodes != 5 || !reflect.DeepEqual(d.Meta.Kafka, []string{"4.2.0", "4.3.1"}) || d.Meta.Params["count"] != "20" {
		t.Errorf("Meta = %+v", d.Meta)
	}
	if got := d.Blocks[1].Steps[1].Action.(Produce).Count; got != 20 {
		t.Errorf("count = %d, want 20", got)
	}

	src, _ := os.ReadFile("testdata/acks.md")
	_, err := Load("acks.md", src, Overrides{Params: map[string]string{"cuont": "1", "run": "2"}, Repeat: -1, Kafka: []string{"latest"}})
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("err = %v", err)
	}
	want := `acks.md: --kafka latest: bad version: want a release like 4.3.1
acks.md: --repeat -1: must be positive
acks.md: -p cuont=...: the runbook has no parameter "cuont" (did you mean "count"?)
acks.md: -p run=...: ${run} is the run number and cannot be set`
	if err.Error() != want {
		t.Errorf("errors:\n%s\nwant:\n%s", err, want)
	}
}

func TestRunExpansion(t *testing.T) {
	src := []byte("---\nrepeat: 3\nparams: {n: 5}\n---\n```kafka\ntopic create t-${run}\nproduce t-${run} --acks 1 --from ${run}${n} --count ${n}\n```\n")
	d, err := Load("r.md", src, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 3; run++ {
		blocks, err := d.Expand(run)
		if err != nil {
			t.Fatal(err)
		}
		s := blocks[0].Steps[1]
		topic := "t-" + string(rune('0'+run))
		p := s.Action.(Produce)
		if s.Args[0].Text != topic || p.Topic != topic || p.From != run*10+5 || p.Count != 5 || p.Properties["acks"] != "1" {
			t.Errorf("run %d: %q %+v", run, s.Args[0].Text, p)
		}
		if s.Text != "produce t-${run} --acks 1 --from ${run}${n} --count ${n}" {
			t.Errorf("run %d: Text %q", run, s.Text)
		}
		if c := s.Flags["from"][0].Pos.Col; c != 34 {
			t.Errorf("run %d: --from value at column %d, want 34", run, c)
		}
	}
	if d.Blocks[0].Steps[0].Args[0].Text != "t-1" {
		t.Errorf("Blocks hold run 1: %q", d.Blocks[0].Steps[0].Args[0].Text)
	}
}

func TestProseOnly(t *testing.T) {
	for _, src := range []string{"", "\n", "# Title\n\nText.\n", "---\n---\n", "---\ntitle: x\n---\nbody"} {
		d, err := Load("p.md", []byte(src), Overrides{})
		if err != nil {
			t.Errorf("Load(%q): %v", src, err)
			continue
		}
		if d.Meta.Nodes != 3 || d.Meta.Repeat != 1 || !reflect.DeepEqual(d.Meta.Kafka, []string{DefaultKafka}) {
			t.Errorf("Load(%q): defaults %+v", src, d.Meta)
		}
	}
	d := loadFile(t, "testdata/check/prose-only.md", Overrides{})
	if d.Meta.Title != "Notes" || len(d.Blocks) != 2 || d.Blocks[1].Kind != Code || d.Blocks[1].Info != "go" {
		t.Errorf("prose-only: %+v", d)
	}
	d, _ = Load("h.md", []byte("# Heading title\n"), Overrides{})
	if d.Meta.Title != "Heading title" {
		t.Errorf("title from heading = %q", d.Meta.Title)
	}
}

func TestLexer(t *testing.T) {
	for _, tc := range []struct {
		line string
		toks []string
		bg   bool
		text string
	}{
		{"  produce t --acks 1 & # bg", []string{"produce", "t", "--acks", "1"}, true, "produce t --acks 1 &"},
		{"produce t&", []string{"produce", "t"}, true, "produce t&"},
		{`logs k1 --grep "a \"b\" #c" 'x y'`, []string{"logs", "k1", "--grep", `a "b" #c`, "x y"}, false, `logs k1 --grep "a \"b\" #c" 'x y'`},
		{"a#b # comment", []string{"a#b"}, false, "a#b"},
		{"# only a comment", nil, false, ""},
		{"x && y", []string{"x", "&&", "y"}, false, "x && y"},
	} {
		lx, errs := lexLine("f", 1, tc.line)
		if len(errs) > 0 {
			t.Errorf("lex %q: %v", tc.line, errs)
		}
		var toks []string
		for _, tk := range lx.toks {
			s, _ := tk.expand(func(string) (string, bool) { return "", false })
			toks = append(toks, s)
		}
		text := ""
		if lx.start >= 0 && lx.end >= lx.start {
			text = tc.line[lx.start:lx.end]
		}
		if !reflect.DeepEqual(toks, tc.toks) || lx.background != tc.bg || text != tc.text {
			t.Errorf("lex %q = %q bg %v text %q; want %q bg %v text %q", tc.line, toks, lx.background, text, tc.toks, tc.bg, tc.text)
		}
	}
}

func TestErrorCaret(t *testing.T) {
	e := &Error{Pos: Pos{"f.md", 3, 4}, Msg: "boom", Line: "\t\tab\tcd"}
	want := "    ab\tcd\n     ^\n"
	if got := e.Caret(); got != want {
		t.Errorf("Caret = %q, want %q", got, want)
	}
	e = &Error{Pos: Pos{"f.md", 1, 7}, Msg: "x", Line: "é\té x"}
	if got := e.Caret(); got != "    é\té x\n     \t  ^\n" {
		t.Errorf("Caret with UTF-8 = %q", got)
	}
}

func TestSuggest(t *testing.T) {
	for _, tc := range [][3]string{
		{"prodce", "produce", ""},
		{"isolat", "isolate", ""},
		{"zzz", "", ""},
		{"--acs", "--acks", ""},
		{"reed", "read", ""},
	} {
		got := suggest(tc[0], []string{"produce", "isolate", "read", "--acks", "rejoin"})
		if got != tc[1] {
			t.Errorf("suggest(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
}

// A wait for health while a node the runbook killed is still down can only
// time out: Load warns, naming the node and the line that took it down.
func TestWarnKilledNodeBeforeWaitHealthy(t *testing.T) {
	src := "```kafka\ntopic create t\nkill k1\nstop k2\nstart k2\nwait healthy\n```\n"
	d, err := Load("w.md", []byte(src), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	want := `w.md:6:1: k1 is down ("kill k1" on line 3) and nothing starts it again: this wait will time out; add "start k1" before it` + "\n    wait healthy\n    ^\n"
	if len(d.Warnings) != 1 || d.Warnings[0].Error()+"\n"+d.Warnings[0].Caret() != want {
		t.Errorf("warnings:\n%v\nwant:\n%s", d.Warnings, want)
	}
}

// TestSweep: a sweep's combinations vary the first parameter slowest, each
// loads as -p would set it and names its evidence after it; the first
// loads without one, and -p cannot set a swept parameter.
func TestSweep(t *testing.T) {
	src := []byte("---\nparams:\n  acks: all\n  mis: 2\nsweep:\n  acks: [1, all]\n  mis: [1, 2]\n---\n```kafka\ntopic create t --replicas 1:2:3 --config min.insync.replicas=${mis}\nproduce t -X acks=${acks} --count 3\n```\n")
	d, err := Load("dir/s.md", src, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	combos := Combinations(d.Meta.Sweep)
	var names []string
	for _, c := range combos {
		names = append(names, c.Name())
	}
	if want := []string{"acks-1.mis-1", "acks-1.mis-2", "acks-all.mis-1", "acks-all.mis-2"}; !reflect.DeepEqual(names, want) {
		t.Errorf("combinations %q, want %q", names, want)
	}
	if d.Name() != "s.acks-1.mis-1" || d.SweepName() != "s" || d.Meta.Params["acks"] != "1" {
		t.Errorf("without a combination: name %q, sweep %q, params %v; want the first", d.Name(), d.SweepName(), d.Meta.Params)
	}
	d, err = Load("dir/s.md", src, Overrides{Sweep: combos[2]})
	if err != nil {
		t.Fatal(err)
	}
	var produce Produce
	for _, b := range d.Blocks {
		for _, st := range b.Steps {
			if p, ok := st.Action.(Produce); ok {
				produce = p
			}
		}
	}
	if d.Name() != "s.acks-all.mis-1" || produce.Properties["acks"] != "all" || d.Combination.String() != "acks=all mis=1" {
		t.Errorf("combination 3: name %q, acks %q, %q", d.Name(), produce.Properties["acks"], d.Combination)
	}
	if _, err := Load("s.md", src, Overrides{Params: map[string]string{"acks": "1"}}); err == nil || !strings.Contains(err.Error(), "-p acks=...: acks is swept") {
		t.Errorf("-p on a swept parameter: %v", err)
	}
	plain, err := Load("p.md", []byte("```kafka\ntopic create t\n```\n"), Overrides{})
	if err != nil || plain.Name() != "p" || plain.SweepName() != "" || Combinations(plain.Meta.Sweep) != nil {
		t.Errorf("no sweep: %v, name %q", err, plain.Name())
	}
}
