package fsnode

import (
	"errors"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
)

// datasetEntries returns the files of an ordinary dataset o, shown at
// where and reached again by reopen: name.raw (packed little-endian
// elements), name.npy and name.csv. A dataset whose elements have no
// packed form (variable-length data) has no .raw and .npy, and a .csv only
// if they are strings; one that cannot be read shows name.raw failing with
// EIO. A 2-D numeric dataset is also a picture, name.png. What decides the
// names is found from o now; the views are made from the dataset read
// again (see member.go).
func (t *Tree) datasetEntries(name, where string, o *h5core.Object, reopen objOpener) []entry {
	ds, err := o.Dataset()
	if err != nil {
		return []entry{{name: name + ".raw", file: errorFile(where+".raw", err)}}
	}
	dataset := func(view func(ds *h5core.Dataset) (View, error)) func(o *h5core.Object) (View, error) {
		return func(o *h5core.Object) (View, error) {
			ds, err := o.Dataset()
			if err != nil {
				return nil, err
			}
			return view(ds)
		}
	}
	var es []entry
	_, err = arrowexport.DatasetArray(ds)
	switch {
	case err == nil:
		es = append(es,
			t.memberFile(name+".raw", where, reopen, dataset(func(ds *h5core.Dataset) (View, error) {
				a, err := arrowexport.DatasetArray(ds)
				if err != nil {
					return nil, err
				}
				return arrowexport.NewRawView(a)
			})),
			t.memberFile(name+".npy", where, reopen, dataset(func(ds *h5core.Dataset) (View, error) {
				a, err := arrowexport.DatasetArray(ds)
				if err != nil {
					return nil, err
				}
				return arrowexport.NewNpyView(a)
			})))
	case !errors.Is(err, arrowexport.ErrUnsupported):
		return []entry{{name: name + ".raw", file: errorFile(where+".raw", err)}}
	}
	key := objectKey(o)
	_, err = arrowexport.DatasetTable(ds)
	switch {
	case err == nil:
		es = append(es, t.memberFile(name+".csv", where, reopen, dataset(func(ds *h5core.Dataset) (View, error) {
			tb, err := arrowexport.DatasetTable(ds)
			if err != nil {
				return nil, err
			}
			return arrowexport.NewCSVView(tb, t.viewOptions(key))
		})))
	case !errors.Is(err, arrowexport.ErrUnsupported):
		es = append(es, entry{name: name + ".csv", file: errorFile(where+".csv", err)})
	}
	if _, err := arrowexport.NewPNGView(o, arrowexport.Options{}); err == nil {
		es = append(es, t.memberFile(name+".png", where, reopen, func(o *h5core.Object) (View, error) {
			return arrowexport.NewPNGView(o, t.viewOptions(key))
		}))
	}
	return es // a dataset with no file form is described in .meta.json
}
