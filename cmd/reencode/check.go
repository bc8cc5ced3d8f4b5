package main

import (
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/kafkabook/kafkabook/results"
)

// sameTimelines checks that the change points of after say, at every
// sample before holds, the value that sample saw, and end where before's
// samples end: the timelines were only thinned, never altered.
func sameTimelines(before, after *results.Results) error {
	if len(before.Runs) != len(after.Runs) {
		return fmt.Errorf("%d runs before, %d after", len(before.Runs), len(after.Runs))
	}
	for i, b := range before.Runs {
		a := after.Runs[i]
		type isrKey struct {
			topic string
			part  int32
		}
		err := sameSteps(b.ISR, a.ISR,
			func(s results.ISRSample) isrKey { return isrKey{s.Topic, s.Partition} },
			func(s results.ISRSample) time.Time { return s.At },
			func(x, y results.ISRSample) bool {
				return x.Leader == y.Leader && slices.Equal(x.ISR, y.ISR) && slices.Equal(x.Replicas, y.Replicas)
			})
		if err != nil {
			return fmt.Errorf("run %d: leader/ISR: %w", b.Number, err)
		}
		if len(b.Consumers) != len(a.Consumers) {
			return fmt.Errorf("run %d: %d groups before, %d after", b.Number, len(b.Consumers), len(a.Consumers))
		}
		for j, c := range b.Consumers {
			err := sameSteps(c.Offsets, a.Consumers[j].Offsets,
				func(s results.OffsetSample) int32 { return s.Partition },
				func(s results.OffsetSample) time.Time { return s.At },
				func(x, y results.OffsetSample) bool { return x.Committed == y.Committed })
			if err != nil {
				return fmt.Errorf("run %d: group %s: committed offsets: %w", b.Number, c.Group, err)
			}
		}
	}
	return nil
}

// sameSteps checks the step function of points (change points, per key)
// against every sample of samples.
func sameSteps[S any, K comparable](samples, points []S, key func(S) K, at func(S) time.Time, same func(a, b S) bool) error {
	byKey := map[K][]S{}
	for _, p := range points {
		byKey[key(p)] = append(byKey[key(p)], p)
	}
	last := map[K]time.Time{}
	for _, s := range samples {
		ps := byKey[key(s)]
		i, _ := slices.BinarySearchFunc(ps, at(s), func(p S, t time.Time) int {
			if at(p).After(t) {
				return 1
			}
			return -1
		})
		if i == 0 {
			return fmt.Errorf("no point at or before the sample of %v at %s", key(s), at(s))
		}
		if !same(ps[i-1], s) {
			return fmt.Errorf("the sample of %v at %s saw %+v, the points say %+v", key(s), at(s), s, ps[i-1])
		}
		if at(s).After(last[key(s)]) {
			last[key(s)] = at(s)
		}
	}
	for k, ps := range byKey {
		if t := at(ps[len(ps)-1]); !t.Equal(last[k]) && len(samples) > 0 {
			return fmt.Errorf("%v: the points end at %s, the samples at %s", k, t, last[k])
		}
	}
	return nil
}

// sameReplay checks that a replay of the archived stream gives the
// evidence a replay of the plain stream gave.
func sameReplay(before, after *results.Results) error {
	if !reflect.DeepEqual(before.Runs, after.Runs) {
		return fmt.Errorf("the archived stream replays differently from the plain one")
	}
	return nil
}
