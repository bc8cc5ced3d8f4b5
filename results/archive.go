package results

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kafkabook/kafkabook/internal/atomicfile"
)

// ArchivedEventsFileName is the event stream of a run whose results.json
// was written and loads: events.jsonl gzipped. A run that crashed keeps
// its plain stream, which Replay reads as it is.
const ArchivedEventsFileName = EventsFileName + ".gz"

// ArchiveEvents gzips dir/events.jsonl into dir/events.jsonl.gz and
// removes the plain stream, once dir/results.json loads: the stream is
// then kept only as the raw record of every sample, which the archive
// holds at a tenth of the size. A dir without events.jsonl is left as it
// is; a dir whose results.json does not load keeps its plain stream, so a
// crashed run can still be replayed by hand.
func ArchiveEvents(dir string) error {
	plain := filepath.Join(dir, EventsFileName)
	data, err := os.ReadFile(plain)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if _, err := Load(dir); err != nil {
		return fmt.Errorf("results: %s kept unarchived: %w", plain, err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	zw.Name = EventsFileName
	if _, err := zw.Write(data); err != nil {
		return fmt.Errorf("results: gzip %s: %w", plain, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("results: gzip %s: %w", plain, err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ArchivedEventsFileName), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := os.Remove(plain); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// OpenEvents opens a run's event stream for reading: path, or path.gz
// when only the archive exists (see ArchiveEvents). A gzipped stream is
// decompressed as it is read, within the bound below.
func OpenEvents(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && !strings.HasSuffix(path, ".gz") {
		if g, gerr := os.Open(path + ".gz"); gerr == nil {
			f, err = g, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	br := bufio.NewReader(f)
	if magic, _ := br.Peek(2); len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		return readCloser{br, f}, nil
	}
	zr, err := gunzip(br)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("results: %s: %w", f.Name(), err)
	}
	return readCloser{zr, f}, nil
}

// ReadEvents returns the content of a run's event stream, plain or
// archived (see OpenEvents).
func ReadEvents(path string) ([]byte, error) {
	rc, err := OpenEvents(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	return data, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// gzipExpansion bounds how much a gzipped stream may expand: at most
// gzipRatio times the compressed bytes read plus gzipSlack. kafkabook's
// streams gzip about 3 to 15 times.
const (
	gzipRatio = 64
	gzipSlack = 64 << 20
)

// gunzip returns the decompressed stream of r, which fails once it grows
// past the bound above rather than fill memory.
func gunzip(r io.Reader) (io.Reader, error) {
	cr := &countingReader{r: r}
	zr, err := gzip.NewReader(cr)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return &boundedReader{r: zr, in: cr}, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type boundedReader struct {
	r   io.Reader
	in  *countingReader
	out int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.out += int64(n)
	if b.out > gzipRatio*b.in.n+gzipSlack {
		return n, fmt.Errorf("gzip: %d bytes from %d compressed: more than %d times its size, not an event stream", b.out, b.in.n, gzipRatio)
	}
	return n, err
}

// Reencode rewrites the evidence of the run in dir in the current schema:
// results.json of any version is loaded (and so upgraded: timelines become
// change points) and written again, then events.jsonl is archived (see
// ArchiveEvents). A dir without results.json is left as it is: its stream
// is the only evidence of a run that stopped.
func Reencode(dir string) error {
	r, err := Load(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := r.Write(dir); err != nil {
		return err
	}
	return ArchiveEvents(dir)
}
