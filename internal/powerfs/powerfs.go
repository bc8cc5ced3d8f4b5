// Package powerfs is a FUSE file system that loses what a machine losing
// power loses. It serves a backing directory, which holds exactly what is
// durable, and keeps everything written to it in memory until it is
// fsynced: kill the server process (or unmount it) and only what was
// durable remains, as after a power cut. kafkabook puts each node's Kafka
// data directory on it to run `powerloss`.
//
// # What is durable when
//
// The model is Linux ext4 with its defaults (data=ordered, delayed
// allocation, a journal) at the moment power fails before the kernel's own
// writeback, which would otherwise write dirty data out after about 30 s.
// It never writes back by itself: unsynced data waits for an fsync for as
// long as the server lives.
//
//   - File content (write, and the stores to a shared memory mapping that
//     the kernel writes back to it) becomes durable when that file is
//     fsynced or fdatasynced, through any of its handles; msync arrives as
//     an fsync. A file's size grows with its content: an append not yet
//     fsynced is gone after a power loss, and the file is as long as it
//     was at its last fsync.
//   - Namespace changes (create, mkdir, unlink, rmdir, rename) and explicit
//     size changes (truncate, ftruncate, fallocate) are metadata: they go
//     into one journal, in order, and every fsync of any file or directory
//     commits all of it, as ext4's fsync commits the running journal
//     transaction with every metadata change made so far. So what survives
//     is always a prefix of the metadata changes; a file created and never
//     fsynced survives, empty, when something else was fsynced after it
//     (ext4's zero-length files); a directory fsync makes the entries in it
//     durable, and so does an fsync of a file in it.
//   - Not modelled: ext4's auto_da_alloc (which writes a file's data
//     before a rename or truncate replaces an older file — this layer is
//     ext4 mounted with noauto_da_alloc), torn writes inside a block, and
//     the loss of data that was fsynced (disk caches are taken to honour
//     flushes).
//
// Hard links, symbolic links, device nodes, extended attributes and
// RENAME_EXCHANGE are refused; Kafka uses none of them. POSIX locks are
// kept by the kernel, per mount.
package powerfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// node is one file or directory of the current namespace, or one that was
// removed from it and is still known to the kernel.
type node struct {
	ino      uint64
	dir      bool
	mode     uint32 // permission bits
	uid, gid uint32
	ctime    time.Time
	parent   *node // nil for the root, and once removed
	name     string
	children map[string]*node // directories
	mtime    time.Time        // directories; files keep theirs in f
	f        *fileData        // regular files
}

// path is the node's path relative to the root, "" for the root itself.
func (n *node) path() string {
	if n.parent == nil {
		return ""
	}
	return filepath.Join(n.parent.path(), n.name)
}

// removed reports whether the node is no longer in the namespace.
func (n *node) removed() bool { return n.parent == nil && n.ino != fuse.FUSE_ROOT_ID }

// opKind is a kind of journal entry.
type opKind int

const (
	opCreate opKind = iota
	opMkdir
	opUnlink
	opRmdir
	opRename
	opTruncate
	opChmod
)

// String names the change for an error: "rename a/b -> a/c".
func (o op) String() string {
	kinds := map[opKind]string{opCreate: "create", opMkdir: "mkdir", opUnlink: "unlink", opRmdir: "rmdir", opRename: "rename", opTruncate: "truncate", opChmod: "chmod"}
	s := kinds[o.kind] + " " + o.path
	if o.kind == opRename {
		s += " -> " + o.to
	}
	return s
}

// op is one metadata change not yet durable. Paths are those the change
// had when it was made; applied in order to the backing directory, they
// turn it into the namespace as it was after the last of them.
type op struct {
	kind     opKind
	path, to string
	node     *node // create, unlink, rename (the node replaced), truncate
	mode     uint32
	size     int64
}

// FS is the file system: the namespace and every file's content as they
// are now, and the journal of metadata changes not yet durable.
type FS struct {
	fuse.RawFileSystem
	backing string

	// mu guards the namespace (parent, name, children of every node), the
	// journal and the handles. A file's content has its own lock, taken
	// after mu when both are needed.
	mu      sync.Mutex
	journal []op
	nodes   map[uint64]*node
	nextIno uint64
	handles map[uint64]*handle
	nextFh  uint64

	faults faultState // what the disk below does wrong (fault.go)
}

// handle is an open file or directory.
type handle struct {
	node    *node
	entries []fuse.DirEntry // directories: the listing taken at open
}

// New reads the backing directory, which becomes the durable state, into
// a file system that serves it.
func New(backing string) (*FS, error) {
	backing, err := filepath.Abs(backing)
	if err != nil {
		return nil, err
	}
	fs := &FS{
		RawFileSystem: fuse.NewDefaultRawFileSystem(),
		backing:       backing,
		nodes:         map[uint64]*node{},
		nextIno:       fuse.FUSE_ROOT_ID,
		handles:       map[uint64]*handle{},
	}
	var st unix.Stat_t
	if err := unix.Stat(backing, &st); err != nil {
		return nil, fmt.Errorf("backing directory: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return nil, fmt.Errorf("backing directory %s is not a directory", backing)
	}
	root := fs.newNode(true, st.Mode&07777, st.Uid, st.Gid)
	root.mtime = time.Unix(st.Mtim.Unix())
	if err := fs.load(root, backing); err != nil {
		fs.closeAll()
		return nil, err
	}
	return fs, nil
}

// load adds what the backing directory dir holds under n.
func (fs *FS) load(n *node, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			c := fs.newNode(true, st.Mode&07777, st.Uid, st.Gid)
			c.mtime = time.Unix(st.Mtim.Unix())
			link(n, e.Name(), c)
			if err := fs.load(c, p); err != nil {
				return err
			}
		case unix.S_IFREG:
			f, err := os.OpenFile(p, os.O_RDWR, 0)
			if err != nil {
				return err
			}
			c := fs.newNode(false, st.Mode&07777, st.Uid, st.Gid)
			c.f.backing = f
			c.f.size, c.f.base = st.Size, st.Size
			// The blocks the durable file takes, as its written prefix
			// (space.go): a sparse index file takes what was written.
			if err := c.f.allocate(min(st.Size, st.Blocks*512)); err != nil {
				f.Close()
				return err
			}
			c.f.mtime = time.Unix(st.Mtim.Unix())
			link(n, e.Name(), c)
		default:
			return fmt.Errorf("%s: only files and directories can be served, not %s", p, e.Type())
		}
	}
	return nil
}

func (fs *FS) newNode(dir bool, mode, uid, gid uint32) *node {
	n := &node{ino: fs.nextIno, dir: dir, mode: mode, uid: uid, gid: gid, ctime: time.Now()}
	fs.nextIno++
	if dir {
		n.children = map[string]*node{}
		n.mtime = n.ctime
	} else {
		n.f = &fileData{mtime: n.ctime, space: &fs.faults}
	}
	fs.nodes[n.ino] = n
	return n
}

func link(parent *node, name string, c *node) {
	parent.children[name] = c
	c.parent, c.name = parent, name
	parent.mtime = time.Now()
}

func unlink(c *node) {
	delete(c.parent.children, c.name)
	c.parent.mtime = time.Now()
	c.parent = nil
}

// closeAll closes every durable file it holds open.
func (fs *FS) closeAll() {
	for _, n := range fs.nodes {
		if n.f != nil && n.f.backing != nil {
			n.f.backing.Close()
			n.f.backing = nil
		}
	}
}

// commit applies the journal to the backing directory, in order, and
// fsyncs every directory it changed. Called with fs.mu held.
func (fs *FS) commit() error {
	if len(fs.journal) == 0 {
		return nil
	}
	dirs := map[string]bool{}
	for len(fs.journal) > 0 {
		o := fs.journal[0]
		if err := fs.apply(o, dirs); err != nil {
			return fmt.Errorf("committing the journal to %s: %s: %w", fs.backing, o, err)
		}
		fs.journal = fs.journal[1:]
	}
	fs.journal = nil
	for _, d := range sortedKeys(dirs) {
		// A directory changed and then renamed or removed in the same
		// journal is gone from its old path: the rename or removal made
		// its parent's change, which is synced too.
		if err := syncDir(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// apply makes one journal entry durable, noting the directories it
// changed in dirs.
func (fs *FS) apply(o op, dirs map[string]bool) error {
	at := filepath.Join(fs.backing, o.path)
	switch o.kind {
	case opCreate:
		f, err := os.OpenFile(at, os.O_RDWR|os.O_CREATE|os.O_TRUNC, os.FileMode(o.mode))
		if err != nil {
			return err
		}
		o.node.f.mu.Lock()
		if o.node.f.backing != nil {
			o.node.f.backing.Close()
		}
		o.node.f.backing = f
		o.node.f.mu.Unlock()
		dirs[filepath.Dir(at)] = true
	case opMkdir:
		if err := os.Mkdir(at, os.FileMode(o.mode)); err != nil {
			return err
		}
		dirs[filepath.Dir(at)] = true
	case opUnlink:
		if err := os.Remove(at); err != nil {
			return err
		}
		o.node.f.forget()
		dirs[filepath.Dir(at)] = true
	case opRmdir:
		if err := os.Remove(at); err != nil {
			return err
		}
		dirs[filepath.Dir(at)] = true
	case opRename:
		to := filepath.Join(fs.backing, o.to)
		if err := os.Rename(at, to); err != nil {
			return err
		}
		if o.node != nil && o.node.f != nil { // the file it replaced
			o.node.f.forget()
		}
		dirs[filepath.Dir(at)] = true
		dirs[filepath.Dir(to)] = true
	case opTruncate:
		o.node.f.mu.Lock()
		defer o.node.f.mu.Unlock()
		if o.node.f.backing != nil {
			if err := o.node.f.backing.Truncate(o.size); err != nil {
				return err
			}
			if err := o.node.f.backing.Sync(); err != nil {
				return err
			}
		}
	case opChmod:
		if err := os.Chmod(at, os.FileMode(o.mode)); err != nil {
			return err
		}
	}
	return nil
}

func syncDir(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Fsync(fd); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// sync makes n durable: the journal, then n's content when it is a file.
func (fs *FS) sync(n *node) error {
	fs.mu.Lock()
	err := fs.commit()
	fs.mu.Unlock()
	if err != nil || n.f == nil {
		return err
	}
	return n.f.flush()
}

// Stats is what a power loss would throw away now.
type Stats struct {
	Bytes    int64 `json:"bytes"`    // bytes written and not fsynced
	Files    int   `json:"files"`    // files they were written to
	Metadata int   `json:"metadata"` // metadata changes not committed
}

// Pending says what is not durable yet.
func (fs *FS) Pending() Stats {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	s := Stats{Metadata: len(fs.journal)}
	for _, n := range fs.nodes {
		if n.f == nil {
			continue
		}
		n.f.mu.Lock()
		if n.f.pending > 0 {
			s.Bytes += n.f.pending
			s.Files++
		}
		n.f.mu.Unlock()
	}
	return s
}

// errno turns an error into the errno FUSE answers with.
func errno(err error) fuse.Status {
	if err == nil {
		return fuse.OK
	}
	return fuse.ToStatus(err)
}
