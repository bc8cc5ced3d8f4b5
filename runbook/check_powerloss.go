package runbook

// checkPowerloss refuses a power loss that the machine (as the caller's
// Capabilities say) or the backend the runbook asks for cannot inject
// truthfully: it needs the local backend, root and FUSE, and is never
// stood in for by a plain kill. The nodes it takes down stay down until a
// start, as after kill.
func checkPowerloss(c *checker, st *Step, topic string, tp Pos) {
	var msg string
	switch {
	case c.d.Meta.Backend == "docker":
		msg = "powerloss needs the local backend (backend: docker cannot drop a container's unsynced writes)"
	case c.d.Meta.Backend == "kubernetes":
		msg = "powerloss needs the local backend (backend: kubernetes cannot drop a pod's unsynced writes)"
	case c.caps.PowerLossMissing != "":
		msg = "powerloss needs a FUSE file system under each node's data, and this machine lacks " + c.caps.PowerLossMissing +
			"; kafkabook does not fake a power loss with something weaker"
	}
	if msg != "" && !c.said(msg) {
		c.errorf(st.Pos, "%s", msg)
	}
	for _, a := range st.Args {
		if t := a.Target(); t.Node != "" {
			c.down[t.Node] = *st
		}
	}
}

// said reports whether the checker already reported msg, so that a
// machine's shortcoming is told once, at the first step it stops.
func (c *checker) said(msg string) bool {
	for _, e := range c.errs {
		if e.Msg == msg {
			return true
		}
	}
	return false
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
