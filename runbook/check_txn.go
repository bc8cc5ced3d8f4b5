package runbook

// checkProduceTxn checks a produce step, and what its transaction flags
// need: --txn-size and --abort-every mean nothing without --transactional,
// and a transactional producer is idempotent, so it needs --acks all and
// franz-go's fixed number of requests in flight.
func checkProduceTxn(c *checker, st *Step, topic string, tp Pos) {
	checkProduce(c, st, topic, tp)
	if !st.flagBool("transactional") {
		for _, f := range []string{"txn-size", "abort-every"} {
			if st.given(f) {
				c.errorf(st.flagPos(f), "--%s needs --transactional: it shapes the producer's transactions", f)
			}
		}
		return
	}
	c.positive(st, "txn-size")
	c.positive(st, "abort-every")
	if st.given("acks") && st.flagStr("acks") != "all" {
		c.errorf(st.flagPos("transactional"), "--transactional needs --acks all (a transactional producer is idempotent, and Kafka's idempotent producer requires it)")
	}
	if n, ok := st.givenInt("max-in-flight"); ok && n != 5 && !st.flagBool("idempotent") {
		c.errorf(st.flagPos("max-in-flight"), "--max-in-flight %d with --transactional: franz-go always keeps 5 produce requests in flight per broker with idempotence, which transactions need; leave --max-in-flight out", n)
	}
}
