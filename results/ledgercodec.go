package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ledgerJSON is a Ledger as stored in results.json and in events.jsonl
// `messages` events (schema 3): one string per column, each a list of
// comma-separated integers in which "v*k" stands for k times v. Columns
// that move in small steps hold differences (see docs/results-schema.md),
// so a steady producer's ledger costs about ten bytes a message.
type ledgerJSON struct {
	Count      int               `json:"count"`
	Num        string            `json:"num"`          // message numbers, each minus the one before
	Intended   string            `json:"intended"`     // Unix ns, each minus the one before
	Acked      string            `json:"acked"`        // Unix ns minus the entry's intended (0 stands for none in both)
	Status     string            `json:"status"`       // 0 ok, 1 failed, 2 unknown
	Acks       string            `json:"acks"`         // 0 "0", 1 "1", 2 "all", 3 other
	Idempotent string            `json:"idempotent"`   // 0 or 1
	Partition  string            `json:"partition"`    // as is
	Offset     string            `json:"offset"`       // minus the offset of the entry before in the same partition
	Epoch      string            `json:"leader_epoch"` // each minus the one before
	Error      string            `json:"error"`        // 0 none, k: errors[k-1]
	Errors     []string          `json:"errors"`
	IDs        map[string]string `json:"ids,omitempty"` // entry index → id, for ids that are not m-NNN as MessageID spells them
}

// rle writes a column: comma-separated values, runs as v*k.
type rle struct {
	b    []byte
	v    int64
	n    int
	some bool
}

func (r *rle) add(v int64) {
	if r.n > 0 && v == r.v {
		r.n++
		return
	}
	r.flush()
	r.v, r.n = v, 1
}

func (r *rle) flush() {
	if r.n == 0 {
		return
	}
	if r.some {
		r.b = append(r.b, ',')
	}
	r.some = true
	r.b = strconv.AppendInt(r.b, r.v, 10)
	if r.n > 1 {
		r.b = append(r.b, '*')
		r.b = strconv.AppendInt(r.b, int64(r.n), 10)
	}
	r.n = 0
}

func (r *rle) String() string {
	r.flush()
	return string(r.b)
}

// unrle reads a column of n values, calling put for each; with put nil it
// only checks that the column holds n values, without a loop per value.
func unrle(name, s string, n int, put func(i int, v int64)) error {
	i := 0
	for p := 0; p < len(s); {
		v, q, err := scanInt(s, p)
		if err != nil {
			return fmt.Errorf("ledger column %s: %w", name, err)
		}
		k := int64(1)
		if q < len(s) && s[q] == '*' {
			if k, q, err = scanInt(s, q+1); err != nil || k < 1 {
				return fmt.Errorf("ledger column %s: bad repeat count at %d", name, q)
			}
		}
		if int64(n-i) < k {
			return fmt.Errorf("ledger column %s: more than the %d values of the ledger", name, n)
		}
		if put == nil {
			i += int(k)
		}
		for ; put != nil && k > 0; k-- {
			put(i, v)
			i++
		}
		if q < len(s) {
			if s[q] != ',' {
				return fmt.Errorf("ledger column %s: unexpected %q at %d", name, s[q], q)
			}
			q++
		}
		p = q
	}
	if i != n {
		return fmt.Errorf("ledger column %s: %d values, want %d", name, i, n)
	}
	return nil
}

func scanInt(s string, p int) (int64, int, error) {
	q := p
	if q < len(s) && s[q] == '-' {
		q++
	}
	for q < len(s) && s[q] >= '0' && s[q] <= '9' {
		q++
	}
	if q == p || (q == p+1 && s[p] == '-') {
		return 0, q, errors.New("a number expected at " + strconv.Itoa(p))
	}
	v, err := strconv.ParseInt(s[p:q], 10, 64)
	return v, q, err
}

// MarshalJSON writes the columns (see ledgerJSON).
func (l *Ledger) MarshalJSON() ([]byte, error) {
	return json.Marshal(l.encode())
}

func (l *Ledger) encode() ledgerJSON {
	n := l.Len()
	var num, intended, acked, status, acks, idem, part, offset, epoch, errc rle
	prevOff := map[int32]int64{}
	var prevNum, prevInt int64
	var prevEpoch int32
	for i := 0; i < n; i++ {
		num.add(l.num[i] - prevNum)
		prevNum = l.num[i]
		intended.add(l.intended[i] - prevInt)
		prevInt = l.intended[i]
		acked.add(l.acked[i] - l.intended[i])
		f := l.flags[i]
		status.add(int64(f & flagStatus))
		acks.add(int64(f >> flagAcksShift & 3))
		if f&flagIdempotent != 0 {
			idem.add(1)
		} else {
			idem.add(0)
		}
		p := l.partition[i]
		part.add(int64(p))
		offset.add(l.offset[i] - prevOff[p])
		prevOff[p] = l.offset[i]
		epoch.add(int64(l.epoch[i] - prevEpoch))
		prevEpoch = l.epoch[i]
		errc.add(int64(l.errAt[int32(i)]))
	}
	j := ledgerJSON{
		Count: n, Num: num.String(), Intended: intended.String(), Acked: acked.String(),
		Status: status.String(), Acks: acks.String(), Idempotent: idem.String(),
		Partition: part.String(), Offset: offset.String(), Epoch: epoch.String(), Error: errc.String(),
		Errors: l.errs,
	}
	if j.Errors == nil {
		j.Errors = []string{}
	}
	if len(l.ids) > 0 {
		j.IDs = make(map[string]string, len(l.ids))
		for i, id := range l.ids {
			j.IDs[strconv.Itoa(int(i))] = id
		}
	}
	return j
}

// UnmarshalJSON reads the columns (see ledgerJSON).
func (l *Ledger) UnmarshalJSON(data []byte) error {
	var j ledgerJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	if b := ledgerBudget(len(data)); int64(j.Count) > b {
		return fmt.Errorf("ledger: count %d in a ledger of %d bytes, more than the %d entries it can hold", j.Count, len(data), b)
	}
	return l.decode(j)
}

// checkColumns checks that every column holds Count values, without a
// loop per value.
func (j *ledgerJSON) checkColumns() error {
	if j.Count < 0 {
		return fmt.Errorf("ledger: count %d, want 0 or more", j.Count)
	}
	for _, c := range []struct{ name, s string }{
		{"num", j.Num}, {"intended", j.Intended}, {"acked", j.Acked}, {"status", j.Status}, {"acks", j.Acks},
		{"idempotent", j.Idempotent}, {"partition", j.Partition}, {"leader_epoch", j.Epoch}, {"offset", j.Offset}, {"error", j.Error},
	} {
		if err := unrle(c.name, c.s, j.Count, nil); err != nil {
			return err
		}
	}
	return nil
}

// decode fills l from j after checking that every column holds j.Count
// values, so nothing is allocated for a count the columns do not bear out.
func (l *Ledger) decode(j ledgerJSON) error {
	if err := j.checkColumns(); err != nil {
		return err
	}
	n := j.Count
	*l = Ledger{
		num: make([]int64, n), intended: make([]int64, n), acked: make([]int64, n), offset: make([]int64, n),
		partition: make([]int32, n), epoch: make([]int32, n), flags: make([]uint8, n),
	}
	var prev int64
	cols := []struct {
		name string
		s    string
		put  func(i int, v int64)
	}{
		{"num", j.Num, func(i int, v int64) { prev += v; l.num[i] = prev }},
		{"intended", j.Intended, func(i int, v int64) { prev += v; l.intended[i] = prev }},
		{"acked", j.Acked, func(i int, v int64) { l.acked[i] = v + l.intended[i] }},
		{"status", j.Status, func(i int, v int64) { l.flags[i] |= uint8(v) & flagStatus }},
		{"acks", j.Acks, func(i int, v int64) { l.flags[i] |= uint8(v&3) << flagAcksShift }},
		{"idempotent", j.Idempotent, func(i int, v int64) {
			if v != 0 {
				l.flags[i] |= flagIdempotent
			}
		}},
		{"partition", j.Partition, func(i int, v int64) { l.partition[i] = int32(v) }},
		{"leader_epoch", j.Epoch, func(i int, v int64) { prev += v; l.epoch[i] = int32(prev) }},
	}
	for _, c := range cols {
		prev = 0
		if err := unrle(c.name, c.s, n, c.put); err != nil {
			return err
		}
	}
	for i := 0; i < n; i++ {
		if l.flags[i]&flagStatus == 3 {
			return fmt.Errorf("ledger column status: bad value 3 at %d", i)
		}
		if l.partition[i] < -1 || l.epoch[i] < -1 {
			return fmt.Errorf("ledger entry %d: partition %d, leader epoch %d: want -1 (none) or more", i, l.partition[i], l.epoch[i])
		}
	}
	prevOff := map[int32]int64{}
	if err := unrle("offset", j.Offset, n, func(i int, v int64) {
		p := l.partition[i]
		l.offset[i] = prevOff[p] + v
		prevOff[p] = l.offset[i]
	}); err != nil {
		return err
	}
	for i, o := range l.offset {
		if o < -1 {
			return fmt.Errorf("ledger entry %d: offset %d, want -1 (none) or more", i, o)
		}
	}
	var bad error
	if err := unrle("error", j.Error, n, func(i int, v int64) {
		switch {
		case v == 0:
		case v < 0 || v > int64(len(j.Errors)):
			bad = fmt.Errorf("ledger column error: %d names no error text", v)
		default:
			l.setError(int32(i), j.Errors[v-1])
		}
	}); err != nil {
		return err
	}
	if bad != nil {
		return bad
	}
	for k, id := range j.IDs {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= n {
			return fmt.Errorf("ledger ids: bad index %q", k)
		}
		if l.ids == nil {
			l.ids = map[int32]string{}
		}
		l.ids[int32(i)] = id
	}
	return nil
}
