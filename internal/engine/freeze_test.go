package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// pauseFranzGoRunbook freezes franz-go's producer, the run's default
// client, for 3 s in the middle of a send at 10 a second.
const pauseFranzGoRunbook = "---\ntitle: pause franz-go\nnodes: 1\nrepeat: 1\n---\n" + "```kafka" + `
topic create p --replication-factor 1
produce p --count 60 --rate 10/s &
sleep 2s
pause producer p
sleep 3s
resume producer p
wait producers --timeout 60s
expect acked(p) == 60
` + "```\n"

// TestPauseFranzGo: pause producer freezes franz-go's producer as it
// freezes any other client's, its driver process (SIGSTOP), on the local
// backend too: no send is acknowledged while it is frozen, and the sends
// due meanwhile go out once it is resumed, all 60 acknowledged.
func TestPauseFranzGo(t *testing.T) {
	backend, _ := sharedOne(t)
	res, err := runWithClient(t, backend, "franz-go", pauseFranzGoRunbook)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	run := res.Runs[0]
	allHeld(t, run)
	var paused, resumed time.Time
	for _, s := range run.Steps {
		switch {
		case strings.HasPrefix(s.Text, "pause producer"):
			paused = s.End
			if len(s.Output) == 0 || !strings.Contains(s.Output[0], "driver pid") {
				t.Errorf("pause producer said %q, want the driver process it froze", s.Output)
			}
		case strings.HasPrefix(s.Text, "resume producer"):
			resumed = s.Start
		}
	}
	if paused.IsZero() || resumed.IsZero() {
		t.Fatalf("no pause or resume step in %+v", run.Steps)
	}
	var during, late int
	for _, m := range run.Messages("p") {
		if m.Status != results.StatusOK {
			continue
		}
		if m.Acked.After(paused) && m.Acked.Before(resumed) {
			during++
		}
		if m.Intended.After(paused) && m.Intended.Before(resumed) && m.Acked.After(resumed) {
			late++
		}
	}
	if during > 0 {
		t.Errorf("%d sends acknowledged while the producer was frozen (%s to %s)", during, paused.Sub(run.Start), resumed.Sub(run.Start))
	}
	if late < 20 {
		t.Errorf("%d sends due while frozen were acknowledged after the resume, want the 3 s of them (about 30)", late)
	}
	t.Logf("frozen %s; %d sends due meanwhile acknowledged after the resume", resumed.Sub(paused).Round(time.Millisecond), late)
}
