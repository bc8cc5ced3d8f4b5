package consumer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestStore: effects count per product and per event, event_handled is
// written with the effect (transactional) or after it (table), and a store
// opened again by the next member holds what the first committed.
func TestStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.sqlite")
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Apply(ctx, "2", "liked-2", false)) // table: the effect first...
	if seen, err := s.Handled(ctx, "liked-2"); err != nil || seen {
		t.Fatalf("handled before the insert: %v %v", seen, err)
	}
	must(s.MarkHandled(ctx, "liked-2")) // ...then the insert
	must(s.Apply(ctx, "2", "m-002", true))
	must(s.Apply(ctx, "", "m-003", false))
	must(s.Apply(ctx, "", "m-003", false)) // a redelivery without dedup
	must(s.Close())

	s, err = OpenStore(path) // the next member
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, id := range []string{"liked-2", "m-002"} {
		if seen, err := s.Handled(ctx, id); err != nil || !seen {
			t.Errorf("%s not in event_handled: %v", id, err)
		}
	}
	c, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Likes["2"] != 2 || c.Likes[""] != 2 || c.Applied["m-003"] != 2 || c.Applied["liked-2"] != 1 || len(c.Handled) != 2 {
		t.Errorf("contents = %+v", c)
	}
	if err := s.MarkHandled(ctx, "liked-2"); err == nil {
		t.Error("event_handled took the same event id twice")
	}
}

// TestStorePathEscaped: a store in a directory whose name holds ?, # and %
// (as kafkabook run --out can make it) is that file, not a file named by
// the part before the ? with the rest taken as the driver's options.
func TestStorePathEscaped(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out?mode=ro#x%41 y")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "g.sqlite")
	s, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(context.Background(), "p", "m-001", true); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("the store is not at %s: %v", path, err)
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 1 {
		t.Errorf("files beside the store's directory: %v", ents)
	}
	s, err = OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if seen, err := s.Handled(context.Background(), "m-001"); err != nil || !seen {
		t.Errorf("reopened store lost m-001: %v %v", seen, err)
	}
}
