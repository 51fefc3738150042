package fsnode

import (
	"container/list"
	"context"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
)

// DirOptions configure the mount of a directory of HDF5 files.
type DirOptions struct {
	// Tree are the options of each file's tree (Log, Cache).
	Tree Options
	// File are the options each HDF5 file is opened with.
	File h5core.Options
	// MaxOpen bounds the files open at once, both as descriptors and as
	// parsed trees; zero means 64.
	MaxOpen int
	// Idle is how long a file's tree stays open unused; zero means a
	// minute.
	Idle time.Duration
}

// DirTree is the file tree of a directory of HDF5 files: each HDF5 file
// (found by its signature, in subdirectories too) is a directory named
// after it, opened on first look inside and closed when idle.
type DirTree struct {
	root    string
	opt     DirOptions
	top     *folder
	members map[string]*member // by absolute file name
	single  *member            // the mounted file, for NewFileDir
	mtime   time.Time
	fds     *fdPool
	opened  atomic.Int64

	mu   sync.Mutex
	open *list.List // of *member, most recently used first
	stop chan struct{}
}

// folder is a directory of the mounted directory that holds HDF5 files.
type folder struct {
	path    string // below the mounted directory, "/"-separated; "" for it
	names   []string
	folders map[string]*folder
	files   map[string]*member
}

// NewDir scans the directory root for HDF5 files and returns its tree.
// No HDF5 file is opened until something inside it is looked at.
func NewDir(root string, opt DirOptions) (*DirTree, error) {
	d, err := newDirTree(root, opt)
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(d.root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			d.opt.Tree.Log.Printf("h5fs: %v", err)
			return nil
		}
		if !e.Type().IsRegular() || !isHDF5(p) {
			return nil
		}
		rel, _ := filepath.Rel(d.root, p)
		d.add(rel, &member{d: d, name: p, rel: rel})
		return nil
	})
	if err != nil {
		return nil, err
	}
	go d.sweep()
	return d, nil
}

// NewFileDir opens the HDF5 file name and returns a tree whose root is
// the file's own: a directory mount of that one file, which follows the
// file's changes (see changes.go) and never closes it for being idle.
func NewFileDir(name string, opt DirOptions) (*DirTree, error) {
	d, err := newDirTree(name, opt)
	if err != nil {
		return nil, err
	}
	d.single = &member{d: d, name: d.root}
	d.single.node = &memberNode{m: d.single}
	d.members[d.root] = d.single
	if _, err := d.single.get(); err != nil {
		return nil, err
	}
	return d, nil
}

// newDirTree returns an empty tree for the file or directory root.
func newDirTree(root string, opt DirOptions) (*DirTree, error) {
	if opt.Tree.Log == nil {
		opt.Tree.Log = log.Default()
	}
	if opt.MaxOpen <= 0 {
		opt.MaxOpen = 64
	}
	if opt.Idle <= 0 {
		opt.Idle = time.Minute
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	d := &DirTree{root: root, opt: opt, members: map[string]*member{}, mtime: st.ModTime(),
		fds: &fdPool{max: opt.MaxOpen, lru: list.New()}, open: list.New(), stop: make(chan struct{})}
	d.top = &folder{folders: map[string]*folder{}, files: map[string]*member{}}
	return d, nil
}

// Close stops closing idle files and closes every open one.
func (d *DirTree) Close() {
	close(d.stop)
	d.mu.Lock()
	var ms []*member
	for e := d.open.Front(); e != nil; e = e.Next() {
		ms = append(ms, e.Value.(*member))
	}
	d.mu.Unlock()
	for _, m := range ms {
		m.evict()
	}
	d.fds.closeAll() // those left to views of replaced files
}

// Opened returns how many times an HDF5 file has been opened so far.
func (d *DirTree) Opened() int64 { return d.opened.Load() }

// add files member m at its relative path.
func (d *DirTree) add(rel string, m *member) {
	f := d.top
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if slices.Contains(parts, metaName) {
		d.opt.Tree.Log.Printf("h5fs: %s: not shown: %s is the name of the folder's description", m.name, metaName)
		return
	}
	for _, p := range parts[:len(parts)-1] {
		sub, ok := f.folders[p]
		if !ok {
			sub = &folder{path: path.Join(f.path, p), folders: map[string]*folder{}, files: map[string]*member{}}
			f.folders[p] = sub
			f.names = append(f.names, p)
		}
		f = sub
	}
	f.files[parts[len(parts)-1]] = m
	f.names = append(f.names, parts[len(parts)-1])
	sort.Strings(f.names)
	d.members[m.name] = m
}

// isHDF5 reports whether the named file starts with the HDF5 signature
// at offset 0, 512, 1024, 2048, … (after a user block).
func isHDF5(name string) bool {
	fh, err := os.Open(name)
	if err != nil {
		return false
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return false
	}
	sig := make([]byte, 8)
	for off := int64(0); off+8 <= st.Size(); off = max(512, off*2) {
		if _, err := fh.ReadAt(sig, off); err != nil {
			return false
		}
		if string(sig) == "\x89HDF\r\n\x1a\n" {
			return true
		}
	}
	return false
}

// sweep closes files idle for longer than the Idle option.
func (d *DirTree) sweep() {
	tick := time.NewTicker(d.opt.Idle / 2)
	defer tick.Stop()
	for {
		select {
		case <-d.stop:
			return
		case now := <-tick.C:
			var idle []*member
			d.mu.Lock()
			for e := d.open.Back(); e != nil; e = e.Prev() {
				m := e.Value.(*member)
				if now.Sub(m.lastUse) < d.opt.Idle {
					break
				}
				idle = append(idle, m)
			}
			d.mu.Unlock()
			for _, m := range idle {
				m.evict()
			}
		}
	}
}

// member is one HDF5 file of a directory mount.
type member struct {
	d    *DirTree
	name string // absolute file name
	rel  string // relative to the mount's root
	node *memberNode

	mu       sync.Mutex
	tree     *Tree
	r        *reopener
	state    fileState // of the file when tree was made
	builtAt  time.Time // when tree was made
	handedAt time.Time // when a walk last reached tree while young
	err      error     // why the file cannot be opened
	errAt    time.Time // the file's mtime when it failed
	lastUse  time.Time
	elem     *list.Element // in d.open while open
}

// get returns the file's tree, opening the file if it is not open or has
// changed since. A file that failed to open is tried again once its
// mtime changes.
func (m *member) get() (*Tree, error) {
	m.dropIfChanged(false)
	m.mu.Lock()
	if m.err != nil {
		if st, err := os.Stat(m.name); err != nil || st.ModTime().Equal(m.errAt) {
			m.mu.Unlock()
			return nil, m.err
		}
		m.err = nil
	}
	if m.tree == nil {
		for try := 0; ; try++ {
			m.tree, m.r, m.state, m.err = m.openTree()
			if m.err == nil || !m.moved(m.state) || try == maxTornRetries {
				break
			}
			time.Sleep(time.Duration(try+1) * 5 * time.Millisecond) // let the writer finish
		}
		m.builtAt = time.Now()
		if m.err != nil {
			if st, err := os.Stat(m.name); err == nil {
				m.errAt = st.ModTime()
			}
			if strings.Contains(m.err.Error(), m.name) {
				m.d.opt.Tree.Log.Printf("h5fs: %v", m.err)
			} else {
				m.d.opt.Tree.Log.Printf("h5fs: %s: %v", m.name, m.err)
			}
			m.mu.Unlock()
			return nil, m.err
		}
	}
	t := m.tree
	m.mu.Unlock()
	m.touch()
	return t, nil
}

// openTree opens the file and makes its tree.
func (m *member) openTree() (*Tree, *reopener, fileState, error) {
	m.d.opened.Add(1)
	st, err := statFile(m.name)
	if err != nil {
		return nil, nil, st, err
	}
	if err := h5core.RecoverForRead(m.name); err != nil {
		return nil, nil, st, err
	}
	r := &reopener{pool: m.d.fds, name: m.name, ino: st.ino}
	f, err := h5core.NewFile(r, st.size, m.name, m.d.opt.File)
	if err != nil {
		r.close()
		return nil, nil, st, err
	}
	opt := m.d.opt.Tree
	opt.ExternalLink = m.externalLink
	var t *Tree
	opt.stale = func() bool { return m.stale(t, st) }
	opt.changed = func() bool { return m.changed(t, st) }
	opt.moved = func() bool { return m.moved(st) }
	err = guard(func() (err error) { t, err = New(f, opt); return err })
	if err != nil {
		r.close()
		return nil, nil, st, err
	}
	return t, r, st, nil
}

// touch marks the member used now, and closes the least recently used
// files beyond the MaxOpen option.
func (m *member) touch() {
	d := m.d
	var over []*member
	d.mu.Lock()
	m.lastUse = time.Now()
	if m.elem == nil {
		m.elem = d.open.PushFront(m)
	} else {
		d.open.MoveToFront(m.elem)
	}
	for e := d.open.Back(); d.open.Len()-len(over) > d.opt.MaxOpen && e != nil && e != m.elem; e = e.Prev() {
		over = append(over, e.Value.(*member))
	}
	d.mu.Unlock()
	for _, o := range over {
		o.evict()
	}
}

// evict closes the member's file and drops its tree.
func (m *member) evict() {
	m.mu.Lock()
	t := m.tree
	m.mu.Unlock()
	m.drop(t, false)
}

// drop closes the member's file and forgets its tree t, unless the member
// has moved on to another tree; the kernel forgets what it knew of the
// file's directory, so the next look inside opens the file again. Files
// open meanwhile keep reading (reopening the file). wait says whether to
// wait for the kernel to forget: never while serving a lookup in the
// file's directory, which the kernel holds locked meanwhile.
func (m *member) drop(t *Tree, wait bool) {
	m.mu.Lock()
	if t == nil || m.tree != t {
		m.mu.Unlock()
		return
	}
	r, st := m.r, m.state
	m.tree, m.r = nil, nil
	m.mu.Unlock()
	d := m.d
	d.mu.Lock()
	if m.elem != nil {
		d.open.Remove(m.elem)
		m.elem = nil
	}
	d.mu.Unlock()
	if !replaced(m.name, st) { // else the old file's views read on (changes.go)
		r.close()
	}
	if n := m.node; n != nil {
		n.forget(wait)
	}
}

// externalLink resolves an external link, in a directory at depth depth
// of the member's tree, to a symbolic link to the object inside the
// mount, when the link's file is a file of the mount.
func (m *member) externalLink(depth int, l h5core.Link) (string, bool) {
	file := l.File
	if !filepath.IsAbs(file) {
		file = filepath.Join(filepath.Dir(m.name), file)
	}
	to, ok := m.d.members[filepath.Clean(file)]
	if !ok {
		return "", false
	}
	var parts []string
	for range depth {
		parts = append(parts, "..")
	}
	if m.rel != "" {
		for range strings.Split(filepath.ToSlash(m.rel), "/") {
			parts = append(parts, "..")
		}
		parts = append(parts, strings.Split(filepath.ToSlash(to.rel), "/")...)
	}
	for _, p := range strings.Split(l.Target, "/") {
		if p != "" && p != "." {
			parts = append(parts, EscapeName(p))
		}
	}
	if len(parts) == 0 {
		return ".", true
	}
	return strings.Join(parts, "/"), true
}

// externalTarget returns the symbolic link an external link shows as,
// if the tree's ExternalLink option resolves it.
func (t *Tree) externalTarget(depth int, l h5core.Link) (string, bool) {
	if t.opt.ExternalLink == nil {
		return "", false
	}
	return t.opt.ExternalLink(depth, l)
}

// MountDir mounts the tree of a directory of HDF5 files read-only at
// mountpoint and returns the running server.
func MountDir(d *DirTree, mountpoint string, mo MountOptions) (*fuse.Server, error) {
	if d.single != nil {
		return mountRoot(d.single.node, d.root, mountpoint, mo, true)
	}
	return mountRoot(&folderNode{d: d, f: d.top}, d.root, mountpoint, mo, true)
}

// folderNode is a directory of the mounted directory.
type folderNode struct {
	gofs.Inode
	d *DirTree
	f *folder
}

// memberNode is the directory of one HDF5 file of a directory mount: the
// root of the file's tree.
type memberNode struct {
	gofs.Inode
	m *member
}

var (
	_ gofs.NodeLookuper       = (*folderNode)(nil)
	_ gofs.NodeOpendirHandler = (*folderNode)(nil)
	_ gofs.NodeGetattrer      = (*folderNode)(nil)
	_ gofs.NodeLookuper       = (*memberNode)(nil)
	_ gofs.NodeOpendirHandler = (*memberNode)(nil)
	_ gofs.NodeGetattrer      = (*memberNode)(nil)
	_ gofs.NodeGetxattrer     = (*memberNode)(nil)
	_ gofs.NodeListxattrer    = (*memberNode)(nil)
)

// dirAttr fills the attributes of a directory of a directory mount.
func dirAttr(out *fuse.Attr, mtime time.Time) {
	out.Mode = syscall.S_IFDIR | 0o555
	out.Nlink = 2
	out.SetTimes(nil, &mtime, &mtime)
}

// folderMeta is the content of a folder's .meta.json: its path below the
// mounted directory and what it holds, files and folders, as a group's
// links (no file is opened).
type folderMeta struct {
	Path  string     `json:"path"`
	Kind  string     `json:"kind"` // "folder"
	Links []linkMeta `json:"links"`
}

// meta returns the folder's .meta.json.
func (f *folder) meta() ([]byte, error) {
	m := folderMeta{Path: f.path, Kind: "folder", Links: []linkMeta{}}
	for _, name := range f.names {
		kind := "file"
		if _, ok := f.folders[name]; ok {
			kind = "folder"
		}
		m.Links = append(m.Links, linkMeta{Name: name, Shown: name, Type: kind})
	}
	return arrowexport.MarshalDescription(m)
}

// Lookup implements fs.NodeLookuper.
func (n *folderNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	var ops gofs.InodeEmbedder
	if name == metaName {
		b, err := n.f.meta()
		if err != nil {
			return nil, syscall.EIO
		}
		out.Attr.Mode, out.Attr.Size = syscall.S_IFREG|0o444, uint64(len(b))
		out.Attr.SetTimes(nil, &n.d.mtime, &n.d.mtime)
		ops = &gofs.MemRegularFile{Data: b, Attr: out.Attr}
	} else if sub, ok := n.f.folders[name]; ok {
		dirAttr(&out.Attr, n.d.mtime)
		ops = &folderNode{d: n.d, f: sub}
	} else if m, ok := n.f.files[name]; ok {
		m.attr(&out.Attr)
		ops = m.nodeFor()
	} else {
		return nil, syscall.ENOENT
	}
	out.SetEntryTimeout(longTimeout)
	out.SetAttrTimeout(longTimeout)
	if ch := n.GetChild(name); ch != nil {
		return ch, 0
	}
	return n.NewInode(ctx, ops, gofs.StableAttr{Mode: out.Attr.Mode & syscall.S_IFMT}), 0
}

// OpendirHandle implements fs.NodeOpendirHandler.
func (n *folderNode) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	list := []fuse.DirEntry{{Name: metaName, Mode: syscall.S_IFREG}}
	for _, name := range n.f.names {
		list = append(list, fuse.DirEntry{Name: name, Mode: syscall.S_IFDIR})
	}
	return gofs.NewListDirStream(list), fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE, 0
}

// Getattr implements fs.NodeGetattrer.
func (n *folderNode) Getattr(ctx context.Context, _ gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	dirAttr(&out.Attr, n.d.mtime)
	out.SetTimeout(longTimeout)
	return 0
}

// nodeFor returns the member's node, made once (the kernel's inode of the
// file's directory stays the same across closes).
func (m *member) nodeFor() *memberNode {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.node == nil {
		m.node = &memberNode{m: m}
	}
	return m.node
}

// attr fills the attributes of the member's directory, without opening
// the file: its mtime is the file's.
func (m *member) attr(out *fuse.Attr) {
	mtime := m.d.mtime
	if st, err := os.Stat(m.name); err == nil {
		mtime = st.ModTime()
	}
	dirAttr(out, mtime)
}

// Lookup implements fs.NodeLookuper.
func (n *memberNode) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	t, err := n.m.get()
	if err != nil {
		return nil, syscall.EIO
	}
	n.m.handed(t)
	if ch := n.GetChild(name); ch != nil && treeOf(ch) != t {
		n.RmChild(name) // made from an older tree meanwhile
	}
	return t.lookupNode(ctx, &n.Inode, t.root, name, out)
}

// OpendirHandle implements fs.NodeOpendirHandler. The listing is not
// kept by the kernel: the file may be closed, or change, meanwhile.
func (n *memberNode) OpendirHandle(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	t, err := n.m.get()
	if err != nil {
		return nil, 0, syscall.EIO
	}
	h, _, errno := t.opendir(n, t.root)
	return h, 0, errno
}

// Getattr implements fs.NodeGetattrer.
func (n *memberNode) Getattr(ctx context.Context, _ gofs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.m.dropIfChanged(true)
	n.m.attr(&out.Attr)
	out.SetTimeout(time.Second)
	return 0
}

// Getxattr implements fs.NodeGetxattrer: the root group's attributes
// (asking for another namespace opens nothing).
func (n *memberNode) Getxattr(ctx context.Context, attr string, dest []byte) (uint32, syscall.Errno) {
	if !strings.HasPrefix(attr, xattrPrefix) {
		return 0, syscall.EOPNOTSUPP
	}
	t, err := n.m.get()
	if err != nil {
		return 0, syscall.EIO
	}
	return t.getxattr(t.root.attrs, attr, dest)
}

// Listxattr implements fs.NodeListxattrer.
func (n *memberNode) Listxattr(ctx context.Context, dest []byte) (uint32, syscall.Errno) {
	t, err := n.m.get()
	if err != nil {
		return 0, syscall.EIO
	}
	return t.listxattr(t.root.attrs, dest)
}

// forget drops the node's children, here and in the kernel (waiting for
// it or not), so that the next lookup inside makes them anew from the
// file's next tree.
func (n *memberNode) forget(wait bool) {
	var names []string
	for name := range n.Children() {
		n.RmChild(name)
		names = append(names, name)
	}
	notify := func() {
		for _, name := range names {
			// ENOENT: the kernel knew nothing; EBADF: unmounted.
			if errno := n.NotifyEntry(name); errno != 0 && errno != syscall.ENOENT && errno != syscall.EBADF {
				n.m.d.opt.Tree.Log.Printf("h5fs: %s: forget %s: %v", n.m.name, name, errno)
			}
		}
	}
	if wait {
		notify()
	} else {
		go notify()
	}
}

// fdPool bounds the descriptors that the reopeners of a directory mount
// hold open, closing the least recently used.
type fdPool struct {
	max int
	mu  sync.Mutex
	lru *list.List // of *reopener, most recently used first
}

// reopener reads a file through a descriptor that the pool may close
// when others are needed; the next read opens the file again.
type reopener struct {
	pool *fdPool
	name string
	ino  uint64 // of the file first opened; another one is not read

	mu   sync.RWMutex
	fh   *os.File
	elem *list.Element // in pool.lru while fh is open; under pool.mu
}

// ReadAt implements io.ReaderAt.
func (r *reopener) ReadAt(p []byte, off int64) (n int, err error) {
	if e := r.with(func(fh *os.File) { n, err = fh.ReadAt(p, off) }); e != nil {
		return 0, e
	}
	return n, err
}

// Stat returns what the descriptor tells of the file: h5core looks up
// the file's size again when a structure points past the end it knew (a
// writer has extended the file).
func (r *reopener) Stat() (st os.FileInfo, err error) {
	if e := r.with(func(fh *os.File) { st, err = fh.Stat() }); e != nil {
		return nil, e
	}
	return st, err
}

// with calls fn with the open descriptor, opening the file again if the
// pool closed it.
func (r *reopener) with(fn func(*os.File)) error {
	for {
		r.mu.RLock()
		if fh := r.fh; fh != nil {
			fn(fh)
			r.mu.RUnlock()
			r.pool.use(r)
			return nil
		}
		r.mu.RUnlock()
		if err := r.reopen(); err != nil {
			return err
		}
	}
}

// reopen opens the file again if it is closed.
func (r *reopener) reopen() error {
	r.mu.Lock()
	if r.fh == nil {
		fh, err := openSame(r.name, r.ino)
		if err != nil {
			r.mu.Unlock()
			return fmt.Errorf("reopen: %w", err)
		}
		r.fh = fh
	}
	r.mu.Unlock()
	r.pool.use(r)
	return nil
}

// close closes the descriptor, if open.
func (r *reopener) close() {
	r.pool.mu.Lock()
	if r.elem != nil {
		r.pool.lru.Remove(r.elem)
		r.elem = nil
	}
	r.pool.mu.Unlock()
	r.mu.Lock()
	if r.fh != nil {
		r.fh.Close()
		r.fh = nil
	}
	r.mu.Unlock()
}

// closeAll closes every descriptor of the pool.
func (p *fdPool) closeAll() {
	var rs []*reopener
	p.mu.Lock()
	for e := p.lru.Front(); e != nil; e = e.Next() {
		rs = append(rs, e.Value.(*reopener))
	}
	p.mu.Unlock()
	for _, r := range rs {
		r.close()
	}
}

// use marks r used now and closes the least recently used descriptors
// beyond the pool's bound.
func (p *fdPool) use(r *reopener) {
	var over []*reopener
	p.mu.Lock()
	if r.elem == nil {
		r.elem = p.lru.PushFront(r)
	} else {
		p.lru.MoveToFront(r.elem)
	}
	for p.lru.Len() > p.max {
		e := p.lru.Back()
		o := e.Value.(*reopener)
		p.lru.Remove(e)
		o.elem = nil
		over = append(over, o)
	}
	p.mu.Unlock()
	for _, o := range over {
		o.mu.Lock()
		if o.fh != nil {
			o.fh.Close()
			o.fh = nil
		}
		o.mu.Unlock()
	}
}
