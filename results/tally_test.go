package results

import (
	"reflect"
	"testing"
	"time"
)

func msg(id string, st Status) Message {
	return Message{ID: id, Acks: "1", Status: st, Offset: -1, LeaderEpoch: -1}
}

func TestNewTally(t *testing.T) {
	topic := Topic{Name: "acks1-r1", Label: "acks1", Messages: []Message{
		msg("m-1", StatusOK),       // present once
		msg("m-2", StatusOK),       // present twice: duplicate
		msg("m-10", StatusOK),      // lost
		msg("m-3", StatusOK),       // lost
		msg("m-4", StatusTimeout),  // present though not acked
		msg("m-5", StatusError),    // never acked, absent
		msg("m-11", StatusUnknown), // never acked, absent
	}}
	recs := []Record{
		{ID: "m-1", Offset: 0},
		{ID: "m-2", Offset: 5},
		{ID: "m-2", Offset: 1},
		{ID: "m-4", Offset: 2},
		{ID: "x-9", Offset: 3}, // not in the ledger at all
	}
	at := time.Date(2026, 11, 29, 21, 35, 0, 0, time.UTC)
	got := NewTally(topic, "", recs, map[int32]int64{0: 6}, at, "k2")

	want := Tally{
		Topic: "acks1-r1", Label: "acks1", At: at, Via: "k2",
		HighWatermarks: map[int32]int64{0: 6},
		Read:           5, Acked: 4, Present: 4,
		Lost:           []string{"m-3", "m-10"},
		Duplicates:     []string{"m-2"},
		UnackedPresent: []string{"m-4", "x-9"},
		NeverAcked:     []string{"m-5", "m-11"},
		Seen:           map[string][]int64{"m-1": {0}, "m-2": {1, 5}, "m-4": {2}, "x-9": {3}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NewTally:\n got %+v\nwant %+v", got, want)
	}
}

func TestNewTallyEmptyListsAreNotNil(t *testing.T) {
	got := NewTally(Topic{Name: "t", Label: "t"}, "lbl", nil, nil, time.Time{}, "")
	if got.Label != "lbl" {
		t.Errorf("label = %q, want lbl", got.Label)
	}
	for name, l := range map[string][]string{"lost": got.Lost, "dup": got.Duplicates, "unacked": got.UnackedPresent, "never": got.NeverAcked} {
		if l == nil {
			t.Errorf("%s is nil; want empty so JSON says []", name)
		}
	}
}

// The article's first experiment: 20 acked, the reader finds m-001..m-010.
func TestNewTallyArticle(t *testing.T) {
	var topic Topic
	var recs []Record
	for i := 1; i <= 20; i++ {
		id := "m-" + pad3(i)
		topic.Messages = append(topic.Messages, msg(id, StatusOK))
		if i <= 10 {
			recs = append(recs, Record{ID: id, Offset: int64(i - 1)})
		}
	}
	got := NewTally(topic, "acks1", recs, map[int32]int64{0: 10}, time.Time{}, "")
	if got.Acked != 20 || got.Present != 10 || len(got.Lost) != 10 || got.Lost[0] != "m-011" || got.Lost[9] != "m-020" {
		t.Errorf("got acked=%d present=%d lost=%v", got.Acked, got.Present, got.Lost)
	}
}

func pad3(i int) string {
	s := []byte{'0', '0', '0'}
	for p := 2; p >= 0 && i > 0; p-- {
		s[p] = byte('0' + i%10)
		i /= 10
	}
	return string(s)
}

func TestSortIDs(t *testing.T) {
	ids := []string{"m-10", "zz", "m-2", "m-002", "a-5", "m-1", "b", "m-"}
	SortIDs(ids)
	want := []string{"a-5", "m-1", "m-002", "m-2", "m-10", "b", "m-", "zz"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("SortIDs = %v, want %v", ids, want)
	}
}
