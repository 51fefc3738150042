package fsnode

import (
	"errors"
	"fmt"

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
	a.t.refreshLazily(lt, gen, a.t.sparseFresh)
	return nil
}

func (a *cooAppender) Abort() {
	a.p.Release()
	a.sw.Discard()
}

// sparseFresh makes the files of the sparse dataset at path over a new
// snapshot of the file, by their path in its directory; w.mu is held.
func (t *Tree) sparseFresh(path string) (map[string]*file, error) {
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
