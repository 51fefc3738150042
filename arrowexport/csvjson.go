package arrowexport

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/h5fs/h5fs/h5core"
)

// jsonAppender returns the appender of array a's values as JSON text, the
// CSV form of compound (struct) and array (list) cells, in the encoding
// of jsonvalue.go: objects with their fields in declaration order, lists,
// numbers in the shortest form that round-trips at their width, "NaN",
// "Infinity" and "-Infinity" for the special floats, dictionaries as
// their labels, binary values in base64 and nulls as null.
func jsonAppender(a arrow.Array) fieldAppender {
	value := jsonValueAppender(a)
	return func(d []byte, i int) []byte {
		if a.IsNull(i) {
			return append(d, "null"...)
		}
		return value(d, i)
	}
}

// jsonValueAppender is jsonAppender for rows that are not null.
func jsonValueAppender(a arrow.Array) fieldAppender {
	switch a := a.(type) {
	case *array.Float16:
		return func(d []byte, i int) []byte { return appendJSONFloat(d, h5core.Float16(a.Value(i).Uint16()), 32) }
	case *array.Float32:
		return func(d []byte, i int) []byte { return appendJSONFloat(d, float64(a.Value(i)), 32) }
	case *array.Float64:
		return func(d []byte, i int) []byte { return appendJSONFloat(d, a.Value(i), 64) }
	case *array.String:
		return func(d []byte, i int) []byte { return appendJSONString(d, a.Value(i)) }
	case *array.LargeString:
		return func(d []byte, i int) []byte { return appendJSONString(d, a.Value(i)) }
	case *array.FixedSizeBinary:
		return func(d []byte, i int) []byte { return appendJSONBytes(d, a.Value(i)) }
	case *array.Dictionary:
		labels := jsonAppender(a.Dictionary())
		return func(d []byte, i int) []byte { return labels(d, a.GetValueIndex(i)) }
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		fields := make([]fieldAppender, a.NumField())
		for k := range fields {
			fields[k] = jsonAppender(a.Field(k))
		}
		return func(d []byte, i int) []byte {
			d = append(d, '{')
			for k, f := range fields {
				if k > 0 {
					d = append(d, ',')
				}
				d = appendJSONString(d, st.Field(k).Name)
				d = f(append(d, ':'), i)
			}
			return append(d, '}')
		}
	case *array.FixedSizeList:
		n := int(a.DataType().(*arrow.FixedSizeListType).Len())
		elems := jsonAppender(a.ListValues())
		return func(d []byte, i int) []byte {
			d = append(d, '[')
			for k := range n {
				if k > 0 {
					d = append(d, ',')
				}
				d = elems(d, (a.Offset()+i)*n+k)
			}
			return append(d, ']')
		}
	case *array.Boolean:
		return func(d []byte, i int) []byte { return strconv.AppendBool(d, a.Value(i)) }
	}
	if arrow.IsInteger(a.DataType().ID()) {
		return csvAppender(a) // the same digits as a CSV field
	}
	return func(d []byte, i int) []byte { return appendJSONString(d, a.ValueStr(i)) }
}

// jsonCellBound bounds the bytes of one CSV field of c, a compound or
// array column whose cells are JSON (jsonAppender), quoted as a CSV field:
// at most 8 characters per byte of the packed element (a float16 takes 2
// bytes and up to 16 characters, the widest; a string byte becomes at
// most a 6-character escape) plus names and punctuation, their quotes
// doubled. Dictionary fields get a guess, as dictionary columns do.
func jsonCellBound(c ColumnSource) int64 {
	rs, ok := c.(RawSource)
	if !ok || rs.ElemSize() <= 0 {
		return unknownWidth
	}
	return 2 + 8*int64(rs.ElemSize()) + jsonStructureBound(c.Field().Type)
}

// jsonStructureBound bounds the characters of a JSON value of type t
// that are not its elements' bytes: names, punctuation, string quotes.
func jsonStructureBound(t arrow.DataType) int64 {
	switch t := t.(type) {
	case *arrow.StructType:
		n := int64(2)
		for _, f := range t.Fields() {
			n += 6*int64(len(f.Name)) + 6 + jsonStructureBound(f.Type)
		}
		return n
	case *arrow.FixedSizeListType:
		return 2 + int64(t.Len())*(1+jsonStructureBound(t.Elem()))
	case *arrow.DictionaryType:
		return 4 + 6*unknownWidth
	case *arrow.StringType, *arrow.LargeStringType, *arrow.FixedSizeBinaryType:
		return 4
	}
	return 0
}
