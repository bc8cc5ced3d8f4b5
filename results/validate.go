package results

import (
	"fmt"
	"reflect"
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

// checkInts walks v, path naming it as a JSON path (runs[0].isr[3].leader).
func checkInts(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		min := int64(-1)
		if counts[lastName(path)] {
			min = 0
		}
		if v.Int() < min {
			return fmt.Errorf("%s is %d, want %d or more", path, v.Int(), min)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return checkInts(v.Elem(), path)
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
			p := name
			if path != "" && !f.Anonymous {
				p = path + "." + name
			} else if f.Anonymous {
				p = path
			}
			if err := checkInts(v.Field(i), p); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if k := v.Type().Elem().Kind(); k == reflect.String || k == reflect.Bool || k == reflect.Uint8 {
			return nil
		}
		for i := range v.Len() {
			if err := checkInts(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			p := fmt.Sprintf("%s[%v]", path, iter.Key())
			if iter.Key().CanInt() && iter.Key().Int() < 0 { // a partition
				return fmt.Errorf("%s: a key is %d, want 0 or more", path, iter.Key().Int())
			}
			if err := checkInts(iter.Value(), p); err != nil {
				return err
			}
		}
	}
	return nil
}

// lastName is the last field name of a path: "leader" of runs[0].isr[3].leader,
// "high_watermarks" of runs[0].tallies[0].high_watermarks[0].
func lastName(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		path = path[i+1:]
	}
	if i := strings.IndexByte(path, '['); i >= 0 {
		path = path[:i]
	}
	return path
}
