package fsnode

import (
	"runtime"
	"sync"
)

// What stat shows of a file before it is opened. Its size is exact when a
// sizing pass costs little (cheapToSize), else an upper bound; either way the view made to find it is not kept:
// a listing of many files keeps one size per file, and open makes the
// view again (its sizing pass, if any, then comes from the sizing cache
// or runs again, cheaply).

// eagerSizing is the largest size estimate of a file that is sized at its
// first stat rather than at open: reading that little data costs less
// than the kernel asking again at every stat of a zero-timeout size.
const eagerSizing = 1 << 20

// eagerData is the most stored data a view with a larger estimate reads
// to be sized at its first stat (a CSV view's DataBytes): sizing 1 MiB of
// stored values as CSV took 4 ms (int64) to 30 ms (float64) on the
// 2-core test machine, under load.
const eagerData = 1 << 20

// cheapToSize reports whether view v is sized at its first stat.
func cheapToSize(v View) bool {
	if v.Size() <= eagerSizing {
		return true
	}
	d, ok := v.(interface{ DataBytes() int64 })
	return ok && d.DataBytes() <= eagerData
}

// statSize is the size stat showed of a file whose view was not made.
type statSize struct {
	known bool
	gen   int // the file's binding it was found for (rebind)
	size  int64
	exact bool
}

// statSize returns the size stat shows of file f, and whether it is
// exact: the open view's, else the one found at the first stat.
func (t *Tree) statSize(f *file) (size int64, exact bool, err error) {
	f.mu.Lock()
	v, verr, final, st, gen := f.view, f.err, f.finalized, f.stat, f.gen
	f.mu.Unlock()
	switch {
	case verr != nil:
		return 0, false, verr
	case v != nil:
		return v.Size(), final || v.Exact(), nil
	case st.known && st.gen == gen:
		return st.size, st.exact, nil
	}
	if st, err = t.firstStat(f); err != nil {
		f.mu.Lock()
		if f.gen == gen && f.err == nil {
			f.err = err
			t.opt.Log.Printf("h5fs: %s: %v", f.path, err)
		}
		f.mu.Unlock()
		return 0, false, err
	}
	st.known, st.gen = true, gen
	f.mu.Lock()
	if f.gen == gen {
		f.stat = st
	}
	f.mu.Unlock()
	return st.size, st.exact, nil
}

// firstStat finds the size of file f from the sizing cache, or else from
// a view made for the purpose, sized when that is cheap, and dropped.
func (t *Tree) firstStat(f *file) (st statSize, err error) {
	if f.sizeForStat != nil {
		err = guard(func() (err error) { st.size, st.exact, err = f.sizeForStat(eagerSizing); return err })
		return st, err
	}
	f.mu.Lock()
	newView := f.newView
	f.mu.Unlock()
	err = guard(func() error {
		v, err := newView()
		if err != nil {
			return err
		}
		if !v.Exact() && cheapToSize(v) {
			if err := v.Finalize(); err != nil {
				return err
			}
		}
		st.size, st.exact = v.Size(), v.Exact()
		return nil
	})
	return st, err
}

// presize finds what stat shows of every file of a listing but its
// hidden ones (see dirHandle), on every core, before the kernel asks for
// each in turn (a listing's lookups arrive one at a time).
func (t *Tree) presize(es []entry) {
	work := make(chan *file)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for f := range work {
				_, _, _ = t.statSize(f)
			}
		})
	}
	for _, e := range es {
		if e.file != nil && !hidden(e.name) {
			work <- e.file
		}
	}
	close(work)
	wg.Wait()
}
