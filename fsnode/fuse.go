package fsnode

import (
	"context"
	"errors"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// longTimeout is the entry and attribute timeout of everything whose
// attributes can no longer change. Files whose size is still an estimate
// get 0 until they are opened (see shared/docs/clients-on-fuse.md).
const longTimeout = time.Hour

// dirNode is a directory of the mount.
type dirNode struct {
	fs.Inode
	t *Tree
	d *dir
}

// fileNode is a generated file of the mount.
type fileNode struct {
	fs.Inode
	t *Tree
	f *file
}

// linkNode is a symbolic link of the mount (an HDF5 soft or external link).
type linkNode struct {
	fs.Inode
	t      *Tree
	target string
}

var (
	_ fs.NodeLookuper       = (*dirNode)(nil)
	_ fs.NodeOpendirHandler = (*dirNode)(nil)
	_ fs.NodeGetattrer      = (*dirNode)(nil)
	_ fs.NodeGetxattrer     = (*dirNode)(nil)
	_ fs.NodeListxattrer    = (*dirNode)(nil)
	_ fs.NodeGetattrer      = (*fileNode)(nil)
	_ fs.NodeOpener         = (*fileNode)(nil)
	_ fs.NodeReader         = (*fileNode)(nil)
	_ fs.NodeGetxattrer     = (*fileNode)(nil)
	_ fs.NodeListxattrer    = (*fileNode)(nil)
	_ fs.NodeGetattrer      = (*linkNode)(nil)
	_ fs.NodeReadlinker     = (*linkNode)(nil)
)

// Lookup implements fs.NodeLookuper.
func (n *dirNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	return n.t.lookupNode(ctx, &n.Inode, n.d, name, out)
}

// lookupNode looks name up in directory d, whose inode is parent. It is
// implemented (rather than left to go-fuse's default) so that each
// child's own timeouts reach the kernel.
func (t *Tree) lookupNode(ctx context.Context, parent *fs.Inode, d *dir, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	e, err := t.lookup(d, name)
	if err != nil {
		errno := toErrno(err)
		if errno != syscall.ENOENT && t.torn() {
			return nil, syscall.ESTALE
		}
		return nil, errno
	}
	ch := parent.GetChild(name)
	if ch != nil {
		if n, ok := ch.Operations().(*fileNode); ok {
			e.file = n.f // a dataset member's file is made anew only once the kernel has forgotten it
		}
	}
	e.file = t.fileOf(e)
	timeout := t.attr(e, &out.Attr)
	out.SetEntryTimeout(longTimeout)
	out.SetAttrTimeout(timeout)
	if big(d) {
		t.bigNames.add(parent, name)
	}
	if ch != nil {
		return ch, 0
	}

	var ops fs.InodeEmbedder
	switch {
	case e.dir != nil:
		ops = &dirNode{t: t, d: e.dir}
	case e.file != nil:
		ops = &fileNode{t: t, f: e.file}
	default:
		ops = &linkNode{t: t, target: t.linkTarget(e)}
	}
	in := parent.NewInode(ctx, ops, fs.StableAttr{Mode: out.Attr.Mode & syscall.S_IFMT})
	if e.file != nil {
		e.file.setInode(in)
	}
	return in, 0
}

// OpendirHandle implements fs.NodeOpendirHandler.
func (n *dirNode) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if n.t.stale() {
		return nil, 0, syscall.ESTALE
	}
	return n.t.opendir(n, n.d)
}

// opendir lists directory d, shown by node: the listing, which never
// changes, is kept in the kernel's cache (FOPEN_CACHE_DIR).
func (t *Tree) opendir(node fs.NodeLookuper, d *dir) (fs.FileHandle, uint32, syscall.Errno) {
	es, err := t.children(d)
	if err != nil {
		if t.torn() {
			return nil, 0, syscall.ESTALE
		}
		return nil, 0, syscall.EIO
	}
	t.presize(es)
	t.readAhead(d, es)
	return &dirHandle{node: node, es: es}, fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE, 0
}

// dirHandle reads a listing. It answers READDIRPLUS's lookups itself
// (fs.FileLookuper) so that hidden entries (.meta.json) come without
// attributes: a listing that does not show them (ls -l, ls -lR) never
// renders them, and one that does looks them up as usual.
type dirHandle struct {
	node fs.NodeLookuper
	es   []entry
	next int
}

var (
	_ fs.FileReaddirenter = (*dirHandle)(nil)
	_ fs.FileSeekdirer    = (*dirHandle)(nil)
	_ fs.FileLookuper     = (*dirHandle)(nil)
)

// Readdirent implements fs.FileReaddirenter.
func (h *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	if h.next >= len(h.es) {
		return nil, 0
	}
	e := &h.es[h.next]
	h.next++
	return &fuse.DirEntry{Name: e.name, Mode: e.mode(), Off: uint64(h.next)}, 0
}

// Seekdir implements fs.FileSeekdirer.
func (h *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if off > uint64(len(h.es)) {
		return syscall.EINVAL
	}
	h.next = int(off)
	return 0
}

// Lookup implements fs.FileLookuper: the node's lookup, except for
// hidden names and the entries of a big directory, which READDIRPLUS then
// lists without attributes (a zero node ID: the kernel looks them up when
// they are asked for).
func (h *dirHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if hidden(name) || len(h.es) > bigDir {
		return nil, syscall.ENOENT
	}
	return h.node.Lookup(ctx, name, out)
}

// Getattr implements fs.NodeGetattrer.
func (n *dirNode) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.SetTimeout(n.t.attr(entry{dir: n.d}, &out.Attr))
	return 0
}

// Getxattr implements fs.NodeGetxattrer.
func (n *dirNode) Getxattr(ctx context.Context, attr string, dest []byte) (uint32, syscall.Errno) {
	o, errno := n.t.nodeObject(n.d.attrs, n.d.reopen)
	if errno != 0 {
		return 0, errno
	}
	return n.t.getxattr(o, attr, dest)
}

// Listxattr implements fs.NodeListxattrer.
func (n *dirNode) Listxattr(ctx context.Context, dest []byte) (uint32, syscall.Errno) {
	o, errno := n.t.nodeObject(n.d.attrs, n.d.reopen)
	if errno != 0 {
		return 0, errno
	}
	return n.t.listxattr(o, dest)
}

// Getattr implements fs.NodeGetattrer.
func (n *fileNode) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.SetTimeout(n.t.attr(entry{file: n.f}, &out.Attr))
	return 0
}

// Open implements fs.NodeOpener: it runs the view's sizing pass, so that
// from here on stat reports the exact size, and lets the kernel keep the
// immutable content cached. Raw and .npy views, which are read in big
// sequential passes, and Parquet views, whose readers fetch whole column
// pages, are opened for direct I/O instead: each read() of the reader
// reaches h5fs whole (up to 1 MiB) and is copied once, rather than split
// into readahead requests and copied through the page cache (mmap still
// works: the mount negotiates CAP_DIRECT_IO_ALLOW_MMAP).
func (n *fileNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&(syscall.O_WRONLY|syscall.O_RDWR|syscall.O_TRUNC|syscall.O_APPEND) != 0 {
		if n.t.w == nil {
			return nil, 0, syscall.EROFS
		}
		return n.openWrite(flags)
	}
	if n.t.stale() {
		return nil, 0, syscall.ESTALE
	}
	// taken before the view: commits keep its state's space until Release
	release, err := n.t.holdState()
	if err != nil {
		return nil, 0, syscall.ESTALE
	}
	v, err := n.t.finalize(n.f)
	if err != nil {
		release()
		if n.t.torn() {
			return nil, 0, syscall.ESTALE
		}
		return nil, 0, viewErrno(err)
	}
	if n.t.w != nil {
		// a commit may rebind the file while it is open: the handle keeps
		// reading the view it opened, past the page cache, which the
		// file's other readers share
		return &viewHandle{v, release}, fuse.FOPEN_DIRECT_IO, 0
	}
	release()
	if streamed(v) {
		return nil, fuse.FOPEN_DIRECT_IO, 0
	}
	return nil, fuse.FOPEN_KEEP_CACHE, 0
}

// viewHandle is a read handle on a read-write mount: the view the file
// showed when it was opened, so that its reader sees one state whole
// (the space of which it holds until Release).
type viewHandle struct {
	v       View
	release func()
}

// Release implements fs.FileReleaser.
func (h *viewHandle) Release(ctx context.Context) syscall.Errno {
	h.release()
	return 0
}

// streamed reports a view served with direct I/O: the array views (raw
// and .npy), whose bytes are the stored elements, and Parquet, whose
// column chunks are rendered from them (filling the page cache cost a
// DuckDB scan of P4's t.parquet more CPU than rendering: issue 10).
func streamed(v View) bool {
	e, ok := v.(interface{ Ext() string })
	return ok && (e.Ext() == "raw" || e.Ext() == "npy" || e.Ext() == "parquet")
}

// Read implements fs.NodeReader.
func (n *fileNode) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	var v View
	var err error
	if h, ok := fh.(*viewHandle); ok {
		v = h.v
	} else if v, err = n.t.finalize(n.f); err != nil {
		return nil, syscall.EIO
	}
	var k int
	err = guard(func() (err error) { k, err = v.ReadAt(dest, off); return err })
	if err != nil && !errors.Is(err, io.EOF) {
		n.t.opt.Log.Printf("h5fs: %s: read %d bytes at %d: %v", n.f.path, len(dest), off, err)
		return nil, syscall.EIO
	}
	return fuse.ReadResultData(dest[:k]), 0
}

// Getxattr implements fs.NodeGetxattrer.
func (n *fileNode) Getxattr(ctx context.Context, attr string, dest []byte) (uint32, syscall.Errno) {
	o, errno := n.t.nodeObject(n.f.attrs, n.f.reopen)
	if errno != 0 {
		return 0, errno
	}
	return n.t.getxattr(o, attr, dest)
}

// Listxattr implements fs.NodeListxattrer.
func (n *fileNode) Listxattr(ctx context.Context, dest []byte) (uint32, syscall.Errno) {
	o, errno := n.t.nodeObject(n.f.attrs, n.f.reopen)
	if errno != 0 {
		return 0, errno
	}
	return n.t.listxattr(o, dest)
}

// Getattr implements fs.NodeGetattrer.
func (n *linkNode) Getattr(ctx context.Context, _ fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.SetTimeout(n.t.attr(entry{sym: &symlink{target: n.target}}, &out.Attr))
	return 0
}

// Readlink implements fs.NodeReadlinker.
func (n *linkNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	return []byte(n.target), 0
}

// hidden reports a name that a listing shows only when asked to (ls -a).
func hidden(name string) bool { return strings.HasPrefix(name, ".") }

// mode returns the file type bits of an entry.
func (e entry) mode() uint32 {
	switch {
	case e.dir != nil:
		return syscall.S_IFDIR
	case e.file != nil || e.mf != nil:
		return syscall.S_IFREG
	}
	return syscall.S_IFLNK
}

// attr fills the attributes of an entry and returns their timeout: long,
// except for a file whose size is still an estimate.
func (t *Tree) attr(e entry, out *fuse.Attr) time.Duration {
	e.file = t.fileOf(e)
	out.Mode = e.mode() | 0o444
	if e.file != nil && e.file.hooks != nil {
		out.Mode |= 0o200
	}
	out.Nlink = 1
	out.Blksize = maxRequest // cat, cp and stdio read in blocks of st_blksize
	if e.dir != nil {
		out.Mode |= 0o111
		out.Nlink = 2
	}
	out.SetTimes(nil, &t.opt.Mtime, &t.opt.Mtime)
	switch {
	case e.file != nil:
		size, exact, err := t.statSize(e.file)
		if err != nil {
			return longTimeout
		}
		out.Size = uint64(size)
		if !exact {
			return 0
		}
	case e.dir == nil:
		out.Mode |= 0o777
		out.Size = uint64(len(t.linkTarget(e)))
	}
	return longTimeout
}

// viewErrno maps the error of a view to an errno: EFBIG for a view too
// big to size, EIO for anything else.
func viewErrno(err error) syscall.Errno {
	if errors.Is(err, syscall.EFBIG) {
		return syscall.EFBIG
	}
	return syscall.EIO
}

// toErrno maps a lookup error to an errno: ENOENT for a missing name, EIO
// for a directory that cannot be listed.
func toErrno(err error) syscall.Errno {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return syscall.EIO
}
