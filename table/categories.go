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

// canGrow reports, as an error, why labels cannot be added to k (§8.7
// lets a categorical's labels grow where the dataset can): a new label
// goes at the end, so an ordered label set, whose new label's place is
// unknown, does not grow; nor does a dataset at its maximum extent, nor
// labels other than strings.
func (k *Categories) canGrow() error {
	ds := k.src.ds
	mx := ds.MaxShape()
	switch {
	case k.Ordered:
		return fmt.Errorf("%s: its labels are ordered: a new label's place is unknown", k.Path)
	case ds.Layout() != "chunked" || len(mx) != 1 || (mx[0] != h5core.Unlimited && mx[0] <= uint64(k.Len)):
		return fmt.Errorf("%s: a %s dataset of maximum extent %v cannot grow", k.Path, ds.Layout(), mx)
	case !isString(k.Type):
		return fmt.Errorf("%s: labels of type %s (only string labels are added)", k.Path, k.Type)
	}
	return nil
}

// checkLabel refuses a label that k's type would not store or read back
// the same.
func (k *Categories) checkLabel(s string) error {
	if k.Type.Class == h5core.ClassString {
		_, err := padString(k.Type, s)
		return err
	}
	if h5core.TrimString([]byte(s), k.Type.StrPad) != s {
		return fmt.Errorf("label %q would not read back the same (%s padding)", s, k.Type.StrPad)
	}
	return nil
}

// labelAdder gives the labels of one mutation their codes, adding those
// the categories datasets do not hold yet (in the order first seen, one
// code after another) and, at flush, the labels to the datasets.
type labelAdder struct {
	tx    Tx
	order []*Categories
	added map[*Categories][]string
	codes map[*Categories]map[string]int64
}

// storeLabels returns the stored codes of column c's staged labels
// (missing values as the fill).
func (la *labelAdder) storeLabels(c *Column, b []byte) ([]byte, error) {
	labels, err := stagedStrings(c.Path, b)
	if err != nil {
		return nil, err
	}
	known, err := c.conv.labelCodes()
	if err != nil {
		return nil, err
	}
	k := c.Categories
	if la.codes == nil {
		la.added, la.codes = map[*Categories][]string{}, map[*Categories]map[string]int64{}
	}
	if la.codes[k] == nil {
		la.codes[k] = map[string]int64{}
		la.order = append(la.order, k)
	}
	fill := int64(-1)
	if len(c.Fill) == c.Type.Size {
		fill = c.Type.Int64(c.Fill)
	}
	out := make([]byte, 0, len(labels)*c.Type.Size)
	for i, l := range labels {
		if l == nil {
			out = append(out, c.Fill...)
			continue
		}
		code, ok := known[string(l)]
		if !ok {
			code, ok = la.codes[k][string(l)]
		}
		if !ok {
			code = k.Len + int64(len(la.added[k]))
			err := fitsPrecision(c.Type, code)
			if err == nil && code == fill {
				err = fmt.Errorf("its code would be %d, the column's fill (missing)", code)
			}
			if err != nil {
				return nil, &RowError{Path: c.Path, Row: i, Err: fmt.Errorf("new label %q: %v", l, err)}
			}
			la.codes[k][string(l)] = code
			la.added[k] = append(la.added[k], string(l))
		}
		e, err := encodeUints(c.Type, []uint64{uint64(code)})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Path, err)
		}
		out = append(out, e...)
	}
	return out, nil
}

// flush appends the new labels to their categories datasets.
func (la *labelAdder) flush() error {
	for _, k := range la.order {
		labels := la.added[k]
		if len(labels) == 0 {
			continue
		}
		var elems []byte
		if k.Type.Class == h5core.ClassVlen {
			seqs := make([][]byte, len(labels))
			for i, l := range labels {
				seqs[i] = []byte(l)
			}
			e, err := la.tx.NewVlen(k.Type, seqs)
			if err != nil {
				return fmt.Errorf("%s: %w", k.Path, err)
			}
			elems = e
		} else {
			for _, l := range labels {
				e, err := padString(k.Type, l)
				if err != nil {
					return fmt.Errorf("%s: %w", k.Path, err)
				}
				elems = append(elems, e...)
			}
		}
		if err := la.tx.SetExtent(k.Path, []uint64{uint64(k.Len) + uint64(len(labels))}); err != nil {
			return err
		}
		if err := la.tx.WriteAt(k.Path, elems, k.Len*int64(k.Type.Size)); err != nil {
			return err
		}
	}
	return nil
}
