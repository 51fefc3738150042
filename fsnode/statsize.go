package fsnode

import (
	"runtime"
	"sync"
	"syscall"

	"github.com/h5fs/h5fs/h5core"
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

// measurer is a view that can be sized without keeping its sizing in the
// cache (arrowexport.CSVView): one sized at a stat is sized again, as
// cheaply, when it is opened, and kept then.
type measurer interface{ Measure() error }

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
	if f.m != nil {
		f.m.save(f.mv, st)
	}
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
			size := v.Finalize
			if m, ok := v.(measurer); ok {
				size = m.Measure
			}
			if err := size(); err != nil {
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
// each in turn (a listing's lookups arrive one at a time). The files of
// one dataset member share one opening of it.
func (t *Tree) presize(es []entry) {
	work := make(chan []entry)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for es := range work {
				open := t.reopenOnce(es[0])
				for _, e := range es {
					f := e.file
					if e.mf != nil {
						f = t.memberFile(e, open)
					}
					_, _, _ = t.statSize(f)
				}
			}
		})
	}
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && es[i].mf != nil && es[j].mf == es[i].mf {
			j++
		}
		if es[i].mode() == syscall.S_IFREG && !hidden(es[i].name) {
			work <- es[i:j]
		}
		i = j
	}
	close(work)
	wg.Wait()
}

// reopenOnce opens the dataset member of entry e (if it shows one) at its
// first use, for the files of e's member presize sizes.
func (t *Tree) reopenOnce(e entry) objOpener {
	if e.mf == nil {
		return nil
	}
	var once sync.Once
	var o *h5core.Object
	var err error
	return func() (*h5core.Object, error) {
		once.Do(func() { o, err = t.openMember(e.mf) })
		return o, err
	}
}
