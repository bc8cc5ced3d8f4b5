package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/kafkabook/kafkabook/internal/cluster"
	"github.com/kafkabook/kafkabook/internal/launch"
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
	// Where the cluster's clients run (a pod on Kubernetes), so that the
	// addresses in its environment resolve; its stderr joins its stdout.
	var mu sync.Mutex
	stderr := &lineWriter{line: func(line string) { mu.Lock(); log.line("%s", line); mu.Unlock() }}
	proc, err := r.launcher.Start(ctx, launch.Command{Argv: []string{"sh", "-e", "-c", b.Text},
		Env: shellEnv(r.status, r.num, r.opts.Doc.Meta.Params), Stderr: stderr})
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { proc.Signal(syscall.SIGKILL) })
	defer stop()
	sc := bufio.NewScanner(proc.Stdout())
	for sc.Scan() {
		mu.Lock()
		log.line("%s", sc.Text())
		mu.Unlock()
	}
	_, err = proc.Wait()
	proc.Close()
	stderr.flush()
	r.ev.Emit(results.KindStep, r.num, log.done(err))
	return err
}

// lineWriter calls line with each line written to it; flush passes on a
// last line that has no newline.
type lineWriter struct {
	line    func(string)
	pending []byte
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.pending = append(w.pending, b...)
	for {
		i := bytes.IndexByte(w.pending, '\n')
		if i < 0 {
			return len(b), nil
		}
		w.line(string(w.pending[:i]))
		w.pending = w.pending[i+1:]
	}
}

func (w *lineWriter) flush() {
	if len(w.pending) > 0 {
		w.line(string(w.pending))
		w.pending = nil
	}
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
