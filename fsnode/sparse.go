package fsnode

import (
	"strings"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// sparseEntry returns the directory of a sparse matrix — a dataset with
// structured chunks, or an anndata csr/csc group — and whether o is one.
func (t *Tree) sparseEntry(name string, o *h5core.Object) (entry, bool) {
	switch o.Kind() {
	case h5core.KindDataset:
		ds, err := o.Dataset()
		if err != nil || !ds.IsSparse() {
			return entry{}, false
		}
		return entry{name: name, dir: t.sparseDir(o, ds)}, true
	case h5core.KindGroup:
		if sparsecoo.IsSparseGroup(o) {
			return entry{name: name, dir: t.sparseDir(o, nil)}, true
		}
	}
	return entry{}, false
}

// sparseDir lists a sparse matrix's views: coo.csv/.arrow/.parquet, for
// rank 2 csr/{indptr,indices,data}.npy and matrix.mtx, dense.npy for
// datasets, and .meta.json. ds is nil for an anndata group.
func (t *Tree) sparseDir(o *h5core.Object, ds *h5core.Dataset) *dir {
	return &dir{attrs: o, list: func() ([]entry, error) {
		es, err := t.sparseEntries(o, ds)
		if err == nil && ds != nil {
			t.trackSparse(o.Path, es)
		}
		return es, err
	}}
}

// sparseEntries makes the entries of sparseDir.
func (t *Tree) sparseEntries(o *h5core.Object, ds *h5core.Dataset) ([]entry, error) {
	var m *sparsecoo.Matrix
	var err error
	if ds != nil {
		m, err = sparsecoo.Open(ds)
	} else {
		m, err = sparsecoo.OpenGroup(o)
	}
	if err != nil {
		return nil, err
	}
	views, err := arrowexport.SparseViews(ds, m, t.viewOptions(objectKey(o)))
	if err != nil {
		return nil, err
	}
	es := []entry{t.metaEntry(o, nil, nil)}
	if ds != nil {
		es[0] = t.viewEntry(metaName, o, func() (View, error) {
			b, err := arrowexport.SparseMetaJSON(o, ds, m)
			return bytesView(b), err
		})
	}
	var csr []entry
	for _, n := range arrowexport.SparseViewNames(len(m.Shape())) {
		v, ok := views[n]
		if !ok {
			continue
		}
		e := t.viewEntry(strings.TrimPrefix(n, "csr/"), o, func() (View, error) { return v, nil })
		if n == "coo.csv" && ds != nil {
			e.file.hooks = t.cooHooks(o.Path)
		}
		if strings.HasPrefix(n, "csr/") {
			csr = append(csr, e)
		} else {
			es = append(es, e)
		}
	}
	if csr != nil {
		// csr/ describes the same matrix as its parent
		meta := es[0]
		meta.file = &file{path: t.f.Name() + ":" + o.Path + " csr/" + metaName, attrs: o, newView: meta.file.newView}
		csr = append([]entry{meta}, csr...)
		es = append(es, entry{name: "csr", dir: &dir{attrs: o, list: func() ([]entry, error) { return csr, nil }}})
	}
	return es, nil
}
