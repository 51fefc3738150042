package fsnode

import (
	"github.com/h5fs/h5fs/h5core"
)

// datasetEntries returns the files of an ordinary dataset: name.raw,
// name.csv and name.npy.
func (t *Tree) datasetEntries(name, where string, o *h5core.Object) []entry {
	ds, err := o.Dataset()
	if err != nil {
		return []entry{{name: name + ".raw", file: errorFile(where+".raw", err)}}
	}
	return []entry{{name: name + ".raw", file: &file{path: where + ".raw", attrs: o.Path,
		newView: func() (View, error) { return rawView{ds}, nil }}}}
}

// rawView serves a dataset's stored bytes. PENDING: replaced by
// arrowexport's dataset views when they land.
type rawView struct{ ds *h5core.Dataset }

func (v rawView) Size() int64                             { return v.ds.Size() }
func (v rawView) Exact() bool                             { return true }
func (v rawView) Finalize() error                         { return nil }
func (v rawView) ReadAt(p []byte, off int64) (int, error) { return v.ds.ReadAt(p, off) }
