package table

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/h5fs/h5fs/h5core"
)

// missRule is how a column marks missing rows.
type missRule uint8

const (
	missNone     missRule = iota
	missBytes             // §8.5: the stored element equals the fill value bit for bit
	missNaN               // §8.5 with a NaN fill: the element is a NaN
	missString            // §8.5 for strings: the text (padding stripped) equals the fill's
	missNegative          // anndata categorical codes: a negative code
)

// isNaNElem reports whether a stored float element is a NaN.
func isNaNElem(t *h5core.Datatype, b []byte) bool {
	return t.IsIEEE() && math.IsNaN(t.Float64(b))
}

// missingAt reports whether stored element i of raw is missing under the
// NaN and negative-code rules (fills are matched by fillRows, strings by
// their text).
func (c *Column) missingAt(raw []byte, i int) bool {
	size := c.src.size
	e := raw[i*size : (i+1)*size]
	switch c.miss {
	case missNaN:
		return isNaNElem(c.Type, e)
	case missNegative:
		return c.Type.Int64(e) < 0
	}
	return false
}

// validity returns per-row validity for n rows starting at start (nil
// when every row is valid) and the number of missing rows. strs holds the
// decoded text of string columns.
func (c *Column) validity(raw []byte, strs []string, start, n int64) ([]bool, int, error) {
	if !c.Nullable {
		return nil, 0, nil
	}
	var valid []bool
	nulls := 0
	mark := func(i int) {
		if valid == nil {
			valid = make([]bool, n)
			for j := range valid {
				valid[j] = true
			}
		}
		if valid[i] {
			valid[i] = false
			nulls++
		}
	}
	if c.mask != nil {
		m, err := c.mask.read(start, n)
		if err != nil {
			return nil, 0, err
		}
		for i := 0; i < int(n); i++ {
			if m[i*c.mask.size] != 0 {
				mark(i)
			}
		}
	}
	switch c.miss {
	case missNone:
	case missString:
		for i, s := range strs {
			if s == c.fillS {
				mark(i)
			}
		}
	case missBytes:
		for _, i := range fillRows(raw, c.Fill, int(n)) {
			mark(i)
		}
	default:
		for i := 0; i < int(n); i++ {
			if c.missingAt(raw, i) {
				mark(i)
			}
		}
	}
	if valid != nil && nulls == 0 {
		valid = nil
	}
	return valid, nulls, nil
}

// fillRows returns the rows of raw (n elements of len(fill) bytes) that
// equal fill bit for bit, with word compares for the common sizes.
func fillRows(raw, fill []byte, n int) []int {
	var rows []int
	switch len(fill) {
	case 1:
		for i, b := range raw[:n] {
			if b == fill[0] {
				rows = append(rows, i)
			}
		}
	case 2:
		f := binary.LittleEndian.Uint16(fill)
		for i := 0; i < n; i++ {
			if binary.LittleEndian.Uint16(raw[2*i:]) == f {
				rows = append(rows, i)
			}
		}
	case 4:
		f := binary.LittleEndian.Uint32(fill)
		for i := 0; i < n; i++ {
			if binary.LittleEndian.Uint32(raw[4*i:]) == f {
				rows = append(rows, i)
			}
		}
	case 8:
		f := binary.LittleEndian.Uint64(fill)
		for i := 0; i < n; i++ {
			if binary.LittleEndian.Uint64(raw[8*i:]) == f {
				rows = append(rows, i)
			}
		}
	default:
		size := len(fill)
		for i := 0; i < n; i++ {
			if bytes.Equal(raw[i*size:(i+1)*size], fill) {
				rows = append(rows, i)
			}
		}
	}
	return rows
}
