package powerfs

import "syscall"

// What the directory's files take on disk, for a size-limited directory
// (Fault.Size): a file takes its written prefix in whole blocks of
// blockSize, from offset 0 to the end of the furthest write or allocation
// it had, less what truncations cut. That is how a file system counts a
// file that is written from its start, which is how Kafka writes every
// file: segments and checkpoints by appending, and the index files,
// which it lengthens to log.index.size.max.bytes without writing (a
// sparse file, which takes no space), through a memory mapping from
// their start. A write into a hole past the written prefix counts the
// hole too: more than a file system would, never less. A file's space
// comes back once nothing can reach it (removed, and its last handle
// closed), as on a file system.
//
// A write that does not fit whole writes what fits, as a file system
// does (a short write: the caller's next write gets ENOSPC); an
// allocation that does not fit takes nothing.
const blockSize = 4 << 10

// blocks is n bytes in whole blocks.
func blocks(n int64) int64 { return (n + blockSize - 1) / blockSize * blockSize }

// grant takes the space for a file's written prefix to grow from was to
// end bytes, as far as a size limit in force lets it, and returns the end
// it took: end, or less when the directory fills first (at least was).
func (s *faultState) grant(was, end int64) int64 {
	for {
		used, to := s.used.Load(), end
		if limit := s.limit.Load(); limit > 0 {
			to = max(was, min(end, blocks(was)+max(0, limit-used)/blockSize*blockSize))
		}
		grow := blocks(to) - blocks(was)
		if grow <= 0 || s.used.CompareAndSwap(used, used+grow) {
			return to
		}
	}
}

// give accounts for a file whose written prefix shrinks from was to now
// bytes.
func (s *faultState) give(was, now int64) {
	if free := blocks(was) - blocks(now); free > 0 {
		s.used.Add(-free)
	}
}

// allocate takes the space of the file's first end bytes, all of it or,
// with ENOSPC, none; f.mu must be held.
func (f *fileData) allocate(end int64) error {
	if end <= f.written {
		return nil
	}
	if to := f.space.grant(f.written, end); to < end {
		f.space.give(to, f.written)
		f.space.refused.Add(1)
		return syscall.ENOSPC
	}
	f.written = end
	return nil
}

// fits takes the space for a write of n bytes at off and returns how many
// of them fit, or ENOSPC when none does; f.mu must be held.
func (f *fileData) fits(off int64, n int) (int, error) {
	end := off + int64(n)
	if end <= f.written {
		return n, nil
	}
	to := f.space.grant(f.written, end)
	if to <= off {
		f.space.give(to, f.written)
		f.space.refused.Add(1)
		return 0, syscall.ENOSPC
	}
	f.written = to
	return int(to - off), nil
}
