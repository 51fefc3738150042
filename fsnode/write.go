package fsnode

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Writes on a read-write mount. fsnode only buffers and routes: a file
// that takes writes carries writeHooks, made by the package that owns the
// object's write protocol (tables here, sparse arrays elsewhere); every
// other write fails early, with EPERM.

// Appender takes the bytes appended to one open file of a read-write
// mount: Write parses them as they arrive, Commit makes everything
// written since the last commit durable and visible (at fsync and close),
// Abort drops what was not committed. After an error from Write the
// handle takes nothing more and commits nothing.
type Appender interface {
	Write(p []byte) error
	Commit() error
	Abort()
}

// Overwriter is an Appender that also takes writes inside the file,
// below where appends start: they rewrite what is there, and commit with
// the appends.
type Overwriter interface {
	Appender
	Overwrite(p []byte, off int64) error
}

// ErrInvalid is wrapped by hook errors that the writer caused (a
// malformed line, a value out of range): the system call fails with
// EINVAL rather than EIO.
var ErrInvalid = errors.New("invalid write")

// writeHooks are what a file of a read-write mount accepts: appends
// (newAppender, nil when it takes none) and truncate(2) (truncate, nil
// when it takes none). changed reports the files whose content a commit
// changed, for the kernel's caches.
type writeHooks struct {
	newAppender func() (Appender, error)
	truncate    func(size int64) error
}

// writeHandle is an open file of a read-write mount that appends.
type writeHandle struct {
	n   *fileNode
	app Appender

	mu     sync.Mutex
	next   int64 // offset the next write must be at (-1: the first write's)
	failed bool
}

var (
	_ fs.FileWriter    = (*writeHandle)(nil)
	_ fs.FileFlusher   = (*writeHandle)(nil)
	_ fs.FileFsyncer   = (*writeHandle)(nil)
	_ fs.FileReleaser  = (*writeHandle)(nil)
	_ fs.FileReader    = (*writeHandle)(nil)
	_ fs.NodeSetattrer = (*fileNode)(nil)
)

// openWrite opens a file for writing: only for appends, only where the
// file takes them.
func (n *fileNode) openWrite(flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	h := n.f.hooks
	if h == nil || h.newAppender == nil {
		return nil, 0, syscall.EPERM
	}
	if flags&syscall.O_TRUNC != 0 {
		return nil, 0, syscall.EPERM
	}
	wh := &writeHandle{n: n, next: -1}
	if flags&syscall.O_APPEND == 0 {
		// writes must start at the end: its exact size is needed (an
		// O_APPEND open skips that sizing pass: the kernel writes at the
		// end it knows, and the writes must follow one another)
		v, err := n.t.finalize(n.f)
		if err != nil {
			return nil, 0, syscall.EIO
		}
		wh.next = v.Size()
	}
	app, err := h.newAppender()
	if err != nil {
		n.t.opt.Log.Printf("h5fs: %s: open for writing: %v", n.f.path, err)
		return nil, 0, toWriteErrno(err)
	}
	wh.app = app
	return wh, fuse.FOPEN_DIRECT_IO, 0
}

// Write implements fs.FileWriter: bytes are taken at the end of the file,
// and inside it where the file is an Overwriter.
func (h *writeHandle) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed {
		return 0, syscall.EINVAL
	}
	if h.next < 0 {
		h.next = off // O_APPEND: the first write is at the end
	}
	written := 0
	if ow, ok := h.app.(Overwriter); ok && off < h.next {
		in := min(int64(len(data)), h.next-off)
		if err := ow.Overwrite(data[:in], off); err != nil {
			h.n.t.opt.Log.Printf("h5fs: %s: write of %d bytes at %d: %v", h.n.f.path, in, off, err)
			return 0, toWriteErrno(err)
		}
		off, data, written = off+in, data[in:], int(in)
		if len(data) == 0 {
			return uint32(written), 0
		}
	}
	if off != h.next {
		h.n.t.opt.Log.Printf("h5fs: %s: write at %d: only appends at the end (%d) are taken", h.n.f.path, off, h.next)
		return 0, syscall.EINVAL
	}
	if err := h.app.Write(data); err != nil {
		h.fail(err)
		return 0, syscall.EINVAL
	}
	h.next += int64(len(data))
	return uint32(written + len(data)), 0
}

// fail logs err and drops what the handle has not committed.
func (h *writeHandle) fail(err error) {
	h.n.t.opt.Log.Printf("h5fs: %s: %v; nothing more of this open file is committed", h.n.f.path, err)
	h.failed = true
	h.app.Abort()
	invalidate([]*file{h.n.f}) // the kernel counted the refused bytes in its size
}

// commit commits what the handle holds.
func (h *writeHandle) commit() syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failed {
		return syscall.EINVAL
	}
	if err := h.app.Commit(); err != nil {
		h.fail(err)
		return toWriteErrno(err)
	}
	return 0
}

// Flush implements fs.FileFlusher: close(2) commits.
func (h *writeHandle) Flush(ctx context.Context) syscall.Errno { return h.commit() }

// Fsync implements fs.FileFsyncer.
func (h *writeHandle) Fsync(ctx context.Context, flags uint32) syscall.Errno { return h.commit() }

// Release implements fs.FileReleaser: what was never committed goes.
func (h *writeHandle) Release(ctx context.Context) syscall.Errno {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.failed {
		h.app.Abort()
	}
	return 0
}

// Read implements fs.FileReader for files opened O_RDWR.
func (h *writeHandle) Read(ctx context.Context, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return h.n.Read(ctx, nil, dest, off)
}

// Setattr implements fs.NodeSetattrer: truncate(2) where the file takes
// it; any other change fails.
func (n *fileNode) Setattr(ctx context.Context, fh fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	size, ok := in.GetSize()
	if !ok || in.Valid&^(fuse.FATTR_SIZE|fuse.FATTR_FH|fuse.FATTR_LOCKOWNER|fuse.FATTR_MTIME|fuse.FATTR_CTIME|fuse.FATTR_MTIME_NOW) != 0 {
		return syscall.EPERM
	}
	h := n.f.hooks
	if h == nil || h.truncate == nil {
		return syscall.EPERM
	}
	if err := h.truncate(int64(size)); err != nil {
		n.t.opt.Log.Printf("h5fs: %s: truncate to %d: %v", n.f.path, size, err)
		return toWriteErrno(err)
	}
	out.SetTimeout(n.t.attr(entry{file: n.f}, &out.Attr))
	return 0
}

// toWriteErrno maps a hook error: EINVAL for the writer's mistakes, EIO
// for the rest.
func toWriteErrno(err error) syscall.Errno {
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return errno
	case errors.Is(err, ErrInvalid):
		return syscall.EINVAL
	}
	return syscall.EIO
}

// notifyTimeout bounds the wait for the kernel to drop a file's cached
// pages and attributes after a commit.
const notifyTimeout = 2 * time.Second

// invalidate tells the kernel that the files' content and size changed:
// their cached pages and attributes go. It does not wait for a kernel
// that is busy with the same files for longer than notifyTimeout.
func invalidate(files []*file) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, f := range files {
			f.mu.Lock()
			in := f.inode
			f.mu.Unlock()
			if in != nil {
				in.NotifyContent(0, 0)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(notifyTimeout):
	}
}

// setInode records the kernel node Lookup made for f.
func (f *file) setInode(in *fs.Inode) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inode = in
}

// refreshLazily shows a committed table or sparse dataset afresh (commit
// generation gen): its files are rebound to views that one call of made
// (the files of the object at lt.path over a new snapshot of the file, by
// their key in lt.files), run under w.mu between commits when one of them
// is first read, makes. A commit nobody reads before the next one pays
// neither the snapshot nor the making of the views, and the views show
// the state on disk when read, never an older one than gen. It runs
// outside w.mu: the lazy views take it while holding the file's lock
// (Tree.get).
func (t *Tree) refreshLazily(lt *liveTable, gen uint64, made func(path string) (map[string]*file, error)) {
	if lt == nil {
		return
	}
	var once sync.Once
	var fresh map[string]*file
	var ferr error
	views := func() (map[string]*file, error) {
		once.Do(func() {
			t.w.mu.Lock()
			defer t.w.mu.Unlock()
			fresh, ferr = made(lt.path)
		})
		return fresh, ferr
	}
	t.w.mu.Lock()
	keys := slices.Collect(maps.Keys(lt.files))
	files := make([]*file, len(keys))
	for i, k := range keys {
		files[i] = lt.files[k]
	}
	t.w.mu.Unlock()
	for i, key := range keys {
		files[i].rebindTo(func() (View, error) {
			fresh, err := views()
			if err != nil {
				return nil, err
			}
			nf := fresh[key]
			if nf == nil {
				return nil, fmt.Errorf("%s: %s: %s is gone after a commit", t.f.Name(), lt.path, key)
			}
			return nf.newView()
		})
	}
	invalidate(files)
	for b := t.w.bound.Load(); b < gen && !t.w.bound.CompareAndSwap(b, gen); b = t.w.bound.Load() {
	}
}

// rebindTo makes f show the view newView makes, from scratch.
func (f *file) rebindTo(newView func() (View, error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.newView, f.view, f.err, f.finalized = newView, nil, nil, false
	f.gen++
}
