package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Replay rebuilds a Results from an events.jsonl alone, for a run that
// crashed before writing results.json. The result is Complete only when the
// file ends with an end event saying so. A last line cut mid-way (the crash
// came during a write) is ignored; a bad line anywhere else is an error.
// Unknown event kinds are skipped, so newer files stay readable. The
// stream may be gzipped (ArchiveEvents); when path does not exist,
// path.gz is read.
func Replay(path string) (*Results, error) {
	f, err := OpenEvents(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := ReplayFrom(f)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	return r, nil
}

// ReplayFrom is Replay reading from an io.Reader, plain or gzipped. It
// holds one line at a time besides the evidence folded so far, and checks
// every ledger count against the bytes read (see checkCounts), so a stream
// of N bytes never costs more than a small multiple of N.
func ReplayFrom(in io.Reader) (*Results, error) {
	br := bufio.NewReaderSize(in, 1<<16)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gunzip(br)
		if err != nil {
			return nil, err
		}
		br = bufio.NewReaderSize(zr, 1<<16)
	}
	fold := newFolder()
	var pending error // a bad line, fatal only if another line follows
	var size int
	var entries int64
	for n := 1; ; n++ {
		line, rerr := br.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, rerr
		}
		size += len(line)
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			if pending != nil {
				return nil, pending
			}
			var ev Event
			var err error
			if entries, err = checkCounts(line, entries, size); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if err := json.Unmarshal(line, &ev); err != nil {
				pending = fmt.Errorf("line %d: %w", n, err)
			} else if err := fold.apply(ev); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
		}
		if rerr != nil {
			break
		}
	}
	r := fold.results()
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", EventsFileName, err)
	}
	if !fold.ended && r.Error == "" {
		r.Error = "the run stopped before its end: evidence replayed from " + EventsFileName
	}
	return r, nil
}
