package results

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Every number in the evidence is a count, an offset, a partition, a node,
// an epoch or a time, none of them negative except -1, which says "none"
// (a message without an offset, a partition without a leader, a group
// without a committed offset). Evidence read from elsewhere (a stranger's
// run directory, a CI cell's artifact) is held to that before anything
// is judged or drawn from it, so a page never shows a partition -7 or a
// count below zero as if kafkabook had measured it: validate refuses the
// first such number, naming where it is.

// validate checks every integer of r: at least -1, and at least 0 where it
// is a count (counts). The ledgers' columns are checked as they are
// decoded (Ledger.decode).
func (r *Results) validate() error {
	return checkInts(reflect.ValueOf(r).Elem(), "")
}

// counts are the fields, by their JSON names, that count something and
// have no "none".
var counts = map[string]bool{
	"nodes": true, "repeat": true, "read": true, "acked": true, "failed": true, "unknown": true, "present": true,
	"foreign": true, "pid": true, "n": true, "member": true, "high_watermark": true, "high_watermarks": true,
	"every_ms": true, "taken": true, "stored": true,
}

var (
	timeType   = reflect.TypeFor[time.Time]()
	ledgerType = reflect.TypeFor[Ledger]()
)

// badInt is a number validate refuses. Its path is built on the way out
// of the walk, only for the number refused: segments innermost first.
type badInt struct {
	path []string
	msg  string // " is -7, want -1 or more"
}

func (e *badInt) Error() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		if b.Len() > 0 && !strings.HasPrefix(e.path[i], "[") {
			b.WriteByte('.')
		}
		b.WriteString(e.path[i])
	}
	return b.String() + e.msg
}

// within puts err, a badInt from inside seg, under seg.
func within(err error, seg string) error {
	if b, ok := err.(*badInt); ok {
		b.path = append(b.path, seg)
	}
	return err
}

// checkInts walks v; field is the JSON name of the field v is (or is an
// element of), which says whether it is a count.
func checkInts(v reflect.Value, field string) error {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		min := int64(-1)
		if counts[field] {
			min = 0
		}
		if v.Int() < min {
			return &badInt{msg: fmt.Sprintf(" is %d, want %d or more", v.Int(), min)}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return checkInts(v.Elem(), field)
		}
	case reflect.Struct:
		if v.Type() == timeType || v.Type() == ledgerType {
			return nil
		}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			if f.Anonymous {
				if err := checkInts(v.Field(i), field); err != nil {
					return err
				}
				continue
			}
			if err := checkInts(v.Field(i), name); err != nil {
				return within(err, name)
			}
		}
	case reflect.Slice, reflect.Array:
		if k := v.Type().Elem().Kind(); k == reflect.String || k == reflect.Bool || k == reflect.Uint8 {
			return nil
		}
		for i := range v.Len() {
			if err := checkInts(v.Index(i), field); err != nil {
				return within(err, "["+strconv.Itoa(i)+"]")
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if iter.Key().CanInt() && iter.Key().Int() < 0 { // a partition
				return &badInt{msg: fmt.Sprintf(": a key is %d, want 0 or more", iter.Key().Int())}
			}
			if err := checkInts(iter.Value(), field); err != nil {
				return within(err, fmt.Sprintf("[%v]", iter.Key()))
			}
		}
	}
	return nil
}
