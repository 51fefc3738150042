package arrowexport

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// COOParser reads lines in the form a sparse array's coo.csv serves them
// — the coordinates, then the value — for writing back: each line
// defines (or overwrites) its element; a line whose value field is empty
// erases it. It is the inverse of the coo.csv view, built on CSVParser.
type COOParser struct {
	p      *CSVParser
	rank   int
	es     int
	coords []uint64 // point-major, one point per parsed line
	vals   []byte   // es bytes per line (zeros for an erase)
	erase  []bool
}

// SparseShape is what a COOParser needs to know of a sparse array: a
// *sparsecoo.Matrix, or the *sparsecoo.Writer the lines go to (which,
// unlike a Matrix, reads no chunk to be made).
type SparseShape interface {
	Type() *h5core.Datatype
	Shape() []uint64
	ElemSize() int
}

// NewCOOParser returns a parser of the lines of the coo.csv of m.
func NewCOOParser(m SparseShape) (*COOParser, error) {
	t, err := cooTable(nil, m.Type(), m.Shape())
	if err != nil {
		return nil, err
	}
	p, err := NewCSVParser(t)
	if err != nil {
		return nil, err
	}
	return &COOParser{p: p, rank: len(m.Shape()), es: m.ElemSize()}, nil
}

// Write parses the complete lines of what was written so far. A line
// that does not parse (a field missing, a coordinate that is not a
// non-negative integer, a value the type cannot hold) is an error naming
// it; the parser keeps failing after that.
func (c *COOParser) Write(b []byte) error {
	if err := c.p.Write(b); err != nil {
		return err
	}
	return c.collect()
}

// Flush parses a last line without a line end, as if it had one.
func (c *COOParser) Flush() error {
	if err := c.p.Flush(); err != nil {
		return err
	}
	return c.collect()
}

// Pending returns the number of lines parsed and not yet applied.
func (c *COOParser) Pending() int { return len(c.erase) }

// collect moves the rows the CSV parser holds into the pending lines.
func (c *COOParser) collect() error {
	bs := c.p.NewBatches()
	defer func() {
		for _, b := range bs {
			for _, a := range b.Arrays {
				a.Release()
			}
		}
	}()
	for _, b := range bs {
		if err := c.collectBatch(b.Arrays, b.Lines); err != nil {
			return err
		}
	}
	return nil
}

// collectBatch moves one batch of parsed rows into the pending lines.
func (c *COOParser) collectBatch(arrs []arrow.Array, lines []int64) error {
	val := arrs[c.rank]
	var raw []byte
	if bufs := val.Data().Buffers(); len(bufs) > 1 && bufs[1] != nil {
		raw = bufs[1].Bytes()[val.Data().Offset()*c.es:]
	}
	for i := 0; i < val.Len(); i++ {
		for k := 0; k < c.rank; k++ {
			v, ok := arrs[k].(*array.Int64)
			if !ok {
				return fmt.Errorf("line %d: coordinate column %d of type %s", lines[i], k, arrs[k].DataType())
			}
			if v.IsNull(i) || v.Value(i) < 0 {
				return fmt.Errorf("line %d: coordinate %d is missing or negative", lines[i], k)
			}
			c.coords = append(c.coords, uint64(v.Value(i)))
		}
		if val.IsNull(i) {
			c.erase = append(c.erase, true)
			c.vals = append(c.vals, make([]byte, c.es)...)
			continue
		}
		if raw == nil || !fixedWidth(val.DataType(), c.es) {
			return fmt.Errorf("line %d: value of type %s cannot be written", lines[i], val.DataType())
		}
		c.erase = append(c.erase, false)
		c.vals = append(c.vals, raw[i*c.es:(i+1)*c.es]...)
	}
	return nil
}

// fixedWidth reports a primitive Arrow type whose values are es bytes.
func fixedWidth(t arrow.DataType, es int) bool {
	fw, ok := t.(arrow.FixedWidthDataType)
	return ok && fw.BitWidth() == 8*es
}

// Apply hands the pending lines to w in order (Define, or Erase for an
// empty value) and drops them. An error (a coordinate beyond the maximum
// extent: sparsecoo.ErrOutside) leaves w with the lines before it.
func (c *COOParser) Apply(w *sparsecoo.Writer) error {
	defer c.Discard()
	for i, e := range c.erase {
		p := c.coords[i*c.rank : (i+1)*c.rank]
		var err error
		if e {
			err = w.Erase(p)
		} else {
			err = w.Define(p, c.vals[i*c.es:(i+1)*c.es])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Discard drops the pending lines.
func (c *COOParser) Discard() {
	c.coords, c.vals, c.erase = c.coords[:0], c.vals[:0], c.erase[:0]
}

// Release frees the parser's buffers.
func (c *COOParser) Release() { c.p.Release() }
