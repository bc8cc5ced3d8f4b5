package cluster

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Clocks is implemented by backends whose brokers run with their wall
// clock under kafkabook's hand (the local backend preloads libfaketime
// into each JVM of a cluster started with Config.Clock): a node's wall
// clock can jump, forward or back, while its monotonic clock, which the
// JVM's timers and Kafka's timeouts run on, stays right, as when a
// machine's clock is stepped.
type Clocks interface {
	// Clock moves the nodes' wall clocks by jump from where each is, or,
	// with reset, puts them right; it returns each node's offset from
	// this host's clock after the change, as written (what the broker
	// shows of it is the caller's to read back).
	Clock(ctx context.Context, nodes []string, jump time.Duration, reset bool) ([]ClockState, error)
	// ClockStates is every node's offset as written, the nodes whose
	// clock is right included.
	ClockStates(ctx context.Context) ([]ClockState, error)
}

// ClockState is how far a node's wall clock is set from this host's:
// ahead when Offset is positive.
type ClockState struct {
	Node   string        `json:"node"`
	Offset time.Duration `json:"offset"`
}

// FaketimeVersion is the libfaketime release FaketimeEnv's settings are
// proven on: Debian 12's, which the local backend needs on the host and
// the docker backend's image holds.
const FaketimeVersion = "0.9.10"

// ImageFaketimeLib is where kafkabook's image (`kafkabook image build`,
// which the docker and kubernetes backends run) links libfaketime.so.1,
// whatever the architecture's library directory.
const ImageFaketimeLib = "/usr/local/lib/libfaketime.so.1"

// FaketimeEnv is what a broker's environment adds to run with libfaketime
// (the library at lib) preloaded, its wall clock offset by what the file
// at clockFile says ("+3600.000"; none, or an empty file, is no offset).
// The settings, each found by running a JVM under libfaketime 0.9.10:
//
//   - FAKETIME_DONT_FAKE_MONOTONIC=1: only the wall clock moves.
//     Without it CLOCK_MONOTONIC takes the offset too, so System.nanoTime
//     jumps with the wall clock (backwards too) and every timeout Kafka
//     measures on it fires at once: not what a stepped clock does.
//   - FAKETIME_FORCE_MONOTONIC_FIX=0: with the monotonic clock left
//     real, 0.9.10's pthread_cond_timedwait still subtracts the faked
//     time from a CLOCK_MONOTONIC deadline (fixed upstream after 0.9.10,
//     in no release Debian ships), so every timed wait of the JVM
//     (LockSupport.parkNanos, Object.wait) returns at once and its
//     threads spin. With the fix off, the wrapper hands the deadline to
//     glibc as it came, which is right when monotonic time is not faked;
//     a REALTIME deadline is still converted from the faked clock.
//   - FAKETIME_CACHE_DURATION=1: the file is read again at most once a
//     second (the offset lands within two); with FAKETIME_NO_CACHE=1 a
//     System.currentTimeMillis costs ~4.5 µs instead of ~65 ns. So the
//     file must change by a rename: a reader that met it empty would run
//     on the right clock for a second.
//   - NO_FAKE_STAT=1: file times are the kernel's. Kafka dates segments
//     by their records' timestamps, not by the files'.
//
// A rate (libfaketime's "x1.001", a drifting clock) is not offered: it
// also scales the process's relative sleeps and the deadlines of its
// condition variables, and a JVM under "+0 x1.5" hung in its first
// Thread.sleep.
func FaketimeEnv(lib, clockFile string) []string {
	return []string{
		"LD_PRELOAD=" + lib,
		"FAKETIME_TIMESTAMP_FILE=" + clockFile,
		"FAKETIME_CACHE_DURATION=1",
		"FAKETIME_DONT_FAKE_MONOTONIC=1",
		"FAKETIME_FORCE_MONOTONIC_FIX=0",
		"NO_FAKE_STAT=1",
	}
}

// ClockText is an offset as FaketimeEnv's file says it: "+3600.000".
func ClockText(d time.Duration) string { return fmt.Sprintf("%+.3f\n", d.Seconds()) }

// ParseClock reads an offset as ClockText writes it; empty is none.
func ParseClock(text string) (time.Duration, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0, nil
	}
	sec, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, fmt.Errorf("clock offset %q: want seconds like +3600.000", text)
	}
	return time.Duration(math.Round(sec*1000)) * time.Millisecond, nil
}

// NoClock is the error of a clock step on cluster name, whose brokers run
// without libfaketime.
func NoClock(name string) error {
	return fmt.Errorf("cluster %q runs its brokers without libfaketime, which clock needs; a run whose runbook uses clock starts a cluster with it", name)
}

// maxClockOffset bounds a node's offset: ten years either way.
const maxClockOffset = 10 * 365 * 24 * time.Hour

// NextOffset is node's offset after a clock step from was: moved by jump,
// or, with reset, none.
func NextOffset(node string, was, jump time.Duration, reset bool) (time.Duration, error) {
	if reset {
		return 0, nil
	}
	off := was + jump
	if off > maxClockOffset || off < -maxClockOffset {
		return 0, fmt.Errorf("clock %s: %s would set its clock %s from the host's, past the limit of %s", node, OffsetText(jump), OffsetText(off), maxClockOffset)
	}
	return off, nil
}

// OffsetText is an offset with its sign, as a jump is written: +1h0m0s,
// -30m0s, +0s.
func OffsetText(d time.Duration) string {
	if d < 0 {
		return d.String()
	}
	return "+" + d.String()
}

// healClocks puts every node's wall clock right, before BringBack starts
// the nodes a fault took down (they start on it).
func healClocks(ctx context.Context, b Backend, say func(op Op, node string, was State)) error {
	c, ok := b.(Clocks)
	if !ok {
		return nil
	}
	states, err := c.ClockStates(ctx)
	if err != nil {
		return fmt.Errorf("reading the nodes' clocks: %w", err)
	}
	var off []string
	for _, s := range states {
		if s.Offset != 0 {
			off = append(off, s.Node)
			say(repairOf("clock"), s.Node, State(OffsetText(s.Offset)))
		}
	}
	if len(off) == 0 {
		return nil
	}
	_, err = c.Clock(ctx, off, 0, true)
	return err
}
