package fsnode

import (
	"errors"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
)

// datasetEntries returns the files of an ordinary dataset: name.raw
// (packed little-endian elements), name.npy and name.csv. A dataset whose
// elements have no packed form (variable-length data) has no .raw and
// .npy, and a .csv only if they are strings; one that cannot be read
// shows name.raw failing with EIO. A 2-D numeric dataset is also a
// picture, name.png.
func (t *Tree) datasetEntries(name, where string, o *h5core.Object) []entry {
	ds, err := o.Dataset()
	if err != nil {
		return []entry{{name: name + ".raw", file: errorFile(where+".raw", err)}}
	}
	var es []entry
	a, err := arrowexport.DatasetArray(ds)
	switch {
	case err == nil:
		es = append(es,
			t.viewEntry(name+".raw", o, func() (View, error) { return arrowexport.NewRawView(a) }),
			t.viewEntry(name+".npy", o, func() (View, error) { return arrowexport.NewNpyView(a) }))
	case !errors.Is(err, arrowexport.ErrUnsupported):
		return []entry{{name: name + ".raw", file: errorFile(where+".raw", err)}}
	}
	tb, err := arrowexport.DatasetTable(ds)
	switch {
	case err == nil:
		opt := t.viewOptions(objectKey(o))
		es = append(es, t.viewEntry(name+".csv", o, func() (View, error) { return arrowexport.NewCSVView(tb, opt) }))
	case !errors.Is(err, arrowexport.ErrUnsupported):
		es = append(es, entry{name: name + ".csv", file: errorFile(where+".csv", err)})
	}
	if _, err := arrowexport.NewPNGView(o, arrowexport.Options{}); err == nil {
		opt := t.viewOptions(objectKey(o))
		es = append(es, t.viewEntry(name+".png", o, func() (View, error) { return arrowexport.NewPNGView(o, opt) }))
	}
	return es // a dataset with no file form is described in .meta.json
}
