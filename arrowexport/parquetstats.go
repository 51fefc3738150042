package arrowexport

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A Parquet row group of fixed-width columns without nulls, written with
// PLAIN encoding and no compression, has a size that depends only on its
// row count: values are fixed width, definition levels are one run, and
// page statistics are fixed width too. Its footer entry depends on that
// size and on the min and max. So a synthetic row group of the same length
// holding [min, max, min, min, ...] stands in for the real one.

// minMax is the least and greatest value of one column of a row group.
type minMax struct{ lo, hi any }

// planFromStatsOrData computes the layout writing, for each row group,
// synthetic columns when ChunkStats allow it, copies of one row when the
// rows were never written (fillArray), else the data.
func (r *parquetRenderer) planFromStatsOrData() (*framedLayout, error) {
	if mm, ok := r.knownMinMax(); ok && r.allPlain() {
		return r.plainLayout(mm)
	}
	return r.layout(func(i int) ([]arrow.Array, error) {
		start, n := unitRange(i, r.unit, r.rows)
		arrs := make([]arrow.Array, 0, len(r.t.Columns))
		for _, c := range r.t.Columns {
			a, err := knownColumn(c, start, n, r.rows)
			if a == nil || err != nil {
				releaseAll(arrs)
				return r.read(i)
			}
			arrs = append(arrs, a)
		}
		return arrs, nil
	})
}

// syntheticRows reads row groups of synthetic values (see synthetic) with
// the min and max mm, of at most most rows each.
func (r *parquetRenderer) syntheticRows(mm [][]minMax, most int64) func(int) ([]arrow.Array, error) {
	return func(i int) ([]arrow.Array, error) {
		_, n := unitRange(i, r.unit, r.rows)
		arrs := make([]arrow.Array, len(r.t.Columns))
		for j, c := range r.t.Columns {
			arrs[j] = synthetic(c.Field().Type, int(min(n, most)), mm[i][j])
		}
		return arrs, nil
	}
}

// knownMinMax returns every row group's min and max per column, when
// metadata gives them and the columns qualify.
func (r *parquetRenderer) knownMinMax() ([][]minMax, bool) {
	out := make([][]minMax, r.nunits)
	for i := range out {
		start, n := unitRange(i, r.unit, r.rows)
		out[i] = make([]minMax, len(r.t.Columns))
		for j, c := range r.t.Columns {
			mm, ok := unitMinMax(c, start, n, r.rows)
			if !ok {
				return nil, false
			}
			out[i][j] = mm
		}
	}
	return out, true
}

// knownColumn returns a stand-in for rows [start, start+n) of c that
// encodes as they do, made from metadata alone, or nil.
func knownColumn(c ColumnSource, start, n, rows int64) (arrow.Array, error) {
	if mm, ok := unitMinMax(c, start, n, rows); ok {
		return synthetic(c.Field().Type, int(n), mm), nil
	}
	return fillArray(c, start, n)
}

// unitMinMax combines the ChunkStats of the chunks that make up rows
// [start, start+n) of c; ok is false unless the rows are whole chunks
// whose stats are known, with no nulls or NaNs, of a supported type.
func unitMinMax(c ColumnSource, start, n, rows int64) (minMax, bool) {
	switch c.Field().Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64, arrow.BOOL:
	default:
		return minMax{}, false
	}
	cs, ok := c.(ChunkStatsSource)
	cr := max(c.ChunkRows(), 1)
	if !ok || start%cr != 0 || (n%cr != 0 && start+n != rows) {
		return minMax{}, false
	}
	var mm minMax
	for k := start / cr; k*cr < start+n; k++ {
		s, ok := cs.ChunkStats(k)
		if !ok || s.Nulls != 0 || s.NaNs != 0 || s.Min == nil || s.Max == nil {
			return minMax{}, false
		}
		if mm.lo == nil {
			mm = minMax{s.Min, s.Max}
			continue
		}
		lo, ok1 := less(s.Min, mm.lo)
		hi, ok2 := less(mm.hi, s.Max)
		if !ok1 || !ok2 {
			return minMax{}, false
		}
		if lo {
			mm.lo = s.Min
		}
		if hi {
			mm.hi = s.Max
		}
	}
	return mm, mm.lo != nil
}

// less compares two stats values of the same Go type.
func less(a, b any) (bool, bool) {
	switch a := a.(type) {
	case int64:
		b, ok := b.(int64)
		return a < b, ok
	case uint64:
		b, ok := b.(uint64)
		return a < b, ok
	case float64:
		b, ok := b.(float64)
		return a < b, ok
	case bool:
		b, ok := b.(bool)
		return !a && b, ok
	}
	return false, false
}

// synthetic returns n values of type t: mm.lo, then mm.hi, then mm.lo
// repeated. Fixed-width values are laid out by doubling copies, at memory
// speed: the layout pass makes one such array per column chunk.
func synthetic(t arrow.DataType, n int, mm minMax) arrow.Array {
	fw, ok := t.(arrow.FixedWidthDataType)
	if !ok || t.ID() == arrow.BOOL || n < 2 {
		return builtSynthetic(t, n, mm)
	}
	head := builtSynthetic(t, 2, mm)
	defer head.Release()
	w := fw.BitWidth() / 8
	d := head.Data()
	src := d.Buffers()[1].Bytes()[d.Offset()*w:][:2*w]
	buf := make([]byte, n*w)
	copy(buf, src[:w])
	for k := w; k < len(buf); k *= 2 {
		copy(buf[k:], buf[:k])
	}
	copy(buf[w:], src[w:])
	data := array.NewData(t, n, []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// builtSynthetic is synthetic through an Arrow builder, for any type
// appendStat supports.
func builtSynthetic(t arrow.DataType, n int, mm minMax) arrow.Array {
	b := array.NewBuilder(memory.DefaultAllocator, t)
	defer b.Release()
	b.Reserve(n)
	for i := range n {
		v := mm.lo
		if i == 1 {
			v = mm.hi
		}
		appendStat(b, v)
	}
	return b.NewArray()
}

// appendStat appends a stats value (int64, uint64, float64 or bool) to a
// builder of a numeric or boolean type.
func appendStat(b array.Builder, v any) {
	var i int64
	var u uint64
	var f float64
	switch v := v.(type) {
	case int64:
		i, u, f = v, uint64(v), float64(v)
	case uint64:
		i, u, f = int64(v), v, float64(v)
	case float64:
		i, u, f = int64(v), uint64(v), v
	case bool:
		if v {
			i, u, f = 1, 1, 1
		}
	}
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(i))
	case *array.Int16Builder:
		b.Append(int16(i))
	case *array.Int32Builder:
		b.Append(int32(i))
	case *array.Int64Builder:
		b.Append(i)
	case *array.Uint8Builder:
		b.Append(uint8(u))
	case *array.Uint16Builder:
		b.Append(uint16(u))
	case *array.Uint32Builder:
		b.Append(uint32(u))
	case *array.Uint64Builder:
		b.Append(u)
	case *array.Float32Builder:
		b.Append(float32(f))
	case *array.Float64Builder:
		b.Append(f)
	case *array.BooleanBuilder:
		b.Append(u != 0)
	}
}
