package results

import (
	"reflect"
	"testing"
)

func msg(id string, st Status, offset int64) Message {
	return Message{ID: id, Acks: "1", Status: st, Offset: offset, LeaderEpoch: -1}
}

func TestClassify(t *testing.T) {
	topic := Topic{Name: "acks1-r1", Label: "acks1", Messages: []Message{
		msg("m-1", StatusOK, 0),       // present once
		msg("m-2", StatusOK, 1),       // present twice: duplicate
		msg("m-10", StatusOK, 3),      // lost: another record sits at its offset
		msg("m-3", StatusOK, 4),       // lost: nothing there, the log moved past
		msg("m-12", StatusOK, 6),      // unseen: at the high watermark
		msg("m-13", StatusOK, 9),      // unseen: above it
		msg("m-4", StatusUnknown, -1), // present though its outcome was unknown
		msg("m-5", StatusFailed, -1),  // failed, absent
		msg("m-6", StatusFailed, -1),  // failed, but present
		msg("m-11", StatusUnknown, -1),
	}}
	recs := []Record{
		{ID: "m-1", Offset: 0},
		{ID: "m-2", Offset: 5},
		{ID: "m-2", Offset: 1},
		{ID: "m-4", Offset: 2},
		{ID: "x-9", Offset: 3}, // not in the ledger at all
		{ID: "m-6", Offset: 7},
		{ID: SentinelPrefix + "r1", Offset: 8},
	}
	earlier := map[At]string{{0, 0}: "m-1", {0, 2}: "m-7"}
	got := Classify(topic, recs, map[int32]int64{0: 6}, earlier, false)

	want := Tally{
		Topic: "acks1-r1", Label: "acks1",
		HighWatermarks: map[int32]int64{0: 6},
		Read:           7, Acked: 6, Present: 2, Failed: 2, Unknown: 2,
		Lost: []Loss{
			{ID: "m-3", Partition: 0, Offset: 4, HighWatermark: 6},
			{ID: "m-10", Partition: 0, Offset: 3, HighWatermark: 6, Found: "x-9"},
		},
		Unseen:         []string{"m-12", "m-13"},
		Duplicates:     []Duplicate{{ID: "m-2", Offsets: []int64{1, 5}}},
		Inconsistent:   []Inconsistency{{Partition: 0, Offset: 2, IDs: []string{"m-7", "m-4"}}},
		UnknownPresent: []string{"m-4"},
		FailedPresent:  []string{"m-6"},
		Foreign:        1,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Classify:\n got %+v\nwant %+v", got, want)
	}
	if o := got.Outcomes(); o.Present+o.Lost+o.Unseen+o.Failed+o.Unknown != len(topic.Messages) {
		t.Errorf("outcomes %+v do not add up to the %d messages", o, len(topic.Messages))
	}
}

func TestClassifyEmptyListsAreNotNil(t *testing.T) {
	got := Classify(Topic{Name: "t", Label: "lbl"}, nil, nil, nil, true)
	if got.Label != "lbl" {
		t.Errorf("label = %q, want lbl", got.Label)
	}
	if got.Lost == nil || got.Unseen == nil || got.Duplicates == nil || got.Inconsistent == nil ||
		got.UnknownPresent == nil || got.FailedPresent == nil {
		t.Errorf("nil lists in %+v; want empty so JSON says []", got)
	}
}

// acks=0 sends have no offset: absent, they are unseen in a snapshot and
// lost only in a final read.
func TestClassifyNoOffset(t *testing.T) {
	topic := Topic{Messages: []Message{msg("m-1", StatusOK, -1)}}
	hw := map[int32]int64{0: 1}
	if got := Classify(topic, nil, hw, nil, false); len(got.Unseen) != 1 || len(got.Lost) != 0 {
		t.Errorf("snapshot: unseen %v, lost %v; want unseen", got.Unseen, got.Lost)
	}
	if got := Classify(topic, nil, hw, nil, true); len(got.Lost) != 1 {
		t.Errorf("final: lost %v; want lost", got.Lost)
	}
}

// The article's first experiment: 20 acked, the reader finds m-001..m-010.
// Read at high watermark 10 the rest are unseen; after sentinels moved the
// log past the last acknowledged offset, lost.
func TestClassifyArticle(t *testing.T) {
	var topic Topic
	var recs []Record
	for i := 1; i <= 20; i++ {
		id := "m-" + pad3(i)
		topic.Messages = append(topic.Messages, msg(id, StatusOK, int64(i-1)))
		if i <= 10 {
			recs = append(recs, Record{ID: id, Offset: int64(i - 1)})
		}
	}
	snap := Classify(topic, recs, map[int32]int64{0: 10}, nil, false)
	if snap.Acked != 20 || snap.Present != 10 || len(snap.Lost) != 0 || len(snap.Unseen) != 10 {
		t.Errorf("snapshot: acked=%d present=%d lost=%v unseen=%v", snap.Acked, snap.Present, snap.LostIDs(), snap.Unseen)
	}
	for off := int64(10); off < 20; off++ { // sentinels up to past the last acknowledged offset
		recs = append(recs, Record{ID: SentinelPrefix + "r1", Offset: off})
	}
	final := Classify(topic, recs, map[int32]int64{0: 20}, nil, true)
	lost := final.LostIDs()
	if final.Present != 10 || len(lost) != 10 || lost[0] != "m-011" || lost[9] != "m-020" || final.Lost[0].Found != SentinelPrefix+"r1" {
		t.Errorf("final: present=%d lost=%+v", final.Present, final.Lost)
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
