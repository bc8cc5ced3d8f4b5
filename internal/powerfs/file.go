package powerfs

import (
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"time"
)

// chunkSize is the unit in which a file's unsynced content is kept: a
// write copies the chunks it touches from the durable file (or zeros)
// once, and later writes to them cost a copy only. Appends, which is
// most of what Kafka writes, never read the durable file.
const chunkSize = 64 << 10

// fileData is the content of one regular file: the durable file in the
// backing directory plus, in memory, everything written since the last
// fsync. The file's current content is, byte by byte: the chunk holding
// it when there is one; else the durable file below base; else zero; and
// the file ends at size.
type fileData struct {
	mu      sync.Mutex
	backing *os.File // the durable file; nil until its creation is committed, or once its removal is
	size    int64    // current size
	// base is where the durable file stops being current: a truncation
	// below the durable size cuts it, and what lies beyond reads as zero
	// even before the truncation itself is durable.
	base    int64
	chunks  map[int64][]byte // chunk index → chunkSize bytes of current content
	pending int64            // bytes written since the last fsync, for Stats
	mtime   time.Time
	opens   int  // open handles
	gone    bool // its removal is durable: nothing will be flushed to it again
	// written is the file's written prefix (space.go): what it takes on
	// disk, in the directory's count kept in space.
	written int64
	space   *faultState
}

// read copies the current content at off into dest and returns how many
// bytes it copied (short at the end of the file).
func (f *fileData) read(dest []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off >= f.size {
		return 0, nil
	}
	n := int(min(int64(len(dest)), f.size-off))
	dest = dest[:n]
	for len(dest) > 0 {
		idx, in := off/chunkSize, off%chunkSize
		step := int(min(int64(len(dest)), chunkSize-in))
		if c, ok := f.chunks[idx]; ok {
			copy(dest[:step], c[in:])
		} else if err := f.readBase(dest[:step], off); err != nil {
			return 0, err
		}
		dest, off = dest[step:], off+int64(step)
	}
	return n, nil
}

// readBase fills dest with what the durable file holds at off below
// base, and zeros beyond.
func (f *fileData) readBase(dest []byte, off int64) error {
	n := 0
	if f.backing != nil && off < f.base {
		m, err := f.backing.ReadAt(dest[:min(int64(len(dest)), f.base-off)], off)
		if err != nil && err != io.EOF {
			return err
		}
		n = m
	}
	clear(dest[n:])
	return nil
}

// chunk returns the chunk with index idx, made from the durable content
// when it is not there yet. A write that covers the whole chunk does not
// need that content: full says so.
func (f *fileData) chunk(idx int64, full bool) ([]byte, error) {
	if c, ok := f.chunks[idx]; ok {
		return c, nil
	}
	c := make([]byte, chunkSize)
	if !full {
		if err := f.readBase(c, idx*chunkSize); err != nil {
			return nil, err
		}
	}
	if f.chunks == nil {
		f.chunks = map[int64][]byte{}
	}
	f.chunks[idx] = c
	return c, nil
}

// write puts data at off, in memory, as much of it as fits in a
// size-limited directory (space.go), and returns how much that was.
func (f *fileData) write(data []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.fits(off, len(data))
	if err != nil {
		return 0, err
	}
	data = data[:n]
	f.pending += int64(len(data))
	for len(data) > 0 {
		idx, in := off/chunkSize, off%chunkSize
		step := int(min(int64(len(data)), chunkSize-in))
		c, err := f.chunk(idx, step == chunkSize)
		if err != nil {
			return 0, err
		}
		copy(c[in:], data[:step])
		data, off = data[step:], off+int64(step)
		f.size = max(f.size, off)
	}
	f.mtime = time.Now()
	return n, nil
}

// truncate sets the current size: chunks past it go, the tail of the
// chunk it ends in is zeroed (a later extension reads zeros there), and
// the durable content past it is no longer current.
func (f *fileData) truncate(size int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if size < f.size {
		for idx, c := range f.chunks {
			start := idx * chunkSize
			switch {
			case start >= size:
				delete(f.chunks, idx)
			case start+chunkSize > size:
				clear(c[size-start:])
			}
		}
		f.base = min(f.base, size)
	}
	if size < f.written {
		f.space.give(f.written, size)
		f.written = size
	}
	f.size = size
	f.mtime = time.Now()
}

// flush writes the current content into the durable file and fsyncs it.
// The file's creation must be durable already (the caller commits the
// journal first); a file whose removal is durable has nowhere to go.
func (f *fileData) flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.backing == nil {
		return nil
	}
	for _, idx := range slices.Sorted(maps.Keys(f.chunks)) {
		start := idx * chunkSize
		if start >= f.size {
			continue
		}
		c := f.chunks[idx][:min(chunkSize, f.size-start)]
		if _, err := f.backing.WriteAt(c, start); err != nil {
			return err
		}
	}
	if err := f.backing.Truncate(f.size); err != nil {
		return err
	}
	if err := f.backing.Sync(); err != nil {
		return err
	}
	f.chunks = nil
	f.base = f.size
	f.pending = 0
	return nil
}

// drop forgets the unsynced content of a file no one can reach any more,
// and gives back the space it took.
func (f *fileData) drop() {
	f.chunks = nil
	f.pending = 0
	f.space.give(f.written, 0)
	f.written = 0
}

// forget marks the file as removed from the durable directory and closes
// its backing file once no handle holds it.
func (f *fileData) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gone = true
	if f.opens == 0 && f.backing != nil {
		f.backing.Close()
		f.backing = nil
	}
}
