package launch

import (
	"fmt"
	"syscall"
	"time"

	"github.com/kafkabook/kafkabook/internal/procstat"
)

// freezeWait bounds the wait for a process to show the state SIGSTOP or
// SIGCONT asked for.
const freezeWait = 5 * time.Second

// SignalGroup sends sig to the process group led by pgid on this machine
// (where the launcher runs its processes: the host, or inside a pod
// through kafkabook's relay). SIGSTOP and SIGCONT return once the leader
// shows the state asked for (stopped, or not), so that a step that froze
// a client can say it is frozen. Signal 0 checks that the group exists:
// its error wraps syscall.ESRCH when it does not.
func SignalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("signal %v: no process group %d", sig, pgid)
	}
	if err := syscall.Kill(-pgid, sig); err != nil {
		return fmt.Errorf("signal %d to process group %d: %w", int(sig), pgid, err)
	}
	if sig != syscall.SIGSTOP && sig != syscall.SIGCONT {
		return nil
	}
	stop := sig == syscall.SIGSTOP
	deadline := time.Now().Add(freezeWait)
	for {
		st, err := procstat.Read(pgid)
		if err != nil {
			return fmt.Errorf("process %d: %w", pgid, err)
		}
		if st.Stopped() == stop {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process %d is in state %c %s after %v", pgid, st.State, freezeWait, sig)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
