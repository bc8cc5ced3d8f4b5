package engine

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// shell runs an sh block when --allow-shell was given, in the environment
// shellEnv makes. Without --allow-shell the block is shown, not run.
func (r *runner) shell(ctx context.Context, block int, b runbook.Block) error {
	s := runbook.Step{Pos: b.Pos, Text: strings.TrimSpace(b.Text), Name: "sh"}
	log := newStepLog(r.con, s, block)
	r.con.printf("$ sh <<'EOF'\n%s\nEOF\n", strings.TrimRight(b.Text, "\n"))
	if !r.opts.AllowShell {
		log.line("not run: sh blocks run only with --allow-shell")
		r.ev.Emit(results.KindStep, r.num, log.done(nil))
		return nil
	}
	cmd := exec.CommandContext(ctx, "sh", "-e", "-c", b.Text)
	cmd.Env = shellEnv(r.status, r.num, r.opts.Doc.Meta.Params)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		log.line("%s", sc.Text())
	}
	err = cmd.Wait()
	r.ev.Emit(results.KindStep, r.num, log.done(err))
	return err
}

// shellEnv is the whole environment of an sh block, fixed so that a
// runbook cannot reach the shell's own variables: PATH and HOME from
// kafkabook's environment, KAFKA_BOOTSTRAP, each node's address as K1..KN,
// KAFKABOOK_RUN (the run number), and each runbook parameter as
// KAFKABOOK_PARAM_<name>, with every character of the name other than a
// letter, digit or _ written as _. A parameter named PATH or LD_PRELOAD is
// KAFKABOOK_PARAM_PATH or KAFKABOOK_PARAM_LD_PRELOAD, nothing more.
func shellEnv(st cluster.Status, run int, params map[string]string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + os.Getenv("HOME"),
		"KAFKA_BOOTSTRAP=" + strings.Join(st.Bootstrap(), ","),
		fmt.Sprintf("KAFKABOOK_RUN=%d", run),
	}
	for _, n := range st.Nodes {
		env = append(env, strings.ToUpper(n.Name)+"="+n.Address)
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		env = append(env, "KAFKABOOK_PARAM_"+envName(k)+"="+params[k])
	}
	return env
}

// envName is a parameter name as a shell variable name: every byte other
// than a letter, digit or _ becomes _.
func envName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
}
