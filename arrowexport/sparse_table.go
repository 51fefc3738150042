package arrowexport

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// sparseUnit is the rows per unit of the sparse COO columns and of the
// Matrix Market view's blocks.
const sparseUnit = 1 << 16

// SparseCOOTable returns the defined elements of a sparse array as a table
// with one row per element in row-major order: columns row, col, value
// for two dimensions, i0, i1, ..., value otherwise. Coordinates are int64;
// values keep the numeric type. Render it with NewCSVView, NewArrowView
// or NewParquetView (coo.csv, coo.arrow, coo.parquet).
func SparseCOOTable(m *sparsecoo.Matrix) (*Table, error) {
	return cooTable(m, m.Type(), m.Shape())
}

// cooTable is SparseCOOTable for elements of type typ in an array of the
// given shape; with m nil the table only describes its columns (to parse
// them).
func cooTable(m *sparsecoo.Matrix, typ *h5core.Datatype, shape []uint64) (*Table, error) {
	vt, err := sparseValueType(typ)
	if err != nil {
		return nil, err
	}
	rank := len(shape)
	t := &Table{Metadata: map[string]string{"shape": fmt.Sprint(shape)}}
	for k := 0; k < rank; k++ {
		name := fmt.Sprintf("i%d", k)
		if rank == 2 {
			name = [2]string{"row", "col"}[k]
		}
		t.Columns = append(t.Columns, &cooColumn{m: m, dim: k, field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64}})
	}
	t.Columns = append(t.Columns, &cooColumn{m: m, dim: -1, field: arrow.Field{Name: "value", Type: vt}})
	return t, nil
}

// sparseValueType maps a numeric HDF5 datatype to its Arrow type.
func sparseValueType(t *h5core.Datatype) (arrow.DataType, error) {
	ints := map[int][2]arrow.DataType{
		1: {arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Int8},
		2: {arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int16},
		4: {arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Int32},
		8: {arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Int64},
	}
	switch t.Class {
	case h5core.ClassFixedPoint:
		if p, ok := ints[t.Size]; ok {
			if t.Signed {
				return p[1], nil
			}
			return p[0], nil
		}
	case h5core.ClassFloat:
		switch {
		case t.ByteOrder == h5core.VAXOrder:
		case t.Size == 4:
			return arrow.PrimitiveTypes.Float32, nil
		case t.Size == 8:
			return arrow.PrimitiveTypes.Float64, nil
		}
	}
	return nil, fmt.Errorf("arrowexport: sparse values of type %s: %w", t, ErrUnsupported)
}

// cooColumn is one column of SparseCOOTable: coordinate dim, or the
// values when dim is -1.
type cooColumn struct {
	m     *sparsecoo.Matrix
	dim   int
	field arrow.Field
}

func (c *cooColumn) Field() arrow.Field { return c.field }
func (c *cooColumn) Len() int64 {
	if c.m == nil { // a table that only describes its columns (cooTable)
		return 0
	}
	return int64(c.m.NNZ())
}
func (c *cooColumn) ChunkRows() int64 { return sparseUnit }

// Read returns elements [start, start+n) of the column.
func (c *cooColumn) Read(start, n int64) (arrow.Array, error) {
	return c.ReadBuffered(start, n, nil)
}

// ReadBuffered is Read into *buf (grown when short; nil: a new buffer).
func (c *cooColumn) ReadBuffered(start, n int64, into *[]byte) (arrow.Array, error) {
	if start < 0 || n < 0 {
		return nil, fmt.Errorf("arrowexport: rows [%d, %d)", start, start+n)
	}
	size := int(n) * c.ElemSize()
	var buf []byte
	switch {
	case into == nil:
		buf = make([]byte, size)
	case cap(*into) < size:
		*into = make([]byte, size)
		buf = *into
	default:
		buf = (*into)[:size]
	}
	if err := c.ReadRaw(start, n, buf); err != nil {
		return nil, err
	}
	data := array.NewData(c.field.Type, int(n), []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// ReadRaw fills dst with elements [start, start+n) of the column: packed
// values, or coordinates as little-endian int64.
func (c *cooColumn) ReadRaw(start, n int64, dst []byte) error {
	if start < 0 || n < 0 {
		return fmt.Errorf("arrowexport: rows [%d, %d)", start, start+n)
	}
	dst = dst[:int(n)*c.ElemSize()]
	if c.dim < 0 {
		return c.m.ReadValues(uint64(start), dst)
	}
	return c.m.PutCoords(uint64(start), c.dim, dst)
}

// ElemSize is the packed element size of the column.
func (c *cooColumn) ElemSize() int {
	if c.dim < 0 {
		return c.m.ElemSize()
	}
	return 8
}
