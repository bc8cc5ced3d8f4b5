package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// shell runs an sh block when --allow-shell was given, with the cluster's
// addresses in its environment: KAFKA_BOOTSTRAP, K1..KN, and the runbook's
// parameters. Without --allow-shell the block is shown, not run.
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
	env := append(os.Environ(), "KAFKA_BOOTSTRAP="+strings.Join(r.status.Bootstrap(), ","), fmt.Sprintf("KAFKABOOK_RUN=%d", r.num))
	for _, n := range r.status.Nodes {
		env = append(env, strings.ToUpper(n.Name)+"="+n.Address)
	}
	for k, v := range r.opts.Doc.Meta.Params {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
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
