package launch

import (
	"context"
	"errors"
	"syscall"
	"testing"

	"github.com/kafkabook/kafkabook/internal/procstat"
)

// TestHostSignals: SIGSTOP and SIGCONT return once /proc shows the
// state, SIGKILL ends the group, and signal 0 then says ESRCH, which is
// how crash consumer checks that a member is gone.
func TestHostSignals(t *testing.T) {
	p, err := Host.Start(context.Background(), Command{Argv: []string{"sleep", "60"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if s, _ := procstat.Read(p.Pid()); !s.Stopped() {
		t.Errorf("after SIGSTOP the state is %c, want T", s.State)
	}
	if err := p.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if s, _ := procstat.Read(p.Pid()); s.Stopped() {
		t.Errorf("after SIGCONT the state is still %c", s.State)
	}
	if err := p.Signal(0); err != nil {
		t.Errorf("signal 0 to a running process: %v", err)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if exit, _ := p.Wait(); exit.Signal != syscall.SIGKILL {
		t.Errorf("Wait: %+v, want SIGKILL", exit)
	}
	if err := p.Signal(0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("signal 0 after SIGKILL: %v, want ESRCH", err)
	}
}
