package table

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/h5fs/h5fs/h5core"
)

// maxLabels bounds the size of a categories dataset, which is read whole.
const maxLabels = 1 << 24

// Categories is a categories dataset (§8.7): the labels that the integer
// codes of one or more categorical columns index.
type Categories struct {
	Path     string
	Type     *h5core.Datatype
	HDF5Type string
	Len      int64 // number of labels
	// Ordered is the `ordered` attribute (§6 boolean); OrderedSet tells
	// whether the attribute is present at all.
	Ordered, OrderedSet bool

	f        *h5core.File
	src      source
	typeOnce sync.Once
	conv     *converter
	typeErr  error
	valsOnce sync.Once
	vals     arrow.Array
	valsErr  error
}

func newCategories(f *h5core.File, ds *h5core.Dataset) *Categories {
	k := &Categories{Path: ds.Path, Type: ds.Type, HDF5Type: ds.Type.String(), f: f, src: wholeSource(ds)}
	if sh := ds.Shape(); len(sh) == 1 {
		k.Len = int64(sh[0])
	}
	return k
}

// valueType returns the Arrow type of the labels.
func (k *Categories) valueType() (arrow.DataType, error) {
	k.typeOnce.Do(func() { k.conv, k.typeErr = newConverter(k.Type, false, nil, nil) })
	if k.typeErr != nil {
		return nil, k.typeErr
	}
	return k.conv.dt, nil
}

// Labels returns every label as an Arrow array (strings padding-stripped).
// The labels are read once and shared: callers must not release them.
func (k *Categories) Labels() (arrow.Array, error) {
	if _, err := k.valueType(); err != nil {
		return nil, err
	}
	k.valsOnce.Do(func() {
		if k.Len > maxLabels {
			k.valsErr = fmt.Errorf("%s: %d labels (at most %d supported)", k.Path, k.Len, maxLabels)
			return
		}
		raw, err := k.src.read(0, k.Len)
		if err != nil {
			k.valsErr = err
			return
		}
		k.vals, k.valsErr = k.conv.build(k.f, raw, int(k.Len), nil, nil, 0)
	})
	return k.vals, k.valsErr
}
