package fsnode

import (
	"errors"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
)

// datasetEntries returns the files of an ordinary dataset: name.raw
// (packed little-endian elements) and name.npy. A dataset whose elements
// have no packed form (variable-length data) has neither; one that cannot
// be read shows name.raw failing with EIO.
func (t *Tree) datasetEntries(name, where string, o *h5core.Object) []entry {
	a, err := datasetArray(o)
	if errors.Is(err, arrowexport.ErrUnsupported) {
		return nil // described in .meta.json; no file form yet
	}
	if err != nil {
		return []entry{{name: name + ".raw", file: errorFile(where+".raw", err)}}
	}
	return []entry{
		t.viewEntry(name+".raw", o.Path, func() (View, error) { return arrowexport.NewRawView(a) }),
		t.viewEntry(name+".npy", o.Path, func() (View, error) { return arrowexport.NewNpyView(a) }),
	}
}

// datasetArray returns dataset o as the renderers take it.
func datasetArray(o *h5core.Object) (arrowexport.ArraySource, error) {
	ds, err := o.Dataset()
	if err != nil {
		return nil, err
	}
	return arrowexport.DatasetArray(ds)
}
