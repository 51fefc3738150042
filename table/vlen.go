package table

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/h5fs/h5fs/h5core"
)

// Variable-length string columns have no stored element until the text
// is in the file's global heap. Encode gives their values staged: each a
// 4-byte little-endian length and its bytes, a missing value as the
// fill's text (§8.5), so that staged values concatenate as stored
// elements do. Append and Update store the text as new heap objects
// (Tx.NewVlen, one object per cell, as libhdf5 writes them) before
// anything else is written, and write the elements that point at them;
// an element a cell update replaces leaves its object behind, unused.
// Index entries holding strings (CHUNK_MINMAX bounds, BITMAP values) get
// objects of their own too: libhdf5 deletes the object of an element it
// overwrites, so no two elements may share one.

// isVlen reports whether c is a variable-length string column.
func (c *Column) isVlen() bool { return c.conv.kind == cvVlenStr }

// encodeVlen returns a's values staged.
func (c *Column) encodeVlen(a arrow.Array) ([]byte, error) {
	var out []byte
	for i := range a.Len() {
		s := c.fillS
		switch v, ok := stringOf(a, i); {
		case a.IsNull(i) && !c.Nullable:
			return nil, &RowError{Path: c.Path, Row: i, Err: errors.New("missing, but the column has no fill value")}
		case a.IsNull(i):
		case !ok:
			return nil, &RowError{Path: c.Path, Row: i, Err: fmt.Errorf("%s is not a string", a.DataType())}
		case len(v) > math.MaxUint32:
			return nil, &RowError{Path: c.Path, Row: i, Err: fmt.Errorf("string of %d bytes (at most %d)", len(v), math.MaxUint32)}
		case h5core.TrimString([]byte(v), c.Type.StrPad) != v:
			return nil, &RowError{Path: c.Path, Row: i, Err: fmt.Errorf("string %q would not read back the same (%s padding)", v, c.Type.StrPad)}
		default:
			s = v
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(len(s)))
		out = append(out, s...)
	}
	return out, nil
}

// stagedStrings splits staged values into their texts (aliasing b).
func stagedStrings(path string, b []byte) ([][]byte, error) {
	var out [][]byte
	for p := 0; p < len(b); {
		if len(b)-p < 4 {
			return nil, fmt.Errorf("%s: staged string %d: %d bytes left, not a 4-byte length", path, len(out), len(b)-p)
		}
		n := uint64(binary.LittleEndian.Uint32(b[p:]))
		p += 4
		if n > uint64(len(b)-p) {
			return nil, fmt.Errorf("%s: staged string %d of %d bytes overruns the %d left", path, len(out), n, len(b)-p)
		}
		out = append(out, b[p:p+int(n):p+int(n)])
		p += int(n)
	}
	return out, nil
}

// rowsOf returns the number of rows of new values b of column c (stored
// elements, or staged strings).
func (c *Column) rowsOf(b []byte) (int64, error) {
	if c.isVlen() {
		s, err := stagedStrings(c.Path, b)
		return int64(len(s)), err
	}
	size := int64(c.Type.Size)
	if int64(len(b))%size != 0 {
		return 0, fmt.Errorf("%s: %d bytes of new values are not elements of %d bytes", c.Path, len(b), size)
	}
	return int64(len(b)) / size, nil
}

// storeVlen stores the staged strings b of a variable-length column in
// tx's global heap and returns their elements, followed by pad null
// elements (zeros: an empty string, what an unwritten element reads as).
func (c *Column) storeVlen(tx Tx, b []byte, pad int64) ([]byte, error) {
	s, err := stagedStrings(c.Path, b)
	if err != nil {
		return nil, err
	}
	elems, err := tx.NewVlen(c.Type, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Path, err)
	}
	return append(elems, make([]byte, pad*int64(c.Type.Size))...), nil
}

// storeAppended returns the rows of an append (cols, Append's argument)
// as stored elements: the staged strings of variable-length columns
// stored, and such a column that grows to ext rows written to its end
// (nulls after the n1 rows of the table), so that no chunk of it is
// left unallocated: libhdf5 1.10 cannot read one (with a variable-length
// fill value) from a file open read-only.
func (t *Table) storeAppended(tx Tx, cols [][]byte, n1 int64, ext uint64) ([][]byte, error) {
	out := append([][]byte(nil), cols...)
	for j, c := range t.Columns {
		if !c.isVlen() {
			continue
		}
		var pad int64
		if ext > c.src.ds.Shape()[0] {
			pad = int64(ext) - n1
		}
		b, err := c.storeVlen(tx, cols[j], pad)
		if err != nil {
			return nil, err
		}
		out[j] = b
	}
	return out, nil
}

// storeCells returns cells (Update's argument) with the staged strings
// of variable-length columns stored.
func (t *Table) storeCells(tx Tx, cells []Cells) ([]Cells, error) {
	out := append([]Cells(nil), cells...)
	for i, cl := range out {
		if c := t.Columns[cl.Column]; c.isVlen() {
			b, err := c.storeVlen(tx, cl.Values, 0)
			if err != nil {
				return nil, err
			}
			out[i].Values = b
		}
	}
	return out, nil
}

// heapSlot is a variable-length string element of a planned index write
// that points at an object made at commit: at byte off of the write,
// holding s, of type t.
type heapSlot struct {
	off int
	t   *h5core.Datatype
	s   string
}

// storeSlots makes the heap objects of w's slots and points its
// elements at them.
func storeSlots(tx Tx, w *indexWrite) error {
	for _, sl := range w.heap {
		e, err := tx.NewVlen(sl.t, [][]byte{[]byte(sl.s)})
		if err != nil {
			return fmt.Errorf("%s: %w", w.path, err)
		}
		copy(w.p[sl.off:], e)
	}
	return nil
}
