package fsnode

import (
	"errors"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
)

// memberView is one of the files of an ordinary dataset member.
type memberView uint8

const (
	rawFile memberView = iota // name.raw
	npyFile                   // name.npy
	csvFile                   // name.csv
	pngFile                   // name.png
	numMemberViews
)

// memberExts are the suffixes of the memberViews, in their order.
var memberExts = [numMemberViews]string{".raw", ".npy", ".csv", ".png"}

// datasetEntries returns the files of an ordinary dataset o, the target
// of link l of group g, shown at where: name.raw (packed little-endian
// elements), name.npy and name.csv. A dataset whose elements have no
// packed form (variable-length data) has no .raw and .npy, and a .csv only
// if they are strings; one that cannot be read shows name.raw failing with
// EIO. A 2-D numeric dataset is also a picture, name.png. What decides the
// names is found from o now; the files and their views are made when they
// are looked up, from the dataset read again (see member.go).
func (t *Tree) datasetEntries(name, where string, o *h5core.Object, g *h5core.Object, l h5core.Link) []entry {
	ds, err := o.Dataset()
	if err != nil {
		return []entry{{name: name + ".raw", file: errorFile(where+".raw", err)}}
	}
	m := &memberFiles{g: g, name: l.Name}
	var es []entry
	add := func(mv memberView) { es = append(es, entry{name: name + memberExts[mv], mf: m, mv: mv}) }
	_, err = arrowexport.DatasetArray(ds)
	switch {
	case err == nil:
		add(rawFile)
		add(npyFile)
	case !errors.Is(err, arrowexport.ErrUnsupported):
		return []entry{{name: name + ".raw", file: errorFile(where+".raw", err)}}
	}
	_, err = arrowexport.DatasetTable(ds)
	switch {
	case err == nil:
		add(csvFile)
	case !errors.Is(err, arrowexport.ErrUnsupported):
		es = append(es, entry{name: name + ".csv", file: errorFile(where+".csv", err)})
	}
	if _, err := arrowexport.NewPNGView(o, arrowexport.Options{}); err == nil {
		add(pngFile)
	}
	return es // a dataset with no file form is described in .meta.json
}

// memberView makes view mv of dataset o.
func (t *Tree) memberView(o *h5core.Object, mv memberView) (View, error) {
	opt := t.viewOptions(objectKey(o))
	if mv == pngFile {
		return arrowexport.NewPNGView(o, opt)
	}
	ds, err := o.Dataset()
	if err != nil {
		return nil, err
	}
	if mv == csvFile {
		tb, err := arrowexport.DatasetTable(ds)
		if err != nil {
			return nil, err
		}
		return arrowexport.NewCSVView(tb, opt)
	}
	a, err := arrowexport.DatasetArray(ds)
	if err != nil {
		return nil, err
	}
	if mv == npyFile {
		return arrowexport.NewNpyView(a)
	}
	return arrowexport.NewRawView(a)
}
