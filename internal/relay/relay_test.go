package relay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain lets the test binary be the relay, as the kafkabook binary is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == Subcommand {
		os.Exit(Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// TestConnect relays a TCP connection to an echo server over a process's
// standard streams: connected first, the bytes back, exit when stdin ends.
func TestConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		io.Copy(c, c)
		c.Close()
	}()
	cmd := exec.Command(os.Args[0], Subcommand, ln.Addr().String())
	cmd.Stdin = strings.NewReader("hello relay\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("relay: %v: %s", err, stderr.String())
	}
	if stderr.String() != Connected+"\n" {
		t.Errorf("stderr %q, want %q", stderr.String(), Connected+"\n")
	}
	// stdin's end closes the connection; the echo may or may not have
	// come back by then, but never anything else.
	if !strings.HasPrefix("hello relay\n", stdout.String()) {
		t.Errorf("stdout %q, want a prefix of the echo", stdout.String())
	}

	// A refused dial: non-zero, the error on stderr, no Connected.
	free, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := free.Addr().String()
	free.Close()
	out, err := exec.Command(os.Args[0], Subcommand, addr).CombinedOutput()
	if err == nil || !strings.Contains(string(out), DialError+"errno 111\n") || !strings.Contains(string(out), "refused") || strings.Contains(string(out), Connected) {
		t.Errorf("dial of a closed port: err %v, output %q; want a failure saying refused", err, out)
	}
}

// TestRun runs processes under `relay run`: the pid first, the child's
// stdin and stdout its own, and how it ended last, telling a SIGKILL from
// exit 137.
func TestRun(t *testing.T) {
	for _, tc := range []struct {
		script, want string
	}{
		{`read line; echo "got $line"; echo oops >&2; exit 137`, Exit + "code 137"},
		{`read line; echo "got $line"; printf partial >&2; kill -KILL $$`, Exit + "signal 9"},
	} {
		spec, _ := json.Marshal(RunSpec{Argv: []string{"sh", "-c", tc.script}})
		cmd := exec.Command(os.Args[0], Subcommand, "run", string(spec))
		cmd.Stdin = strings.NewReader("x\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run() // its status mirrors the child's
		if stdout.String() != "got x\n" {
			t.Errorf("%s: stdout %q", tc.script, stdout.String())
		}
		sc := bufio.NewScanner(&stderr)
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if len(lines) < 2 || !strings.HasPrefix(lines[0], Pid) || lines[len(lines)-1] != tc.want {
			t.Errorf("%s: stderr lines %q, want the pid first and %q last", tc.script, lines, tc.want)
		}
	}
}
