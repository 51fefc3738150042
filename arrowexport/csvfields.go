package arrowexport

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/h5fs/h5fs/h5core"
)

// fieldAppender appends the CSV field of row i (not null) to dst.
type fieldAppender func(dst []byte, i int) []byte

// csvAppender returns the appender of array a's values: integers in
// decimal, floats in the shortest form that round-trips ("nan", "inf",
// "-inf" for the special values), booleans as true/false, categoricals as
// their labels, strings as they are (quoted when needed), compounds and
// arrays as JSON (jsonAppender), anything else as arrow-go's ValueStr.
func csvAppender(a arrow.Array) fieldAppender {
	switch a := a.(type) {
	case *array.Int8:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }
	case *array.Int16:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }
	case *array.Int32:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }
	case *array.Int64:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, a.Value(i), 10) }
	case *array.Uint8:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) }
	case *array.Uint16:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) }
	case *array.Uint32:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) }
	case *array.Uint64:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, a.Value(i), 10) }
	case *array.Float16:
		// h5core's conversion: arrow-go's Float32 gets subnormals wrong
		return func(d []byte, i int) []byte { return appendFloat(d, h5core.Float16(a.Value(i).Uint16()), 32) }
	case *array.Float32:
		return func(d []byte, i int) []byte { return appendFloat(d, float64(a.Value(i)), 32) }
	case *array.Float64:
		return func(d []byte, i int) []byte { return appendFloat(d, a.Value(i), 64) }
	case *array.Boolean:
		return func(d []byte, i int) []byte { return strconv.AppendBool(d, a.Value(i)) }
	case *array.String:
		return func(d []byte, i int) []byte { return appendQuoted(d, a.Value(i)) }
	case *array.LargeString:
		return func(d []byte, i int) []byte { return appendQuoted(d, a.Value(i)) }
	case *array.Struct, *array.FixedSizeList:
		value := jsonAppender(a)
		return func(d []byte, i int) []byte { return appendQuoted(d, string(value(nil, i))) }
	case *array.Dictionary:
		labels := csvAppender(a.Dictionary())
		dict := a.Dictionary()
		return func(d []byte, i int) []byte {
			k := a.GetValueIndex(i)
			if dict.IsNull(k) {
				return d
			}
			return labels(d, k)
		}
	}
	return func(d []byte, i int) []byte { return appendQuoted(d, a.ValueStr(i)) }
}

func appendFloat(dst []byte, v float64, bits int) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, "nan"...)
	case math.IsInf(v, 1):
		return append(dst, "inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, bits)
}

// appendQuoted appends s as an RFC 4180 field: quoted when it holds a
// comma, quote, CR or LF, or is empty (so an empty string differs from a
// missing value), with quotes doubled.
func appendQuoted(dst []byte, s string) []byte {
	need := s == ""
	for i := 0; i < len(s) && !need; i++ {
		switch s[i] {
		case ',', '"', '\n', '\r':
			need = true
		}
	}
	if !need {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// csvFieldBound is an upper bound of the bytes of one field of c, for the
// size estimate shown before the data pass. Strings without a known width
// and categoricals get a guess.
func csvFieldBound(c ColumnSource) int64 {
	switch c.Field().Type.ID() {
	case arrow.BOOL:
		return 5
	case arrow.INT8:
		return 4
	case arrow.UINT8:
		return 3
	case arrow.INT16:
		return 6
	case arrow.UINT16:
		return 5
	case arrow.INT32:
		return 11
	case arrow.UINT32:
		return 10
	case arrow.INT64, arrow.UINT64:
		return 20
	case arrow.FLOAT16, arrow.FLOAT32:
		return 16
	case arrow.FLOAT64:
		return 24
	case arrow.STRING, arrow.LARGE_STRING:
		return int64(2*stringBound(c) + 2)
	case arrow.FIXED_SIZE_BINARY: // base64
		return 4 * int64(c.Field().Type.(*arrow.FixedSizeBinaryType).ByteWidth+2) / 3
	case arrow.STRUCT, arrow.FIXED_SIZE_LIST:
		return jsonCellBound(c)
	}
	return unknownWidth
}

// unknownWidth is the guessed width of values whose width metadata does
// not bound.
const unknownWidth = 64

// stringBound is the most bytes one string value of c holds: the
// element size of fixed-length strings, else a guess.
func stringBound(c ColumnSource) int {
	if rs, ok := c.(RawSource); ok && rs.ElemSize() > 0 {
		return rs.ElemSize()
	}
	return unknownWidth
}
