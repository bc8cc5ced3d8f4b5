// Package readyline starts a side process of kafkabook's own (the
// power-loss layer, a link delayer) and waits for the one line it writes
// on fd 3 once it is ready, "ok", or why it is not. The backends start
// such processes in a node's namespace; a process that dies or hangs
// before it is ready fails the start with its log's path.
package readyline

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Launch starts cmd with start, its output appended to logFile, and waits
// up to timeout for its ready line; a late one is killed. what names the
// process and doing what being ready means, for the error: "the
// power-loss layer", "mount".
func Launch(cmd *exec.Cmd, logFile string, start func(*exec.Cmd) error, timeout time.Duration, what, doing string) error {
	out, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd.Stdout, cmd.Stderr = out, out
	cmd.ExtraFiles = []*os.File{w} // fd 3: one line, "ok" or why not
	err = start(cmd)
	w.Close()
	if err != nil {
		return err
	}
	done := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		done <- strings.TrimSpace(line)
	}()
	select {
	case line := <-done:
		if line == "ok" {
			return nil
		}
		if line == "" {
			line = "it exited"
		}
		return fmt.Errorf("%s did not %s: %s (log: %s)", what, doing, line, logFile)
	case <-time.After(timeout):
		cmd.Process.Kill()
		return fmt.Errorf("%s did not %s within %v (log: %s)", what, doing, timeout, logFile)
	}
}
