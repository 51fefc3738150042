package fsnode

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// Sparse writes on a read-write mount: lines appended to a sparse
// dataset's coo.csv define elements, a line with an empty value erases
// one. They commit as one sparsecoo.Writer transaction at fsync and
// close; then every view of the dataset shows the new state. The files
// to show afresh are kept in the dataset's liveTable (files only).

// cooHooks returns the hooks of a sparse dataset's coo.csv: appends.
func (t *Tree) cooHooks(path string) *writeHooks {
	if t.w == nil {
		return nil
	}
	return &writeHooks{newAppender: func() (Appender, error) { return t.newCOOAppender(path) }}
}

// trackSparse records the files of the sparse dataset at path that a
// commit changes.
func (t *Tree) trackSparse(path string, es []entry) {
	if t.w == nil {
		return
	}
	lt := t.w.tableOf(path)
	t.w.mu.Lock()
	defer t.w.mu.Unlock()
	for name, f := range sparseFiles(es) {
		lt.files[name] = f
	}
}

// sparseFiles returns the files among a sparse dataset's entries by
// their path in its directory.
func sparseFiles(es []entry) map[string]*file {
	files := map[string]*file{}
	for _, e := range es {
		if e.file != nil {
			files[e.name] = e.file
		}
		if e.dir == nil {
			continue
		}
		sub, _ := e.dir.list()
		for _, s := range sub {
			if s.file != nil {
				files[e.name+"/"+s.name] = s.file
			}
		}
	}
	return files
}

// cooAppender parses the lines appended to a coo.csv and hands them to a
// sparsecoo.Writer as they arrive, so that a malformed line or one
// outside the maximum extent fails the write that carried it.
type cooAppender struct {
	t    *Tree
	path string
	p    *arrowexport.COOParser
	sw   *sparsecoo.Writer
}

func (t *Tree) newCOOAppender(path string) (Appender, error) {
	w := t.w
	w.mu.Lock()
	defer w.mu.Unlock()
	sw, err := sparsecoo.NewWriter(w.rw, path)
	if err != nil {
		return nil, err
	}
	p, err := arrowexport.NewCOOParser(sw)
	if err != nil {
		return nil, err
	}
	if lt := w.live[path]; lt != nil {
		if lt.chunks == nil {
			lt.chunks = sparsecoo.NewChunks()
		}
		sw.Share(lt.chunks) // the appenders of the dataset commit one at a time
	}
	return &cooAppender{t: t, path: path, p: p, sw: sw}, nil
}

func (a *cooAppender) Write(b []byte) error {
	if err := a.p.Write(b); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return a.apply()
}

// apply hands the lines parsed so far to the writer.
func (a *cooAppender) apply() error {
	err := a.p.Apply(a.sw)
	if errors.Is(err, sparsecoo.ErrOutside) {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return err
}

func (a *cooAppender) Commit() error {
	if err := a.p.Flush(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := a.apply(); err != nil {
		return err
	}
	if a.sw.Pending() == 0 {
		return nil
	}
	w := a.t.w
	w.mu.Lock()
	err := a.sw.Commit()
	gen, lt := w.rw.Generation(), w.live[a.path]
	w.mu.Unlock()
	if err != nil {
		return err
	}
	a.t.refreshSparse(lt, gen)
	return nil
}

func (a *cooAppender) Abort() {
	a.p.Release()
	a.sw.Discard()
}

// refreshSparse shows a committed sparse dataset afresh (commit
// generation gen), as refresh does for a table, but lazily: its files
// are rebound to views that a snapshot of the file, taken when one of
// them is first read, makes. A commit nobody reads before the next one
// pays neither the snapshot nor the scan of the dataset's chunks that
// making its views costs (sparsecoo.Open), and the views show the state
// on disk when read, never an older one than gen. It runs outside w.mu:
// the lazy views take it to snapshot between commits, while holding the
// file's lock (Tree.get).
func (t *Tree) refreshSparse(lt *liveTable, gen uint64) {
	if lt == nil {
		return
	}
	var once sync.Once
	var fresh map[string]*file
	var ferr error
	views := func() (map[string]*file, error) {
		once.Do(func() { fresh, ferr = t.sparseFresh(lt.path) })
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

// sparseFresh makes the files of the sparse dataset at path over a new
// snapshot of the file, by their path in its directory, between commits.
func (t *Tree) sparseFresh(path string) (map[string]*file, error) {
	t.w.mu.Lock()
	defer t.w.mu.Unlock()
	f, err := t.w.rw.Snapshot(h5core.Options{ChunkCacheBytes: snapshotChunkCache})
	if err != nil {
		return nil, err
	}
	o, err := f.Open(path)
	if err != nil {
		return nil, err
	}
	ds, err := o.Dataset()
	if err != nil {
		return nil, err
	}
	if id, err := arrowexport.StatFileID(t.f.Name()); err == nil {
		t.setFileID(&id)
	}
	es, err := t.sparseEntries(o, ds)
	if err != nil {
		return nil, err
	}
	return sparseFiles(es), nil
}

// holdState keeps the space of the states the files show from being
// reused by later commits (h5core.RW.Hold) until release is called: a
// view taken after it reads its state whole. A read-only tree holds
// nothing.
func (t *Tree) holdState() (release func(), err error) {
	if t.w == nil {
		return func() {}, nil
	}
	for try := 0; ; try++ {
		// a commit that reused space past bound also moved bound on,
		// before the next try
		release, err = t.w.rw.Hold(t.w.bound.Load())
		if err == nil || try == 3 {
			return release, err
		}
	}
}

// rebindTo makes f show the view newView makes, from scratch.
func (f *file) rebindTo(newView func() (View, error)) { f.rebind(&file{newView: newView}) }
