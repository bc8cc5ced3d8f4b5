package driver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// fake is a driver that runs a shell script instead of a client.
func fake(script string) Driver {
	return Driver{Ref: Ref{Client: "fake"}, Argv: []string{"sh", "-c", script}}
}

const startupLine = `echo '{"name":"startup_complete","client":"fake","library":"sh","version":"1","config":{"acks":"-1","x":null}}'`

func TestStartupErrorShowsStderr(t *testing.T) {
	d := fake(`read spec; echo 'the client said why' >&2; echo '{"name":"startup_error","exception":"ConfigException","message":"bad acks"}'; exit 2`)
	_, err := d.StartProducer(context.Background(), Spec{Topic: "t", Count: 1})
	if err == nil || !strings.Contains(err.Error(), "bad acks") || !strings.Contains(err.Error(), "the client said why") {
		t.Fatalf("got %v, want the startup error and the driver's stderr", err)
	}
}

func TestStartupTimeout(t *testing.T) {
	old := StartTimeout
	StartTimeout = 300 * time.Millisecond
	defer func() { StartTimeout = old }()
	begin := time.Now()
	_, err := fake(`read spec; echo 'stuck' >&2; sleep 60`).StartProducer(context.Background(), Spec{Topic: "t"})
	if err == nil || !strings.Contains(err.Error(), "no startup_complete") || !strings.Contains(err.Error(), "stuck") {
		t.Fatalf("got %v, want a startup timeout with the driver's stderr", err)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("the stuck driver took %v to be killed", took)
	}
}

// TestCrashReportsUnknown: a driver that dies mid-run fails the run, and
// every message it took without reporting on is unknown.
func TestCrashReportsUnknown(t *testing.T) {
	d := fake(`read spec; ` + startupLine + `; read start
echo '{"name":"producer_send_success","n":5,"topic":"t","partition":0,"offset":7,"key":null,"value":"m-005","intended_ns":0,"ack_ns":1000000}'
echo '{"name":"producer_send_error","n":6,"topic":"t","partition":-1,"offset":-1,"class":"failed","error":"NOT_ENOUGH_REPLICAS","exception":"E","message":"too few","key":null,"value":"m-006","intended_ns":0,"ack_ns":2000000}'
kill -9 $$`)
	p, err := d.StartProducer(context.Background(), Spec{Topic: "t", From: 5, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if st := p.Startup(); st.Config["acks"] != "-1" || st.Version != "1" {
		t.Errorf("startup %+v", st)
	}
	got := map[int]Result{}
	_, err = p.Run(context.Background(), func(r Result) { got[r.Num] = r })
	if err == nil || !strings.Contains(err.Error(), "without shutdown_complete") {
		t.Errorf("Run: %v, want an error for the missing shutdown_complete", err)
	}
	if r := got[5]; r.Status != results.StatusOK || r.Offset != 7 || r.Done.Sub(r.Intended) != time.Millisecond {
		t.Errorf("m-005: %+v", r)
	}
	if r := got[6]; r.Status != results.StatusFailed || r.Err != "NOT_ENOUGH_REPLICAS: too few" || r.Offset != -1 {
		t.Errorf("m-006: %+v", r)
	}
	if r := got[7]; r.Status != results.StatusUnknown || !r.Done.IsZero() {
		t.Errorf("m-007: %+v, want unknown with no done time", r)
	}
}

// TestStopClosesStdin: ending ctx closes the driver's stdin, and the
// driver's last word counts.
func TestStopClosesStdin(t *testing.T) {
	d := fake(`read spec; ` + startupLine + `; read start; cat >/dev/null
echo '{"name":"shutdown_complete","sent":0,"max_lag_ns":0}'`)
	p, err := d.StartProducer(context.Background(), Spec{Topic: "t", Count: 2, Rate: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	n := 0
	stats, err := p.Run(ctx, func(Result) { n++ })
	if err != nil || stats.Sent != 0 || n != 0 {
		t.Errorf("Run: %v, %+v, %d results; want no error, nothing sent, no results", err, stats, n)
	}
}
