package arrowexport

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// RawView is an array's packed little-endian elements, row-major: its size
// is product(shape) × element size, exact from metadata.
type RawView struct {
	src  ArraySource
	size int64
}

// NewRawView returns the raw view of src.
func NewRawView(src ArraySource) (*RawView, error) {
	n, err := numElements(src.Shape())
	if err != nil {
		return nil, err
	}
	es := int64(src.ElemSize())
	if es <= 0 || (n > 0 && es > (1<<63-1)/n) {
		return nil, fmt.Errorf("arrowexport: raw view of %v elements of %d bytes: size out of range", src.Shape(), es)
	}
	return &RawView{src: src, size: n * es}, nil
}

// Ext returns "raw".
func (v *RawView) Ext() string { return "raw" }

// Size returns the exact size.
func (v *RawView) Size() int64 { return v.size }

// Exact returns true: the size follows from the shape.
func (v *RawView) Exact() bool { return true }

// Finalize does nothing: the size is always exact.
func (v *RawView) Finalize() error { return nil }

// ReadAt reads the packed elements at byte offset off.
func (v *RawView) ReadAt(p []byte, off int64) (int, error) {
	n, eof := clip(p, off, v.size)
	if n == 0 {
		return 0, eof
	}
	if err := readFull(v.src, p[:n], off); err != nil {
		return 0, err
	}
	return n, eof
}

// readFull fills p from src at off, treating a short read as an error.
func readFull(src ArraySource, p []byte, off int64) error {
	got, err := src.ReadAt(p, off)
	if got == len(p) {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("arrowexport: short read of %d bytes at %d: got %d", len(p), off, got)
	}
	return err
}

func numElements(shape []int64) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 || (d > 0 && n > (1<<63-1)/d) {
			return 0, fmt.Errorf("arrowexport: shape %v out of range", shape)
		}
		n *= d
	}
	return n, nil
}

// ColumnArray returns a fixed-width column as a one-dimensional array, for
// the raw and npy views. It fails with ErrUnsupported if c does not
// implement RawSource.
func ColumnArray(c ColumnSource) (ArraySource, error) {
	rs, ok := c.(RawSource)
	if !ok || rs.ElemSize() <= 0 {
		return nil, fmt.Errorf("arrowexport: column %q is not fixed width: %w", c.Field().Name, ErrUnsupported)
	}
	return &columnArray{c: c, rs: rs, dtype: columnDtype(c.Field().Type, rs.ElemSize())}, nil
}

type columnArray struct {
	c     ColumnSource
	rs    RawSource
	dtype string
}

func (a *columnArray) Shape() []int64 { return []int64{a.c.Len()} }
func (a *columnArray) Dtype() string  { return a.dtype }
func (a *columnArray) ElemSize() int  { return a.rs.ElemSize() }

// ReadAt reads whole elements through ReadRaw and copies the part asked for.
func (a *columnArray) ReadAt(p []byte, off int64) (int, error) {
	es := int64(a.rs.ElemSize())
	size := a.c.Len() * es
	n, eof := clip(p, off, size)
	if n == 0 {
		return 0, eof
	}
	first, last := off/es, (off+int64(n)-1)/es
	head := off - first*es
	if head == 0 && int64(n)%es == 0 {
		if err := a.rs.ReadRaw(first, last-first+1, p[:n]); err != nil {
			return 0, err
		}
		return n, eof
	}
	buf := make([]byte, (last-first+1)*es)
	if err := a.rs.ReadRaw(first, last-first+1, buf); err != nil {
		return 0, err
	}
	copy(p[:n], buf[head:])
	return n, eof
}

// columnDtype is the NumPy type string of packed elements of size es that
// hold values of Arrow type t.
func columnDtype(t arrow.DataType, es int) string {
	if d, ok := t.(*arrow.DictionaryType); ok {
		t = d.IndexType
	}
	kind := ""
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.DATE64,
		arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64, arrow.DURATION:
		kind = "i"
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		kind = "u"
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		kind = "f"
	case arrow.BOOL:
		kind = "b"
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY:
		return fmt.Sprintf("|S%d", es)
	}
	if fw, ok := t.(arrow.FixedWidthDataType); kind == "" || (ok && t.ID() != arrow.BOOL && fw.BitWidth() != 8*es) {
		return fmt.Sprintf("|V%d", es)
	}
	if es == 1 {
		return "|" + kind + "1"
	}
	return fmt.Sprintf("<%s%d", kind, es)
}
