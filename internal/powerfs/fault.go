package powerfs

import (
	"fmt"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// A Fault is what the disk under the layer does wrong, as kafkabook's
// `disk` step sets it; the zero Fault is a healthy disk. The layer is
// the place for it because every operation the broker makes on its data
// passes through it: a fault reaches the broker's own system calls, with
// the errno a real disk gives, and nothing else on the machine.
type Fault struct {
	// Full: a write that extends a file, or an allocation that grows
	// one, fails with ENOSPC, as on a file system with no free block.
	// A write within a file's current size succeeds: the blocks a file
	// has, and those ext4 reserved when a page of a memory mapping was
	// dirtied before the disk filled, are not taken back (the kernel
	// writes such pages back later, and an error there would reach the
	// next process to open the file, which ext4 does not do). Not
	// modelled: a write into a hole of a sparse file, which a real full
	// disk refuses. Creating, renaming, removing and truncating files
	// still work, as on ext4 with free inodes; so do reads and fsyncs.
	Full bool `json:"full,omitempty"`
	// Fail: every operation on the directory (lookups, reads, writes,
	// fsyncs, creations) fails with EIO, as on a disk that died. Reads the
	// kernel answers from its page cache do not reach the layer.
	Fail bool `json:"fail,omitempty"`
	// Slow: each write and each fsync waits this long before it is done.
	Slow time.Duration `json:"slow,omitempty"`
	// Size: the directory holds at most this many bytes, counted as
	// space.go counts them; a write or allocation that would take more
	// fails with ENOSPC, as on a file system of that size that fills. A
	// directory that holds more already is full at once; space that
	// files free (a truncation, a removal) takes writes again.
	Size int64 `json:"size,omitempty"`
	// Free: the directory's size is what its files take when the fault
	// is set plus this much (Hits.Limit says it), so that the broker
	// fills it after writing Free more, however much it held before.
	Free int64 `json:"free,omitempty"`
}

// String says the fault in the words of the layer's log.
func (f Fault) String() string {
	switch {
	case f.Fail:
		return "failed (every operation: EIO)"
	case f.Full:
		return "full (writes: ENOSPC)"
	case f.Slow > 0:
		return fmt.Sprintf("slow (each write and fsync waits %v)", f.Slow)
	case f.Size > 0:
		return fmt.Sprintf("%d bytes in size (writes past it: ENOSPC)", f.Size)
	case f.Free > 0:
		return fmt.Sprintf("%d bytes more than its files take (writes past it: ENOSPC)", f.Free)
	}
	return "healthy"
}

// Hits counts what a fault did since it was set: the operations it
// refused and those it delayed. They prove that the fault landed: a
// fault that no operation met changed nothing.
type Hits struct {
	Refused int64 `json:"refused"` // operations answered ENOSPC or EIO
	Delayed int64 `json:"delayed"` // writes and fsyncs that waited
	// Used is the space the directory's files take now (space.go), with
	// or without a fault: what a size limit is measured against.
	Used int64 `json:"used"`
	// Limit is the size in force (Fault.Size, or what Fault.Free made
	// of it), 0 for none.
	Limit int64 `json:"limit,omitempty"`
}

// faultState is the fault in force, its hits and the space the files
// take. The fault is read once an operation: one atomic load on the hot
// path.
type faultState struct {
	fault            atomic.Pointer[Fault]
	refused, delayed atomic.Int64
	used             atomic.Int64 // bytes, as space.go counts them
	limit            atomic.Int64 // the size in force, 0 for none
}

// SetFault puts f in force from now on and starts its counts afresh.
func (fs *FS) SetFault(f Fault) {
	limit := f.Size
	if f.Free > 0 {
		limit = fs.faults.used.Load() + f.Free
	}
	fs.faults.limit.Store(limit)
	fs.faults.refused.Store(0)
	fs.faults.delayed.Store(0)
	fs.faults.fault.Store(&f)
}

// FaultNow is the fault in force and what it did so far.
func (fs *FS) FaultNow() (Fault, Hits) {
	var f Fault
	if p := fs.faults.fault.Load(); p != nil {
		f = *p
	}
	return f, Hits{Refused: fs.faults.refused.Load(), Delayed: fs.faults.delayed.Load(), Used: fs.faults.used.Load(), Limit: fs.faults.limit.Load()}
}

// failed answers EIO when the disk failed; every operation asks it first.
func (fs *FS) failed() fuse.Status {
	if p := fs.faults.fault.Load(); p != nil && p.Fail {
		fs.faults.refused.Add(1)
		return fuse.EIO
	}
	return fuse.OK
}

// full answers ENOSPC when the disk is full or EIO when it failed; an
// allocation asks it first.
func (fs *FS) full() fuse.Status {
	p := fs.faults.fault.Load()
	switch {
	case p == nil:
	case p.Fail:
		fs.faults.refused.Add(1)
		return fuse.EIO
	case p.Full:
		fs.faults.refused.Add(1)
		return fuse.Status(syscall.ENOSPC)
	}
	return fuse.OK
}

// writing is full for a write that ends past size (EIO for any write
// when the disk failed), then the wait of a slow disk: a write of f asks
// it first.
func (fs *FS) writing(f *fileData, end int64) fuse.Status {
	if p := fs.faults.fault.Load(); p != nil && p.Full && !p.Fail {
		f.mu.Lock()
		size := f.size
		f.mu.Unlock()
		if end <= size {
			fs.slow()
			return fuse.OK
		}
	}
	if st := fs.full(); !st.Ok() {
		return st
	}
	fs.slow()
	return fuse.OK
}

// syncing is failed, then the wait of a slow disk: an fsync asks it first.
func (fs *FS) syncing() fuse.Status {
	if st := fs.failed(); !st.Ok() {
		return st
	}
	fs.slow()
	return fuse.OK
}

// slow waits out a slow disk.
func (fs *FS) slow() {
	if p := fs.faults.fault.Load(); p != nil && p.Slow > 0 {
		fs.faults.delayed.Add(1)
		time.Sleep(p.Slow)
	}
}
