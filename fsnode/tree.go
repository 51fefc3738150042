// Package fsnode is the go-fuse node tree of h5fs: it maps the objects of
// an HDF5 file to directories and to generated files whose content comes
// from the renderers. The tree itself (Tree) knows nothing of FUSE, so
// `h5fs cat` resolves a path through exactly the entries the mount shows.
package fsnode

import (
	"errors"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
	"github.com/hanwen/go-fuse/v2/fs"
)

// Options configure a Tree.
type Options struct {
	// Log receives one line for each object that cannot be shown; nil
	// means the standard logger.
	Log *log.Logger
	// Mtime is the modification time of every node; zero means the HDF5
	// file's.
	Mtime time.Time
	// Cache keeps the renderers' sizing passes across mounts; nil means
	// none.
	Cache *arrowexport.Cache
	// MaxSizedView is the largest estimated size of a view whose exact
	// size takes a data pass (.csv, .arrow, .parquet); a larger one is
	// refused with EFBIG and a log line rather than block open() on a
	// pass over every element. 0 means DefaultMaxSizedView.
	MaxSizedView int64
	// ExternalLink, if set, returns the symbolic link target that an
	// external link l shows as, in a directory at depth depth below the
	// tree's root (0: the root), or false to show it as an entry that
	// reads as EIO. The target must stay inside the mount: climb at most
	// to the mount's root, then name only what the mount shows.
	ExternalLink func(depth int, l h5core.Link) (string, bool)
	// RW makes the tree read-write (write.go): the file it shows must be
	// a Snapshot of RW, through which table files take appends and
	// truncation. Nil means read-only.
	RW *h5core.RW

	// stale, if set, reports whether the HDF5 file has changed since the
	// tree was made (see changes.go); changed does too, without stale's
	// grace for new trees, and drops the tree; moved does too (or that
	// the change may not show yet), without dropping it: it may run while
	// the tree is being made.
	stale, changed, moved func() bool
}

// Tree is the file tree of one HDF5 file. Directories are listed when
// first asked for and then kept; files render their content on demand.
type Tree struct {
	f        *h5core.File
	opt      Options
	root     *dir
	idMu     sync.Mutex
	fileID   *arrowexport.FileID // identity of the HDF5 file, if it is one; new after each commit
	w        *writer             // the write side, nil when read-only
	xattrs   xattrCache          // attributes as extended attributes
	shown    shownGroups         // the directory each group is shown as
	bigNames bigNames            // names the kernel looked up in big directories (forget.go)
	ahead    readAhead           // directories to list in the background (readahead.go)
}

// New returns the tree of f. Tables are found as their directories are
// listed (leniently: a table with problems is shown if its rows can be
// read); each table that cannot be shown is logged, and its files fail
// with EIO.
func New(f *h5core.File, opt Options) (*Tree, error) {
	if opt.Log == nil {
		opt.Log = log.Default()
	}
	if opt.Mtime.IsZero() {
		opt.Mtime = mtimeOf(f.Name())
	}
	g, err := f.Root()
	if err != nil {
		return nil, err
	}
	t := &Tree{f: f, opt: opt}
	if opt.RW != nil {
		t.w = &writer{rw: opt.RW, live: map[string]*liveTable{}}
	}
	if id, err := arrowexport.StatFileID(f.Name()); err == nil {
		t.fileID = &id
	}
	tb, bad, err := t.probe(g)
	if err != nil {
		return nil, err
	}
	switch {
	case tb != nil:
		t.root = t.tableDir(g, tb, nil)
	case bad != nil:
		t.root = t.failedDir(g, bad, nil)
	default:
		t.root = t.groupDir(g, nil)
	}
	t.shown.root(t.root)
	return t, nil
}

// DefaultMaxSizedView is the default Options.MaxSizedView: 64 GiB.
const DefaultMaxSizedView = 64 << 30

// maxSizedView returns the tree's Options.MaxSizedView.
func (t *Tree) maxSizedView() int64 {
	if t.opt.MaxSizedView > 0 {
		return t.opt.MaxSizedView
	}
	return DefaultMaxSizedView
}

// probe finds out whether object o is a table: it returns the table, or
// the error that keeps a table (or an object whose attributes cannot be
// read) from being shown, logging its findings; err is for attributes
// that cannot be read.
func (t *Tree) probe(o *h5core.Object) (tb *table.Table, bad, err error) {
	tb, findings, err := table.Probe(t.f, o, table.Lenient)
	if t.tornTable(tb, findings) {
		err = fmt.Errorf("%s: %s: table not readable while the file changes", t.f.Name(), o.Path)
		return nil, err, err
	}
	var first error
	for _, fd := range findings {
		if fd.Severity != table.SevError {
			continue
		}
		t.opt.Log.Printf("h5fs: %s: %v", t.f.Name(), fd)
		e := errors.New(fd.String())
		if first == nil {
			first = e
		}
		if bad == nil && fd.Path == o.Path {
			bad = e
		}
	}
	if bad == nil {
		bad = first
	}
	return tb, bad, err
}

// entry is one name in a directory: a directory, a file (file, or the
// file mv of a dataset member mf, made when it is looked up: see
// member.go) or a symbolic link (sym). An entry that shows a member (a
// link or a column) is named after it: name is EscapeName(member) and a
// suffix, which settleNames may respell when the name is taken. A
// directory of 900,000 files holds 900,000 entries: each field counts.
type entry struct {
	name     string
	dir      *dir
	file     *file
	mf       *memberFiles
	sym      *symlink
	member   string
	isMember bool
	mv       memberView
}

// symlink is where a symbolic link entry points.
type symlink struct {
	target string
	soft   *softLink // a soft link to a group: its target, made when asked
	to     *dir      // the directory a group shown elsewhere is shown as
}

// dir is a directory. attrs, when set, is the object whose attributes
// are its extended attributes (the object itself, never looked up again
// by a path, which names holding '/' would make ambiguous); a member
// group's directory has reopen instead (see member.go).
type dir struct {
	attrs  *h5core.Object
	reopen objOpener
	list   func() ([]entry, error)
	group  groupKey // the group the directory shows, if it shows one (see shown.go)
	name   string   // its name in its parent, once placed there
	up     *dir     // its parent, once placed there; nil for the root

	once    sync.Once
	entries []entry // sorted by name
	err     error
}

// children returns the directory's entries sorted by name, listing it on
// first use. Names taken twice are settled by settleNames.
func (t *Tree) children(d *dir) ([]entry, error) {
	d.once.Do(func() {
		var es []entry
		err := guard(func() (err error) { es, err = d.list(); return err })
		if err != nil {
			d.err = err
			t.opt.Log.Printf("h5fs: %v", err)
			return
		}
		d.entries = t.settleNames(es) // sorted by name
		t.shown.place(d, d.entries)
	})
	return d.entries, d.err
}

// lookup returns the entry called name.
func (t *Tree) lookup(d *dir, name string) (entry, error) {
	es, err := t.children(d)
	if err != nil {
		return entry{}, err
	}
	i := sort.Search(len(es), func(i int) bool { return es[i].name >= name })
	if i == len(es) || es[i].name != name {
		return entry{}, syscall.ENOENT
	}
	return es[i], nil
}

// file is a generated file. Its view is made when it is opened; finalize
// runs the view's sizing pass once, without holding up stat calls
// meanwhile. Stat before that keeps only the size it showed (statSize),
// not the view, so that a listing of many files holds no view per file.
type file struct {
	path    string         // what the file shows, for messages
	attrs   *h5core.Object // the object supplying the xattrs, if set
	reopen  objOpener      // or else the way back to it (see member.go)
	newView func() (View, error)
	// sizeForStat, if set, finds what the first stat shows (see
	// firstStat) in a way of its own: a Parquet view, whose making costs
	// more than a stat should, is not made when the size is known
	// without it.
	sizeForStat func(limit int64) (size int64, exact bool, err error)
	hooks       *writeHooks  // what it takes on a read-write mount; nil: nothing
	m           *memberFiles // the dataset member it is file mv of, if it is one
	mv          memberView

	mu        sync.Mutex
	fin       sync.Mutex // held by the one finalize running a sizing pass
	gen       int        // bindings so far (rebind)
	inode     *fs.Inode  // the kernel's node, once looked up (for cache invalidation)
	view      View
	err       error
	finalized bool
	stat      statSize // what stat showed before the view was made
}

// get returns the file's view, making it on first use.
func (t *Tree) get(f *file) (View, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.view == nil && f.err == nil {
		f.err = guard(func() (err error) { f.view, err = f.newView(); return err })
		if f.err == nil && f.view == nil {
			f.err = fmt.Errorf("%s: no content", f.path)
		}
		if f.err != nil && !t.moving() {
			t.opt.Log.Printf("h5fs: %s: %v", f.path, f.err)
		}
	}
	return f.view, f.err
}

// finalize returns the file's view with its exact size known. One sizing
// pass of a file runs at a time (f.fin), without f.mu held, so stat calls
// are not held up meanwhile.
func (t *Tree) finalize(f *file) (View, error) {
	v, err := t.get(f)
	if err != nil || f.isFinal() {
		return v, err
	}
	release, err := t.holdState() // the pass reads the view's state whole
	if err != nil {
		return nil, err
	}
	defer release()
	// A second pass of the same view while the first one's caller
	// already reads it would tear what it reads.
	f.fin.Lock()
	defer f.fin.Unlock()
	f.mu.Lock()
	gen := f.gen
	f.mu.Unlock()
	if v, err = t.get(f); err != nil || f.isFinal() {
		return v, err
	}
	if limit := t.maxSizedView(); !v.Exact() && v.Size() > limit {
		err = fmt.Errorf("%s: about %d bytes, over the %d bytes a view that needs a sizing pass may have (use .raw or .npy): %w",
			f.path, v.Size(), limit, syscall.EFBIG)
	} else {
		err = guard(v.Finalize)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gen != gen { // rebound by a commit meanwhile: the flags are the new view's
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	if err != nil {
		if f.err == nil {
			t.opt.Log.Printf("h5fs: %s: %v", f.path, err)
		}
		f.err = err
		return nil, err
	}
	f.finalized = true
	if f.m != nil {
		f.m.save(f.mv, statSize{known: true, size: v.Size(), exact: true})
	}
	return v, nil
}

// isFinal reports whether the file's exact size is known.
func (f *file) isFinal() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.finalized
}

// errorFile stands for an object that cannot be read: opening it fails.
func errorFile(path string, err error) *file {
	return &file{path: path, newView: func() (View, error) { return nil, err }}
}

// Open resolves a path as the mount shows it ("run1/events/energy.csv")
// and returns its view with the exact size known.
func (t *Tree) Open(path string) (View, error) {
	d := t.root
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for i, name := range parts {
		e, err := t.lookup(d, name)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		last := i == len(parts)-1
		e.file = t.fileOf(e)
		switch {
		case e.file != nil && last:
			v, err := t.finalize(e.file)
			if err != nil {
				return nil, &os.PathError{Op: "open", Path: path, Err: err}
			}
			return v, nil
		case e.dir != nil && !last:
			d = e.dir
		case e.dir != nil:
			return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
		case e.file != nil:
			return nil, &os.PathError{Op: "open", Path: path, Err: syscall.ENOTDIR}
		default:
			return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("symbolic link to " + t.linkTarget(e))}
		}
	}
	return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
}

// guard runs fn, turning a panic in it (a bug met on some input, in the
// renderers or a library under them) into an error: the object's files
// fail with EIO and the mount keeps serving everything else.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return fn()
}

// setFileID records the file's identity after a commit changed it, so
// that views made from then on key the sizing cache to the new content.
func (t *Tree) setFileID(id *arrowexport.FileID) {
	t.idMu.Lock()
	defer t.idMu.Unlock()
	t.fileID = id
}

// currentFileID returns the file's identity, nil if unknown.
func (t *Tree) currentFileID() *arrowexport.FileID {
	t.idMu.Lock()
	defer t.idMu.Unlock()
	return t.fileID
}
