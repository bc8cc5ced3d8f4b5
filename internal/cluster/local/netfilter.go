package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Beside Docker. A running dockerd loads br_netfilter, which hands frames
// bridged between two ports of any bridge to iptables' FORWARD chain, and
// sets that chain's policy to DROP: the nodes of a local cluster can then
// reach the host but not each other. Docker's own bridges get an ACCEPT
// rule each; a local cluster gets the same, scoped to its own bridge
// (in and out through it, nothing else) and carrying the cluster's name.
// The rule is recorded in the state file before it is added and removed at
// down, also after a crash, and down checks that it is gone.
//
// The bridge option nf_call_iptables cannot do this instead: it can only
// turn bridge netfilter on for one bridge, never off while the host-wide
// net.bridge.bridge-nf-call-iptables is 1 (tried: a bridge with the option
// 0 still drops), and turning the host-wide one off would weaken Docker's
// isolation of its own networks.
//
// The rule is added whenever iptables is installed, also where nothing
// filters yet, so a cluster keeps working when dockerd starts after it.

// forwardRule is one ACCEPT rule in the filter table's FORWARD chain.
type forwardRule struct {
	Tool string   `json:"tool"` // the iptables command that added it
	Spec []string `json:"spec"` // rule specification after the chain name
}

// forwardChain is where the rule goes: Docker sends FORWARD through its own
// chains first, none of which decide about other bridges, so a rule here
// is reached whether it came before or after dockerd's.
const forwardChain = "FORWARD"

// ruleComment marks a cluster's rule in `iptables -S`.
func ruleComment(cluster string) string { return "kafkabook cluster " + cluster }

// bridgeRule is the rule of cluster name on bridge br; it is derived from
// the name alone, so it can be found without a state file.
func bridgeRule(tool, name, br string) forwardRule {
	return forwardRule{Tool: tool, Spec: []string{
		"-i", br, "-o", br, "-m", "comment", "--comment", ruleComment(name), "-j", "ACCEPT",
	}}
}

// iptablesTool is the iptables command on PATH ("" when there is none):
// the same one dockerd uses, so rules land in the tables it filters with.
func iptablesTool() string {
	p, err := exec.LookPath("iptables")
	if err != nil {
		return ""
	}
	return p
}

// iptables runs tool with -w (wait for the xtables lock: dockerd and other
// clusters change rules concurrently) and returns its exit code.
func iptables(tool string, args ...string) (code int, out string, err error) {
	cmd := exec.Command(tool, append([]string{"-w"}, args...)...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), strings.TrimSpace(buf.String()), nil
	}
	return 0, strings.TrimSpace(buf.String()), err
}

func (r forwardRule) command(op string) string {
	args := []string{"iptables", op, forwardChain}
	for _, a := range r.Spec {
		if strings.ContainsAny(a, " \"'") {
			a = "'" + a + "'"
		}
		args = append(args, a)
	}
	return strings.Join(args, " ")
}

// exists reports whether the rule is in the chain; ok is false when that
// cannot be told (no iptables).
func (r forwardRule) exists() (present, ok bool) {
	if r.Tool == "" {
		return false, false
	}
	if _, err := os.Stat(r.Tool); err != nil {
		return false, false
	}
	code, _, err := iptables(r.Tool, append([]string{"-C", forwardChain}, r.Spec...)...)
	if err != nil {
		return false, false
	}
	return code == 0, true
}

// add inserts the rule at the top of the chain.
func (r forwardRule) add() error {
	code, out, err := iptables(r.Tool, append([]string{"-I", forwardChain, "1"}, r.Spec...)...)
	if err == nil && code != 0 {
		err = fmt.Errorf("exit status %d: %s", code, out)
	}
	if err != nil {
		return fmt.Errorf("add the rule that lets bridge %s forward between its own ports (`%s`): %w", r.Spec[1], r.command("-I"), err)
	}
	return nil
}

// remove deletes every copy of the rule; none is not an error.
func (r forwardRule) remove() error {
	for range 64 {
		present, ok := r.exists()
		if !ok || !present {
			return nil
		}
		code, out, err := iptables(r.Tool, append([]string{"-D", forwardChain}, r.Spec...)...)
		if err == nil && code != 0 {
			err = fmt.Errorf("exit status %d: %s", code, out)
		}
		if err != nil {
			return fmt.Errorf("remove iptables rule (`%s`): %w", r.command("-D"), err)
		}
	}
	return fmt.Errorf("iptables rule `%s` keeps coming back", r.command("-D"))
}

// skipForwardRule is for tests: up adds no rule, so the reachability check
// can be seen failing.
var skipForwardRule bool

// exemptBridge adds the cluster's FORWARD rule when iptables is installed,
// recording it in st and saving st first.
func (b *Backend) exemptBridge(st *state) error {
	tool := iptablesTool()
	if tool == "" || skipForwardRule {
		return nil
	}
	r := bridgeRule(tool, st.Name, st.Network.Bridge)
	st.Network.Accept = &r
	if err := b.save(*st); err != nil {
		return err
	}
	return r.add()
}

// forwardRules are the rules that may exist for the cluster: the one its
// state records and the one derived from its name.
func (b *Backend) forwardRules(st state) []forwardRule {
	var out []forwardRule
	if st.Network.Accept != nil {
		out = append(out, *st.Network.Accept)
	}
	if tool := iptablesTool(); tool != "" {
		d := bridgeRule(tool, b.name, derivedNames(b.name).Bridge)
		if st.Network.Accept == nil || st.Network.Accept.Tool != d.Tool || st.Network.Accept.command("-D") != d.command("-D") {
			out = append(out, d)
		}
	}
	return out
}

// removeForwardRules deletes the cluster's rules, recording errors in errs.
func (b *Backend) removeForwardRules(st state, errs map[string]error) {
	for _, r := range b.forwardRules(st) {
		note(errs, "rule "+r.command("-D"), r.remove())
	}
}

// forwardLeftovers lists the cluster's rules that still exist.
func (b *Backend) forwardLeftovers(st state, errs map[string]error) []Leftover {
	var out []Leftover
	for _, r := range b.forwardRules(st) {
		if present, _ := r.exists(); present {
			l := Leftover{What: "iptables rule " + r.command("-A"), Fix: r.command("-D")}
			if err := errs["rule "+r.command("-D")]; err != nil {
				l.Why = err.Error()
			}
			out = append(out, l)
		}
	}
	return out
}

// filterCause explains why bridged traffic between nodes may be dropped,
// from what the host shows: "" when nothing points at bridge netfilter.
func filterCause(bridge string) string {
	data, err := os.ReadFile("/proc/sys/net/bridge/bridge-nf-call-iptables")
	if err != nil || strings.TrimSpace(string(data)) != "1" {
		return ""
	}
	var why strings.Builder
	why.WriteString("bridge netfilter is on (net.bridge.bridge-nf-call-iptables=1, set when br_netfilter is loaded, e.g. by dockerd), so frames between the nodes pass iptables' FORWARD chain")
	tool := iptablesTool()
	if tool == "" {
		why.WriteString("; iptables is not installed, so kafkabook could not add its ACCEPT rule for bridge " + bridge + " (apt-get install iptables)")
		return why.String()
	}
	if code, out, err := iptables(tool, "-S", forwardChain); err == nil && code == 0 {
		for _, line := range strings.Split(out, "\n") {
			if line == "-P FORWARD DROP" || line == "-P FORWARD REJECT" {
				fmt.Fprintf(&why, ", whose policy is %s", strings.TrimPrefix(line, "-P FORWARD "))
			}
		}
		if !strings.Contains(out, "-i "+bridge+" -o "+bridge+" ") {
			fmt.Fprintf(&why, ", and it holds no ACCEPT rule for bridge %s", bridge)
		} else {
			fmt.Fprintf(&why, "; kafkabook's ACCEPT rule for bridge %s is there, so another rule (or an nftables table) drops the frames first", bridge)
		}
	}
	if running := dockerdRunning(); running {
		why.WriteString(" (dockerd runs on this host)")
	}
	return why.String()
}

// dockerdRunning reports whether a process called dockerd runs.
func dockerdRunning() bool {
	for _, pid := range pids() {
		if comm(pid) == "dockerd" {
			return true
		}
	}
	return false
}
