package runbook

import (
	"maps"
	"slices"
	"strings"
)

// springProduces is check's word for a produce step that would run
// through spring.
const springProduces = "spring runs consumer group members only (Spring Kafka's listener container): produce through java, librdkafka or franz-go (--client java)"

// checkNotSpring refuses a produce step whose client is spring.
func checkNotSpring(c *checker, st *Step) {
	for _, cl := range c.stepClients(st) {
		if name, _, _ := ParseClient(cl); name == Spring {
			p := st.lineEnd()
			if st.given("client") {
				p = st.flagPos("client")
			}
			c.errorf(p, "%s", springProduces)
			return
		}
	}
}

// consumeProperties are a consume step's consumer properties: the front
// matter's consumer: map, then the step's -X values, the later winning.
func consumeProperties(st *Step, meta map[string]string) map[string]string {
	props := maps.Clone(meta)
	if props == nil {
		props = map[string]string{}
	}
	maps.Copy(props, st.flagKeyValues("property"))
	return props
}

// checkConsumeClient checks what a consume step asks of its client: the
// client exists, its -X names are the client's own consumer properties,
// and the step's settings are ones that client has (--commit greedy is
// franz-go's, --ack-mode Spring's, properties a driver's).
func checkConsumeClient(c *checker, st *Step) {
	if st.given("client") {
		if _, _, err := ParseClient(st.flagStr("client")); err != nil {
			c.errorf(st.flagPos("client"), "--client: %v", err)
			return
		}
	}
	clients := c.stepClients(st)
	commit := st.flagStr("commit")
	hasProps := len(st.Flags["property"]) > 0 || len(c.d.Meta.Consumer) > 0
	seen := map[string]bool{}
	for _, cl := range clients {
		name, _, err := ParseClient(cl)
		if err != nil || seen[name] {
			continue
		}
		seen[name] = true
		switch {
		case commit == "greedy" && name != FranzGo:
			c.errorf(st.flagPos("commit"), "--commit greedy runs through %s: greedy is franz-go's GreedyAutoCommit; java/spring/librdkafka: use --commit auto", name)
		case commit == "before" && name == Spring && st.given("ack-mode") && !strings.HasPrefix(st.flagStr("ack-mode"), "manual"):
			c.errorf(st.flagPos("ack-mode"), "--commit before with --ack-mode %s: the container commits after the listener returns; committing before handling is acknowledge() first, which needs --ack-mode manual_immediate (the default with --commit before) or manual", st.flagStr("ack-mode"))
		}
		if st.given("ack-mode") && name != Spring {
			c.errorf(st.flagPos("ack-mode"), "--ack-mode runs through %s: it is Spring Kafka's ContainerProperties.AckMode; give --client spring", name)
		}
		if st.given("ack-mode") && name == Spring && commit == "auto" {
			c.errorf(st.flagPos("ack-mode"), "--ack-mode with --commit auto: the container leaves committing to the client's auto-commit and ignores its AckMode; use --commit after")
		}
		if name == FranzGo && hasProps {
			p := st.lineEnd()
			if a := st.Flags["property"]; len(a) > 0 {
				p = a[0].Pos
			}
			c.errorf(p, "consumer properties run through franz-go: kafkabook's franz-go member takes none (its settings are the consume flags); use --client java, spring or librdkafka")
		}
	}
	// franz-go was refused above when the step has properties; the others
	// check each name against their catalogue.
	clients = slices.DeleteFunc(slices.Clone(clients), func(cl string) bool { return cl == FranzGo })
	if st.given("client") && !slices.Contains(c.d.Meta.Client, st.flagStr("client")) {
		// The front matter's consumer: was checked for the run's clients,
		// not for this step's own.
		for _, name := range slices.Sorted(maps.Keys(c.d.Meta.Consumer)) {
			checkClientProperty(c.caps, &c.d.Meta, clients, RoleConsumer, name, c.d.Meta.Consumer[name], st.flagPos("client"), func(p Pos, msg string) {
				c.errorf(p, "consumer: %s (from the front matter): %s", name, msg)
			})
		}
	}
	allowed := map[string]Pos{}
	for _, a := range st.Flags["allow-unknown"] {
		allowed[a.Text] = a.Pos
	}
	given := map[string]bool{}
	for _, a := range st.Flags["property"] {
		name, value, ok := strings.Cut(a.Text, "=")
		if !ok || name == "" {
			continue // reported as a bad -X value
		}
		given[name] = true
		if pos, ok := allowed[name]; ok {
			checkAllowedUnknown(c, clients, name, value, a.Pos, pos)
			continue
		}
		checkClientProperty(c.caps, &c.d.Meta, clients, RoleConsumer, name, value, a.Pos, func(p Pos, msg string) {
			c.errorf(p, "-X %s: %s", name, msg)
		})
	}
	for _, a := range st.Flags["allow-unknown"] {
		if !given[a.Text] {
			c.errorf(a.Pos, "--allow-unknown %s: the step sets no -X %s=VALUE to let through (it applies to the step's own -X, not the front matter's consumer:)", a.Text, a.Text)
		}
	}
}

// checkAllowedUnknown checks a -X property the step lets through with
// --allow-unknown: the catalogue's "unknown" is what the flag is for, so
// it is not reported; anything else is, and a name every client of the
// step knows is refused, so that the flag never hides a real setting.
func checkAllowedUnknown(c *checker, clients []string, name, value string, p, flagPos Pos) {
	unknown, refused := false, false
	checkClientProperty(c.caps, &c.d.Meta, clients, RoleConsumer, name, value, p, func(p Pos, msg string) {
		if strings.Contains(msg, "unknown ") {
			unknown = true
			return
		}
		refused = true
		c.errorf(p, "-X %s: %s", name, msg)
	})
	if !unknown && !refused && c.caps.ClientProperty != nil && len(clients) > 0 {
		c.errorf(flagPos, "--allow-unknown %s: %s is a consumer property the client knows: drop --allow-unknown", name, name)
	}
}
