package arrowexport

import (
	"fmt"
	"strings"

	"github.com/h5fs/h5fs/h5core"
)

// DatasetArray returns an HDF5 dataset as an ArraySource of packed
// little-endian elements, for the raw and npy views. The dimensions of an
// array datatype are appended to the dataset's shape. Datasets whose
// elements are not fixed-size (variable-length data) are ErrUnsupported.
func DatasetArray(ds *h5core.Dataset) (ArraySource, error) {
	t := ds.Type
	if !t.IsFixedSize() || t.Size <= 0 {
		return nil, fmt.Errorf("arrowexport: %s: %s elements have no raw form: %w", ds.Path, t, ErrUnsupported)
	}
	var shape []int64
	for _, d := range ds.Shape() {
		shape = append(shape, int64(d))
	}
	if ds.IsNull() {
		shape = []int64{0}
	}
	elem := t
	for elem.Class == h5core.ClassArray {
		for _, d := range elem.Dims {
			shape = append(shape, int64(d))
		}
		elem = elem.Base
	}
	dtype, err := npyDescr(elem)
	if err != nil {
		return nil, fmt.Errorf("arrowexport: %s: %w", ds.Path, err)
	}
	return &datasetArray{ds: ds, shape: shape, dtype: dtype, packed: elem.PackedSize()}, nil
}

type datasetArray struct {
	ds     *h5core.Dataset
	shape  []int64
	dtype  string
	packed int // packed size of the innermost element
}

func (a *datasetArray) Shape() []int64 { return a.shape }
func (a *datasetArray) Dtype() string  { return a.dtype }
func (a *datasetArray) ElemSize() int  { return a.packed }

// ReadAt reads packed elements: straight from the dataset when stored
// elements already are packed little-endian, else by converting the whole
// stored elements that cover the range.
func (a *datasetArray) ReadAt(p []byte, off int64) (int, error) {
	t := a.ds.Type
	if t.IsPackedLE() {
		return a.ds.ReadAt(p, off)
	}
	ps, ss := int64(t.PackedSize()), int64(t.Size)
	size := a.ds.Size() / ss * ps
	n, eof := clip(p, off, size)
	if n == 0 {
		return 0, eof
	}
	first, last := off/ps, (off+int64(n)-1)/ps
	stored := make([]byte, (last-first+1)*ss)
	if got, err := a.ds.ReadAt(stored, first*ss); got != len(stored) {
		return 0, err
	}
	packed := t.AppendPackedLE(make([]byte, 0, (last-first+1)*ps), stored, int(last-first+1))
	copy(p[:n], packed[off-first*ps:])
	return n, eof
}

// npyDescr is the NumPy array-protocol type string of t's packed
// little-endian elements.
func npyDescr(t *h5core.Datatype) (string, error) {
	endian := func(kind string, size int) string {
		if size == 1 {
			return fmt.Sprintf("|%s1", kind)
		}
		return fmt.Sprintf("<%s%d", kind, size)
	}
	switch t.Class {
	case h5core.ClassFixedPoint:
		if t.Signed {
			return endian("i", t.Size), nil
		}
		return endian("u", t.Size), nil
	case h5core.ClassFloat:
		if t.ByteOrder == h5core.VAXOrder {
			return "", fmt.Errorf("VAX floats: %w", ErrUnsupported)
		}
		return endian("f", t.Size), nil
	case h5core.ClassTime:
		return endian("i", t.Size), nil
	case h5core.ClassBitfield, h5core.ClassReference:
		return endian("u", t.Size), nil
	case h5core.ClassString:
		return fmt.Sprintf("|S%d", t.Size), nil
	case h5core.ClassOpaque:
		return fmt.Sprintf("|V%d", t.Size), nil
	case h5core.ClassEnum:
		return npyDescr(t.Base)
	case h5core.ClassComplex:
		return endian("c", 2*t.Base.Size), nil
	case h5core.ClassCompound:
		var b strings.Builder
		b.WriteString("[")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			ft, dims := f.Type, ""
			if ft.Class == h5core.ClassArray {
				var ds []string
				for ft.Class == h5core.ClassArray {
					for _, d := range ft.Dims {
						ds = append(ds, fmt.Sprint(d))
					}
					ft = ft.Base
				}
				dims = ", (" + strings.Join(ds, ", ") + ",)"
			}
			d, err := npyDescr(ft)
			if err != nil {
				return "", err
			}
			if ft.Class != h5core.ClassCompound {
				d = "'" + d + "'"
			}
			fmt.Fprintf(&b, "(%s, %s%s)", pyString(f.Name), d, dims)
		}
		b.WriteString("]")
		return b.String(), nil
	}
	return "", fmt.Errorf("%s elements: %w", t, ErrUnsupported)
}

// pyString is s as a Python string literal.
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
