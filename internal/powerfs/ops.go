package powerfs

import (
	"log"
	"slices"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// The kernel may cache names and attributes this long. Only this file
// system changes them, through the kernel, so the kernel's copy is never
// stale for long; a second is what libfuse uses.
const cacheTimeout = time.Second

func (fs *FS) String() string { return "powerfs(" + fs.backing + ")" }

// node returns the node with id; fs.mu must be held.
func (fs *FS) node(id uint64) *node { return fs.nodes[id] }

// fill writes n's attributes; fs.mu must be held.
func (fs *FS) fill(n *node, a *fuse.Attr) {
	a.Ino = n.ino
	a.Uid, a.Gid = n.uid, n.gid
	a.Blksize = 4096
	a.Nlink = 1
	if n.removed() {
		a.Nlink = 0
	}
	mtime := n.mtime
	if n.dir {
		a.Mode = syscall.S_IFDIR | n.mode
		a.Nlink = 2
		a.Size = 4096
	} else {
		a.Mode = syscall.S_IFREG | n.mode
		n.f.mu.Lock()
		a.Size = uint64(n.f.size)
		mtime = n.f.mtime
		n.f.mu.Unlock()
	}
	a.Blocks = (a.Size + 511) / 512
	a.SetTimes(&mtime, &mtime, &n.ctime)
}

func (fs *FS) entry(n *node, out *fuse.EntryOut) {
	out.NodeId = n.ino
	out.Generation = 1
	out.SetEntryTimeout(cacheTimeout)
	out.SetAttrTimeout(cacheTimeout)
	fs.fill(n, &out.Attr)
}

// child looks up name in directory id; fs.mu must be held.
func (fs *FS) child(id uint64, name string) (parent, c *node, st fuse.Status) {
	p := fs.node(id)
	if p == nil {
		return nil, nil, fuse.Status(syscall.ESTALE)
	}
	if !p.dir {
		return p, nil, fuse.Status(syscall.ENOTDIR)
	}
	c = p.children[name]
	if c == nil {
		return p, nil, fuse.ENOENT
	}
	return p, c, fuse.OK
}

// locked runs f with fs.mu held, unless the disk has failed: an operation
// that a failed disk refuses answers EIO before it looks at anything.
func (fs *FS) locked(f func() fuse.Status) fuse.Status {
	if st := fs.failed(); !st.Ok() {
		return st
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return f()
}

// onNode is locked for an operation on node id, which must still exist.
func (fs *FS) onNode(id uint64, f func(n *node) fuse.Status) fuse.Status {
	return fs.locked(func() fuse.Status {
		n := fs.node(id)
		if n == nil {
			return fuse.Status(syscall.ESTALE)
		}
		return f(n)
	})
}

// onChild is locked for an operation on the entry name of directory id,
// which must exist.
func (fs *FS) onChild(id uint64, name string, f func(c *node) fuse.Status) fuse.Status {
	return fs.locked(func() fuse.Status {
		_, c, st := fs.child(id, name)
		if !st.Ok() {
			return st
		}
		return f(c)
	})
}

func (fs *FS) Lookup(cancel <-chan struct{}, h *fuse.InHeader, name string, out *fuse.EntryOut) fuse.Status {
	return fs.onChild(h.NodeId, name, func(c *node) fuse.Status {
		fs.entry(c, out)
		return fuse.OK
	})
}

func (fs *FS) GetAttr(cancel <-chan struct{}, in *fuse.GetAttrIn, out *fuse.AttrOut) fuse.Status {
	return fs.onNode(in.NodeId, func(n *node) fuse.Status {
		fs.fill(n, &out.Attr)
		out.SetTimeout(cacheTimeout)
		return fuse.OK
	})
}

func (fs *FS) SetAttr(cancel <-chan struct{}, in *fuse.SetAttrIn, out *fuse.AttrOut) fuse.Status {
	return fs.onNode(in.NodeId, func(n *node) fuse.Status {
		if mode, ok := in.GetMode(); ok {
			n.mode = mode & 07777
			n.ctime = time.Now()
			if !n.removed() {
				fs.journal = append(fs.journal, op{kind: opChmod, path: n.path(), mode: n.mode})
			}
		}
		if uid, ok := in.GetUID(); ok {
			n.uid = uid
		}
		if gid, ok := in.GetGID(); ok {
			n.gid = gid
		}
		if size, ok := in.GetSize(); ok {
			if n.dir {
				return fuse.Status(syscall.EISDIR)
			}
			n.f.truncate(int64(size))
			fs.journal = append(fs.journal, op{kind: opTruncate, node: n, size: int64(size)})
		}
		if mtime, ok := in.GetMTime(); ok {
			if n.dir {
				n.mtime = mtime
			} else {
				n.f.mu.Lock()
				n.f.mtime = mtime
				n.f.mu.Unlock()
			}
		}
		fs.fill(n, &out.Attr)
		out.SetTimeout(cacheTimeout)
		return fuse.OK
	})
}

func (fs *FS) Mkdir(cancel <-chan struct{}, in *fuse.MkdirIn, name string, out *fuse.EntryOut) fuse.Status {
	return fs.locked(func() fuse.Status {
		p, c, st := fs.child(in.NodeId, name)
		switch {
		case c != nil:
			return fuse.Status(syscall.EEXIST)
		case st != fuse.ENOENT:
			return st
		}
		c = fs.newNode(true, in.Mode&07777, in.Uid, in.Gid)
		link(p, name, c)
		fs.journal = append(fs.journal, op{kind: opMkdir, path: c.path(), mode: c.mode})
		fs.entry(c, out)
		return fuse.OK
	})
}

func (fs *FS) Create(cancel <-chan struct{}, in *fuse.CreateIn, name string, out *fuse.CreateOut) fuse.Status {
	return fs.locked(func() fuse.Status {
		p, c, st := fs.child(in.NodeId, name)
		switch {
		case c != nil && in.Flags&syscall.O_EXCL != 0:
			return fuse.Status(syscall.EEXIST)
		case c != nil && c.dir:
			return fuse.Status(syscall.EISDIR)
		case c != nil:
			// Created by someone else since the kernel looked: open it.
			if in.Flags&syscall.O_TRUNC != 0 {
				c.f.truncate(0)
				fs.journal = append(fs.journal, op{kind: opTruncate, node: c})
			}
		case st != fuse.ENOENT:
			return st
		default:
			c = fs.newNode(false, in.Mode&07777, in.Uid, in.Gid)
			link(p, name, c)
			fs.journal = append(fs.journal, op{kind: opCreate, path: c.path(), node: c, mode: c.mode})
		}
		out.Fh = fs.open(c)
		fs.entry(c, &out.EntryOut)
		return fuse.OK
	})
}

// open registers a handle of n; fs.mu must be held.
func (fs *FS) open(n *node) uint64 {
	fs.nextFh++
	fs.handles[fs.nextFh] = &handle{node: n}
	if n.f != nil {
		n.f.mu.Lock()
		n.f.opens++
		n.f.mu.Unlock()
	}
	return fs.nextFh
}

func (fs *FS) Unlink(cancel <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	return fs.onChild(h.NodeId, name, func(c *node) fuse.Status {
		if c.dir {
			return fuse.Status(syscall.EISDIR)
		}
		fs.journal = append(fs.journal, op{kind: opUnlink, path: c.path(), node: c})
		unlink(c)
		fs.forget(c)
		return fuse.OK
	})
}

// forget drops the unsynced content of a file that has left the namespace
// once no handle can write it either: nothing can make it durable now.
func (fs *FS) forget(n *node) {
	if n.f == nil {
		return
	}
	n.f.mu.Lock()
	if n.f.opens == 0 {
		n.f.drop()
	}
	n.f.mu.Unlock()
}

func (fs *FS) Rmdir(cancel <-chan struct{}, h *fuse.InHeader, name string) fuse.Status {
	return fs.onChild(h.NodeId, name, func(c *node) fuse.Status {
		if !c.dir {
			return fuse.Status(syscall.ENOTDIR)
		}
		if len(c.children) > 0 {
			return fuse.Status(syscall.ENOTEMPTY)
		}
		fs.journal = append(fs.journal, op{kind: opRmdir, path: c.path()})
		unlink(c)
		return fuse.OK
	})
}

func (fs *FS) Rename(cancel <-chan struct{}, in *fuse.RenameIn, oldName, newName string) fuse.Status {
	return fs.locked(func() fuse.Status {
		_, src, st := fs.child(in.NodeId, oldName)
		if !st.Ok() {
			return st
		}
		np, dst, st := fs.child(in.Newdir, newName)
		if st != fuse.OK && st != fuse.ENOENT {
			return st
		}
		if in.Flags&unix.RENAME_EXCHANGE != 0 || in.Flags&^uint32(unix.RENAME_NOREPLACE) != 0 {
			return fuse.Status(syscall.EINVAL)
		}
		if dst == src {
			return fuse.OK
		}
		for a := np; a != nil; a = a.parent {
			if a == src {
				return fuse.Status(syscall.EINVAL) // into itself
			}
		}
		if dst != nil {
			switch {
			case in.Flags&unix.RENAME_NOREPLACE != 0:
				return fuse.Status(syscall.EEXIST)
			case src.dir && !dst.dir:
				return fuse.Status(syscall.ENOTDIR)
			case !src.dir && dst.dir:
				return fuse.Status(syscall.EISDIR)
			case dst.dir && len(dst.children) > 0:
				return fuse.Status(syscall.ENOTEMPTY)
			}
		}
		o := op{kind: opRename, path: src.path(), to: joinPath(np.path(), newName)}
		if dst != nil {
			o.node = dst
			unlink(dst)
			fs.forget(dst)
		}
		fs.journal = append(fs.journal, o)
		unlink(src)
		link(np, newName, src)
		return fuse.OK
	})
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func (fs *FS) Open(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	return fs.onNode(in.NodeId, func(n *node) fuse.Status {
		if n.dir {
			return fuse.Status(syscall.EISDIR)
		}
		// No FOPEN_DIRECT_IO: reads and writes go through the kernel's page
		// cache, which shared memory mappings need. Without a writeback cache
		// every write still reaches this file system at once, and a mapping's
		// dirty pages reach it when the kernel writes them back (msync,
		// munmap, memory pressure), always before the fsync that msync sends.
		out.Fh = fs.open(n)
		return fuse.OK
	})
}

// file returns the content of node id.
func (fs *FS) file(id uint64) (*fileData, fuse.Status) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.node(id)
	switch {
	case n == nil:
		return nil, fuse.Status(syscall.ESTALE)
	case n.dir:
		return nil, fuse.Status(syscall.EISDIR)
	}
	return n.f, fuse.OK
}

func (fs *FS) Read(cancel <-chan struct{}, in *fuse.ReadIn, buf []byte) (fuse.ReadResult, fuse.Status) {
	if st := fs.failed(); !st.Ok() {
		return nil, st
	}
	f, st := fs.file(in.NodeId)
	if !st.Ok() {
		return nil, st
	}
	n, err := f.read(buf[:min(len(buf), int(in.Size))], int64(in.Offset))
	if err != nil {
		return nil, errno(err)
	}
	return fuse.ReadResultData(buf[:n]), fuse.OK
}

func (fs *FS) Write(cancel <-chan struct{}, in *fuse.WriteIn, data []byte) (uint32, fuse.Status) {
	return fs.Writev(cancel, in, [][]byte{data})
}

func (fs *FS) Writev(cancel <-chan struct{}, in *fuse.WriteIn, data [][]byte) (uint32, fuse.Status) {
	f, st := fs.file(in.NodeId)
	if !st.Ok() {
		return 0, st
	}
	off := int64(in.Offset)
	end := off
	for _, d := range data {
		end += int64(len(d))
	}
	if st := fs.writing(f, end); !st.Ok() {
		return 0, st
	}
	var n uint32
	for _, d := range data {
		wrote, err := f.write(d, off)
		n += uint32(wrote)
		switch {
		case err != nil && n == 0:
			return 0, errno(err)
		case err != nil || wrote < len(d):
			return n, fuse.OK // a short write: what fitted
		}
		off += int64(wrote)
	}
	return n, fuse.OK
}

func (fs *FS) Fallocate(cancel <-chan struct{}, in *fuse.FallocateIn) fuse.Status {
	const keepSize = 1 // FALLOC_FL_KEEP_SIZE
	switch in.Mode {
	case keepSize:
		if st := fs.full(); !st.Ok() {
			return st
		}
		f, st := fs.file(in.NodeId)
		if !st.Ok() {
			return st
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		return errno(f.allocate(int64(in.Offset + in.Length)))
	case 0:
	default:
		return fuse.Status(syscall.EOPNOTSUPP)
	}
	if st := fs.full(); !st.Ok() {
		return st
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := fs.node(in.NodeId)
	if n == nil || n.dir {
		return fuse.Status(syscall.EBADF)
	}
	end := int64(in.Offset + in.Length)
	n.f.mu.Lock()
	grow := end > n.f.size
	err := n.f.allocate(end)
	n.f.mu.Unlock()
	if err != nil {
		return errno(err)
	}
	if grow {
		n.f.truncate(end)
		fs.journal = append(fs.journal, op{kind: opTruncate, node: n, size: end})
	}
	return fuse.OK
}

func (fs *FS) Fsync(cancel <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	if st := fs.syncing(); !st.Ok() {
		return st
	}
	fs.mu.Lock()
	n := fs.node(in.NodeId)
	fs.mu.Unlock()
	if n == nil {
		return fuse.Status(syscall.ESTALE)
	}
	err := fs.sync(n)
	if err != nil {
		// The broker sees only the errno: the layer's log says which
		// change could not be made durable.
		log.Printf("fsync of %s: %v", n.path(), err)
	}
	return errno(err)
}

func (fs *FS) FsyncDir(cancel <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	return fs.Fsync(cancel, in)
}

func (fs *FS) Flush(cancel <-chan struct{}, in *fuse.FlushIn) fuse.Status { return fuse.OK }

func (fs *FS) Release(cancel <-chan struct{}, in *fuse.ReleaseIn) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	h := fs.handles[in.Fh]
	if h == nil {
		return
	}
	delete(fs.handles, in.Fh)
	n := h.node
	if n.f == nil {
		return
	}
	n.f.mu.Lock()
	defer n.f.mu.Unlock()
	n.f.opens--
	if n.f.opens > 0 || !n.removed() {
		return
	}
	n.f.drop()
	if n.f.gone && n.f.backing != nil {
		n.f.backing.Close()
		n.f.backing = nil
	}
}

func (fs *FS) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	return fs.onNode(in.NodeId, func(n *node) fuse.Status {
		if !n.dir {
			return fuse.Status(syscall.ENOTDIR)
		}
		h := &handle{node: n, entries: []fuse.DirEntry{
			{Name: ".", Mode: syscall.S_IFDIR, Ino: n.ino},
			{Name: "..", Mode: syscall.S_IFDIR, Ino: n.ino},
		}}
		if n.parent != nil {
			h.entries[1].Ino = n.parent.ino
		}
		names := make([]string, 0, len(n.children))
		for name := range n.children {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			c := n.children[name]
			mode := uint32(syscall.S_IFREG)
			if c.dir {
				mode = syscall.S_IFDIR
			}
			h.entries = append(h.entries, fuse.DirEntry{Name: name, Mode: mode, Ino: c.ino})
		}
		for i := range h.entries {
			h.entries[i].Off = uint64(i + 1)
		}
		fs.nextFh++
		fs.handles[fs.nextFh] = h
		out.Fh = fs.nextFh
		return fuse.OK
	})
}

func (fs *FS) ReadDir(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	h := fs.handles[in.Fh]
	if h == nil {
		return fuse.Status(syscall.EBADF)
	}
	for i := int(in.Offset); i < len(h.entries); i++ {
		if !out.AddDirEntry(h.entries[i]) {
			break
		}
	}
	return fuse.OK
}

func (fs *FS) ReleaseDir(in *fuse.ReleaseIn) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	delete(fs.handles, in.Fh)
}

func (fs *FS) StatFs(cancel <-chan struct{}, h *fuse.InHeader, out *fuse.StatfsOut) fuse.Status {
	var s unix.Statfs_t
	if err := unix.Statfs(fs.backing, &s); err != nil {
		return errno(err)
	}
	out.Blocks, out.Bfree, out.Bavail = s.Blocks, s.Bfree, s.Bavail
	// A size-limited directory (Fault.Size, Fault.Free) says its size and what is
	// left of it, as df shows a file system of that size.
	if limit := fs.faults.limit.Load(); limit > 0 && s.Frsize > 0 {
		free := max(0, limit-fs.faults.used.Load())
		out.Blocks = uint64(limit / s.Frsize)
		out.Bfree = uint64(free / s.Frsize)
		out.Bavail = out.Bfree
	}
	out.Files, out.Ffree = s.Files, s.Ffree
	out.Bsize, out.Frsize = uint32(s.Bsize), uint32(s.Frsize)
	out.NameLen = uint32(s.Namelen)
	return fuse.OK
}
