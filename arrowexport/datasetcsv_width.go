package arrowexport

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/h5fs/h5fs/h5core"
)

// csvWidth bounds the CSV field of one element of HDF5 type t that a
// table.Decoder turns into Arrow type dt, for the size estimate; 0 when
// csvFieldBound's bound for dt is right. Fixed-length strings are bound
// by their length, enums by their longest member name, and values written
// as JSON (compounds, arrays) by the longest JSON text of their type,
// with every quote doubled.
func csvWidth(t *h5core.Datatype, dt arrow.DataType) int64 {
	switch dt.ID() {
	case arrow.STRING:
		if t.Class == h5core.ClassString {
			return 2*int64(t.Size) + 2
		}
		return 0
	case arrow.DICTIONARY:
		return 2*maxMemberName(t) + 2
	case arrow.FIXED_SIZE_BINARY:
		return base64Len(t.Size)
	case arrow.STRUCT, arrow.FIXED_SIZE_LIST:
		return 2*jsonWidth(t) + 2
	}
	return 0
}

// jsonWidth bounds the JSON text of one element of type t inside a struct
// or list value: numbers, strings (each byte escaped as \u00XX at worst),
// enum names, base64 of opaque bytes, objects and arrays.
func jsonWidth(t *h5core.Datatype) int64 {
	switch t.Class {
	case h5core.ClassFixedPoint, h5core.ClassTime, h5core.ClassBitfield:
		if t.Size == 1 || t.Size == 2 || t.Size == 4 || t.Size == 8 {
			return 24 // with float64 exponent forms of 1-byte values
		}
	case h5core.ClassFloat:
		return 26 // -0.0000012345678901234567, "NaN"
	case h5core.ClassString:
		return 6*int64(t.Size) + 2
	case h5core.ClassEnum:
		return 6*maxMemberName(t) + 2
	case h5core.ClassCompound:
		n := int64(2)
		for _, f := range t.Fields {
			n += 6*int64(len(f.Name)) + 4 + jsonWidth(f.Type)
		}
		return n
	case h5core.ClassArray:
		k := int64(1)
		for _, d := range t.Dims {
			k *= int64(d)
		}
		return 2 + k*(jsonWidth(t.Base)+1)
	case h5core.ClassVlen:
		return unknownWidth
	}
	if !t.IsFixedSize() {
		return unknownWidth
	}
	return base64Len(t.Size) + 2
}

// maxMemberName is the length of the longest member name of enum t.
func maxMemberName(t *h5core.Datatype) int64 {
	n := 0
	for _, m := range t.Members {
		n = max(n, len(m.Name))
	}
	return int64(n)
}

// base64Len is the length of the base64 text of n bytes.
func base64Len(n int) int64 { return int64(n+2) / 3 * 4 }

// fillSource is implemented by columns that can tell from the storage
// layout alone (no data read) that a range of rows holds only the fill
// value, so that a text view sizes such a range arithmetically: one row's
// width times the rows, whatever their number.
type fillSource interface {
	// allFill reports whether rows [start, start+n) are all fill.
	allFill(start, n int64) (bool, error)
}

// allFill reports whether rows [start, start+n) lie in storage never
// written (chunks never allocated).
func (c datasetColumn) allFill(start, n int64) (bool, error) {
	return c.r.allFill(start, n)
}

// allFill answers datasetColumn.allFill for every column of the rows,
// asking the chunk index once per range for the columns of one block.
func (r *datasetRows) allFill(start, n int64) (bool, error) {
	r.fillMu.Lock()
	if m := r.fillMemo; m.valid && m.start == start && m.n == n {
		r.fillMu.Unlock()
		return m.fill, nil
	}
	r.fillMu.Unlock()
	fill, err := r.ds.AllFill(start*r.rec, (start+n)*r.rec)
	if err != nil {
		return false, err
	}
	r.fillMu.Lock()
	r.fillMemo = fillMemo{valid: true, start: start, n: n, fill: fill}
	r.fillMu.Unlock()
	return fill, nil
}

// fillMemo is the last answer of datasetRows.allFill.
type fillMemo struct {
	valid    bool
	start, n int64
	fill     bool
}

// fillBlockLen returns the CSV length of rows [start, start+n) of t when
// every column says they are all fill: n times the length of the first
// row, with no other row read; ok is false when some column cannot say
// so.
func fillBlockLen(t *Table, start, n int64, oneColumn bool) (length int64, ok bool, err error) {
	if n == 0 {
		return 0, false, nil
	}
	for _, c := range t.Columns {
		f, is := c.(fillSource)
		if !is {
			return 0, false, nil
		}
		if ok, err := f.allFill(start, n); !ok || err != nil {
			return 0, false, err
		}
	}
	arrs, err := t.readColumnsInto(start, 1, make([][]byte, len(t.Columns)))
	if err != nil {
		return 0, false, err
	}
	defer releaseAll(arrs)
	row := int64(len(arrs)) // the commas and the line end
	for _, a := range arrs {
		k, _ := fieldsLen(a, oneColumn, nil)
		row += k
	}
	return n * row, true, nil
}
