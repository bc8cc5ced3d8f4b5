package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestBadInputRunsNothing: a malformed runbook or a bad flag exits 3 before
// any cluster is touched (no state directory is even created).
func TestBadInputRunsNothing(t *testing.T) {
	state := t.TempDir()
	t.Setenv("KAFKABOOK_STATE", state)
	bad := filepath.Join(t.TempDir(), "bad.md")
	os.WriteFile(bad, []byte("```kafka\nprodce t --acks 1\n```\n"), 0o644)
	for _, args := range [][]string{
		{"check", bad},
		{"run", bad},
		{"run", "--repeat", "x", bad},
		{"run", "-p", "novalue", bad},
		{"cluster", "up", "--name", "Bad Name"},
	} {
		root := rootCmd()
		root.SetArgs(args)
		root.SetOut(new(nopWriter))
		root.SetErr(new(nopWriter))
		err := root.ExecuteContext(context.Background())
		if code := exitCode(err); code != exitUsage {
			t.Errorf("kafkabook %v: exit %d (%v), want %d", args, code, err, exitUsage)
		}
	}
	if entries, _ := os.ReadDir(state); len(entries) > 0 {
		t.Errorf("bad input touched the state directory: %v", entries)
	}
}

type nopWriter struct{}

func (*nopWriter) Write(p []byte) (int, error) { return len(p), nil }
