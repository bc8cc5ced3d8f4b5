package report

import (
	"reflect"
	"testing"
	"time"

	"github.com/kafkabook/kafkabook/results"
	"github.com/kafkabook/kafkabook/runbook"
)

// Partitions, packet loss and narrow links are windows like the other
// faults: partition until heal, loss until loss 0% or heal, link until
// link --rate 0 or heal.
func TestNetworkFaultWindows(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	run := results.Run{Start: t0, End: at(60), Faults: []results.Fault{
		{At: at(5), Op: "partition", Nodes: []string{"k1", "|", "k2", "k3"}},
		{At: at(10), Op: "loss", Nodes: []string{"k2", "30%"}},
		{At: at(20), Op: "loss", Nodes: []string{"k2", "0%"}},
		{At: at(25), Op: "loss", Nodes: []string{"k3", "50%"}},
		{At: at(26), Op: "link", Nodes: []string{"k1", "k2", "10mbit/s"}},
		{At: at(28), Op: "link", Nodes: []string{"k1", "0"}},
		{At: at(30), Op: "heal", Nodes: []string{}},
	}}
	var got []string
	for _, w := range faultWindows(run) {
		got = append(got, w.Name()+" "+w.From.String()+"-"+w.To.String())
	}
	want := []string{"k1 | k2 k3 partitioned 5s-30s", "k2 lossy 10s-20s", "k3 lossy 25s-30s", "k1 narrow link 26s-28s", "k2 narrow link 26s-30s"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("windows:\n got %q\nwant %q", got, want)
	}
}

// A power loss is a window until the node is started again; every kind of
// window has its colour.
func TestPowerlossWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	run := results.Run{Start: t0, End: at(60), Faults: []results.Fault{
		{At: at(5), Op: "powerloss", Nodes: []string{"k1", "k2"}},
		{At: at(12), Op: "start", Nodes: []string{"k1", "k2"}},
	}}
	ws := faultWindows(run)
	if len(ws) != 1 || ws[0].Name() != "k1,k2 lost power" || ws[0].From != 5*time.Second || ws[0].To != 12*time.Second {
		t.Errorf("windows %+v", ws)
	}
	// Every colour is a window kind's (none left from a fault that is
	// gone), and a kind without one is still drawn.
	opens := map[string]bool{}
	for _, k := range runbook.FaultKinds {
		opens[k.Opens] = true
	}
	for kind := range windowColors {
		if !opens[kind] {
			t.Errorf("a colour for %q windows, which no fault opens", kind)
		}
	}
	if windowColor("a new kind") != otherWindow {
		t.Errorf("a window kind without a colour is shaded %q", windowColor("a new kind"))
	}
}
