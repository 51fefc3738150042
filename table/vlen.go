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
// is in the file's global heap, and a new label of a categorical column
// has no code until it is added to the categories dataset. Encode gives
// the values of such columns staged: each a 4-byte little-endian length
// and its bytes (a string's text, a label), so that staged values
// concatenate as stored elements do; a missing string is the fill's text
// (§8.5), a missing label the length 0xffffffff. Append and Update store
// them before anything else is written: the text of strings as new heap
// objects (Tx.NewVlen, one object per cell, as libhdf5 writes them),
// labels as their codes, new labels appended to their categories
// dataset (canGrow). An element a cell update replaces leaves its heap
// object behind, unused. Index entries holding strings (CHUNK_MINMAX
// bounds, BITMAP values) get objects of their own too: libhdf5 deletes
// the object of an element it overwrites, so no two elements may share
// one.

// missingLabel is the staged length of a missing label.
const missingLabel = math.MaxUint32

// isVlen reports whether c is a variable-length string column.
func (c *Column) isVlen() bool { return c.conv.kind == cvVlenStr }

// growsLabels reports whether c is a categorical column whose labels
// can grow: its values are staged labels.
func (c *Column) growsLabels() bool {
	return c.conv.kind == cvCat && c.Categories != nil && c.Categories.canGrow() == nil
}

// staged reports whether Encode gives c's values staged.
func (c *Column) staged() bool { return c.isVlen() || c.growsLabels() }

// encodeStaged returns a's values staged.
func (c *Column) encodeStaged(a arrow.Array) ([]byte, error) {
	var out []byte
	for i := range a.Len() {
		if a.IsNull(i) && !c.Nullable {
			return nil, &RowError{Path: c.Path, Row: i, Err: errors.New("missing, but the column has no fill value")}
		}
		var s string
		var err error
		switch {
		case c.isVlen():
			s, err = c.vlenText(a, i)
		case a.IsNull(i):
			out = binary.LittleEndian.AppendUint32(out, missingLabel)
			continue
		default:
			s, err = c.label(a, i)
		}
		if err != nil {
			return nil, &RowError{Path: c.Path, Row: i, Err: err}
		}
		if len(s) >= missingLabel {
			return nil, &RowError{Path: c.Path, Row: i, Err: fmt.Errorf("string of %d bytes (at most %d)", len(s), missingLabel-1)}
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(len(s)))
		out = append(out, s...)
	}
	return out, nil
}

// vlenText returns the text stored for value i of a: the string, or
// the fill's text when it is missing.
func (c *Column) vlenText(a arrow.Array, i int) (string, error) {
	if a.IsNull(i) {
		return c.fillS, nil
	}
	v, ok := stringOf(a, i)
	switch {
	case !ok:
		return "", fmt.Errorf("%s is not a string", a.DataType())
	case h5core.TrimString([]byte(v), c.Type.StrPad) != v:
		return "", fmt.Errorf("string %q would not read back the same (%s padding)", v, c.Type.StrPad)
	}
	return v, nil
}

// label returns label i of a, checked against the categories dataset's
// type when it is new.
func (c *Column) label(a arrow.Array, i int) (string, error) {
	l := labelOf(a, i)
	codes, err := c.conv.labelCodes()
	if err != nil {
		return "", err
	}
	if _, ok := codes[l]; !ok {
		if err := c.Categories.checkLabel(l); err != nil {
			return "", fmt.Errorf("new label: %v", err)
		}
	}
	return l, nil
}

// stageCodes returns the stored codes of a categorical column staged
// as their labels: a code that is not one of the labels' (nor the fill)
// is an error naming its row.
func (c *Column) stageCodes(stored []byte) ([]byte, error) {
	labels, err := c.Categories.Labels()
	if err != nil {
		return nil, err
	}
	size := c.Type.Size
	var out []byte
	for i := 0; i < len(stored)/size; i++ {
		e := stored[i*size : (i+1)*size]
		code := c.Type.Int64(e)
		switch {
		case len(c.Fill) == size && string(e) == string(c.Fill):
			out = binary.LittleEndian.AppendUint32(out, missingLabel)
			continue
		case code < 0 || code >= int64(labels.Len()) || !labels.IsValid(int(code)):
			return nil, &RowError{Path: c.Path, Row: i, Err: fmt.Errorf("code %d is not one of the %d labels' codes", code, labels.Len())}
		}
		l := labels.ValueStr(int(code))
		out = binary.LittleEndian.AppendUint32(out, uint32(len(l)))
		out = append(out, l...)
	}
	return out, nil
}

// stagedStrings splits staged values into their texts (aliasing b),
// nil for a missing label.
func stagedStrings(path string, b []byte) ([][]byte, error) {
	var out [][]byte
	for p := 0; p < len(b); {
		if len(b)-p < 4 {
			return nil, fmt.Errorf("%s: staged string %d: %d bytes left, not a 4-byte length", path, len(out), len(b)-p)
		}
		n := uint64(binary.LittleEndian.Uint32(b[p:]))
		p += 4
		if n == missingLabel {
			out = append(out, nil)
			continue
		}
		if n > uint64(len(b)-p) {
			return nil, fmt.Errorf("%s: staged string %d of %d bytes overruns the %d left", path, len(out), n, len(b)-p)
		}
		out = append(out, b[p:p+int(n):p+int(n)])
		p += int(n)
	}
	return out, nil
}

// rowsOf returns the number of rows of new values b of column c (stored
// elements, or staged values).
func (c *Column) rowsOf(b []byte) (int64, error) {
	if c.staged() {
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
	for i, v := range s {
		if v == nil {
			return nil, fmt.Errorf("%s: staged string %d is a missing label", c.Path, i)
		}
	}
	elems, err := tx.NewVlen(c.Type, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Path, err)
	}
	return append(elems, make([]byte, pad*int64(c.Type.Size))...), nil
}

// storeAppended returns the rows of an append (cols, Append's argument)
// as stored elements: staged values stored, and a variable-length
// column that grows to ext rows written to its end (nulls after the n1
// rows of the table), so that no chunk of it is left unallocated:
// libhdf5 1.10 cannot read one (with a variable-length fill value) from
// a file open read-only.
func (t *Table) storeAppended(tx Tx, cols [][]byte, n1 int64, ext uint64) ([][]byte, error) {
	out := append([][]byte(nil), cols...)
	la := &labelAdder{tx: tx}
	for j, c := range t.Columns {
		var err error
		switch {
		case c.isVlen():
			var pad int64
			if ext > c.src.ds.Shape()[0] {
				pad = int64(ext) - n1
			}
			out[j], err = c.storeVlen(tx, cols[j], pad)
		case c.growsLabels():
			out[j], err = la.storeLabels(c, cols[j])
		}
		if err != nil {
			return nil, err
		}
	}
	return out, la.flush()
}

// storeCells returns cells (Update's argument) with their staged values
// stored.
func (t *Table) storeCells(tx Tx, cells []Cells) ([]Cells, error) {
	out := append([]Cells(nil), cells...)
	la := &labelAdder{tx: tx}
	for i, cl := range out {
		var err error
		switch c := t.Columns[cl.Column]; {
		case c.isVlen():
			out[i].Values, err = c.storeVlen(tx, cl.Values, 0)
		case c.growsLabels():
			out[i].Values, err = la.storeLabels(c, cl.Values)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, la.flush()
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
// elements at them: one NewVlen for each run of slots of one type.
func storeSlots(tx Tx, w *indexWrite) error {
	for i := 0; i < len(w.heap); {
		j := i + 1
		for j < len(w.heap) && w.heap[j].t.String() == w.heap[i].t.String() {
			j++
		}
		seqs := make([][]byte, j-i)
		for k, sl := range w.heap[i:j] {
			seqs[k] = []byte(sl.s)
		}
		e, err := tx.NewVlen(w.heap[i].t, seqs)
		if err != nil {
			return fmt.Errorf("%s: %w", w.path, err)
		}
		size := w.heap[i].t.Size
		for k, sl := range w.heap[i:j] {
			copy(w.p[sl.off:], e[k*size:(k+1)*size])
		}
		i = j
	}
	return nil
}
