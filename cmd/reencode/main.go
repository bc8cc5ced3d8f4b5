// Command reencode rewrites every run's evidence under the directories it
// is given in the current results.json schema (timelines as change
// points) and gzips each run's events.jsonl once its results.json loads.
// It checks, run by run, that the timelines say what they said before,
// and prints the sizes before and after.
//
//	go run ./cmd/reencode output
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kafkabook/kafkabook/results"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: reencode DIR...")
		os.Exit(2)
	}
	var sum summary
	failed := false
	for _, root := range os.Args[1:] {
		if err := reencodeTree(root, &sum, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed = true
		}
	}
	sum.print(os.Stdout)
	if failed || sum.failed > 0 {
		os.Exit(1)
	}
}

// summary is what reencode measured over every run.
type summary struct {
	runs, failed          int
	jsonBefore, jsonAfter int64
	evBefore, evAfter     int64
	largest               int64
	largestDir            string
}

func (s *summary) print(w io.Writer) {
	fmt.Fprintf(w, "%d runs re-encoded, %d failed\n", s.runs, s.failed)
	fmt.Fprintf(w, "results.json: %d bytes before, %d after\n", s.jsonBefore, s.jsonAfter)
	fmt.Fprintf(w, "events:       %d bytes before, %d after\n", s.evBefore, s.evAfter)
	fmt.Fprintf(w, "total:        %d bytes before, %d after\n", s.jsonBefore+s.evBefore, s.jsonAfter+s.evAfter)
	fmt.Fprintf(w, "largest results.json after: %d bytes (%s)\n", s.largest, s.largestDir)
}

// reencodeTree re-encodes every run directory under root, one holding a
// results.json, and checks each.
func reencodeTree(root string, sum *summary, log io.Writer) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != results.FileName {
			return nil
		}
		dir := filepath.Dir(p)
		sum.runs++
		if err := reencodeRun(dir, sum); err != nil {
			sum.failed++
			fmt.Fprintf(log, "%s: %v\n", dir, err)
		}
		return nil
	})
}

// reencodeRun re-encodes one run and checks that its timelines and its
// replayed stream say what they said before.
func reencodeRun(dir string, sum *summary) error {
	raw, err := os.ReadFile(filepath.Join(dir, results.FileName))
	if err != nil {
		return err
	}
	var before results.Results // as stored: every sample, if an older schema
	if err := json.Unmarshal(raw, &before); err != nil {
		return err
	}
	evBefore, replayBefore, err := events(dir)
	if err != nil {
		return err
	}
	if err := results.Reencode(dir); err != nil {
		return err
	}
	after, err := results.Load(dir)
	if err != nil {
		return err
	}
	if err := sameTimelines(&before, after); err != nil {
		return err
	}
	evAfter, replayAfter, err := events(dir)
	if err != nil {
		return err
	}
	if replayBefore != nil {
		if err := sameReplay(replayBefore, replayAfter); err != nil {
			return err
		}
	}
	info, err := os.Stat(filepath.Join(dir, results.FileName))
	if err != nil {
		return err
	}
	sum.jsonBefore += int64(len(raw))
	sum.jsonAfter += info.Size()
	sum.evBefore += evBefore
	sum.evAfter += evAfter
	if info.Size() > sum.largest {
		sum.largest, sum.largestDir = info.Size(), dir
	}
	return nil
}

// events is the size of a run's event stream, plain or archived, and its
// replay; nil when the run has none.
func events(dir string) (int64, *results.Results, error) {
	for _, name := range []string{results.EventsFileName, results.ArchivedEventsFileName} {
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, nil, err
		}
		r, err := results.Replay(p)
		if err != nil {
			return 0, nil, err
		}
		return info.Size(), r, nil
	}
	return 0, nil, nil
}
