package runbook

// expect: an assertion on the run (the expression language is expr.go's).

const OpExpect Op = "expect"

// Expect asserts something about the run: expect EXPR.
type Expect struct{ Expr *Expr }

func (Expect) action() {}

var expectDirective = &Directive{
	Op:      OpExpect,
	build:   buildExpect,
	check:   checkExpect,
	Name:    "expect",
	Summary: "Assert something about a topic, checked in every run; a failed expectation fails the run.",
	Args:    []ArgSpec{{Name: "EXPR", Kind: KindExpr, Many: true}},
	Example: `expect eos_duplicates(x) == 0
expect lost(t) == 0`,
}

func buildExpect(st *Step) Action { return Expect{Expr: st.Expr} }

// checkExpect: every function of an expectation speaks of messages the
// run produced, or of a consumer group the run started; the final read
// after the run settles what became of them.
func checkExpect(c *checker, st *Step, topic string, tp Pos) {
	e := st.Expr
	if e == nil {
		return
	}
	if e.IsGroup() {
		c.useGroup(e.Topic, e.topicPos)
		return
	}
	if !c.useTopic(e.Topic, e.topicPos) {
		return
	}
	if !c.produced[e.Topic] {
		c.errorf(e.Pos, "%s(%s) needs a \"produce %s\" before it", e.Func, e.Topic, e.Topic)
	}
}
