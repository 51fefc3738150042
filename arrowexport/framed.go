package arrowexport

import (
	"fmt"
	"sync"
)

// framedLayout is the shape of a file made of a head, units rendered one
// at a time, and a foot: Arrow IPC files (magic, schema and dictionaries;
// record batches; footer) and Parquet files (magic; row groups; footer).
type framedLayout struct {
	Head  []byte
	Units []int64 // byte length of each unit
	Foot  []byte
}

func (l *framedLayout) size() int64 {
	n := int64(len(l.Head) + len(l.Foot))
	for _, u := range l.Units {
		n += u
	}
	return n
}

// framedView serves a framedLayout, rendering units on demand.
type framedView struct {
	ext      string
	kind     string // cache entry kind
	opts     Options
	estimate int64
	// plan computes the layout; it may need a data pass.
	plan func() (*framedLayout, error)
	// render returns the bytes of unit i, exactly Units[i] long.
	render func(i int) ([]byte, error)

	fin    sync.Mutex // serializes Finalize
	mu     sync.Mutex // guards lay and starts
	lay    *framedLayout
	starts []int64 // start of each unit, and the start of the foot
	units  unitCache
}

// setLayout installs l.
func (v *framedView) setLayout(l *framedLayout) {
	starts := make([]int64, len(l.Units)+1)
	starts[0] = int64(len(l.Head))
	for i, u := range l.Units {
		starts[i+1] = starts[i] + u
	}
	v.mu.Lock()
	v.lay, v.starts = l, starts
	v.mu.Unlock()
}

// loadCached installs the layout the cache holds, if any, so that a view
// of an unchanged file is exact from the start.
func (v *framedView) loadCached() {
	var l framedLayout
	if v.opts.load(v.kind, &l) {
		v.setLayout(&l)
	}
}

// Ext returns the format's file name extension.
func (v *framedView) Ext() string { return v.ext }

// Size returns the exact size once known, else the estimate.
func (v *framedView) Size() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.lay != nil {
		return v.lay.size()
	}
	return v.estimate
}

// Exact reports whether the layout is known.
func (v *framedView) Exact() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lay != nil
}

// Finalize computes the layout (or loads it from the cache) and stores it
// in the cache.
func (v *framedView) Finalize() error {
	v.fin.Lock()
	defer v.fin.Unlock()
	if v.Exact() {
		return nil
	}
	var l framedLayout
	if v.opts.load(v.kind, &l) {
		v.setLayout(&l)
		return nil
	}
	lp, err := v.plan()
	if err != nil {
		return err
	}
	v.setLayout(lp)
	v.opts.storeLogged(v.kind, lp)
	return nil
}

// ReadAt reads the file at off, rendering only the units it overlaps.
func (v *framedView) ReadAt(p []byte, off int64) (int, error) {
	if err := v.Finalize(); err != nil {
		return 0, err
	}
	v.mu.Lock()
	l, starts := v.lay, v.starts
	v.mu.Unlock()
	n, eof := clip(p, off, l.size())
	if n == 0 {
		return 0, eof
	}
	p = p[:n]
	if h := int64(len(l.Head)); off < h {
		c := copy(p, l.Head[off:])
		p, off = p[c:], off+int64(c)
	}
	end := starts[len(starts)-1]
	if len(p) > 0 && off < end {
		m := min(int64(len(p)), end-off)
		if err := v.units.readUnits(p[:m], off, starts, v.checkedRender); err != nil {
			return 0, err
		}
		p, off = p[m:], off+m
	}
	if len(p) > 0 {
		copy(p, l.Foot[off-end:])
	}
	return n, eof
}

// checkedRender renders unit i and checks its length against the layout,
// so a renderer that is not deterministic shows as an error, not as
// misplaced bytes.
func (v *framedView) checkedRender(i int) ([]byte, error) {
	b, err := v.render(i)
	if err != nil {
		return nil, err
	}
	if want := v.lay.Units[i]; int64(len(b)) != want {
		return nil, fmt.Errorf("arrowexport: %s unit %d rendered as %d bytes, layout has %d", v.ext, i, len(b), want)
	}
	return b, nil
}
