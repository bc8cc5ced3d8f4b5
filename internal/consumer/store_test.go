package consumer

import (
	"context"
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
