package arrowexport

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Arrays in the form arrow-go's Parquet writer writes correctly:
//
//   - Fixed-size lists (HDF5 array-class columns and compound fields)
//     become lists. The writer refuses a null entry that holds elements
//     ("lists with non-zero length null components are not supported"),
//     and a null fixed-size list always does; as a list its null entries
//     hold none. Parquet has no fixed-size list type of its own, so
//     readers see the same LIST column either way.
//   - Within a null struct row every child is null too. The writer
//     misplaces the Float16 values of a struct child otherwise: the value
//     of a row after a null struct row comes from an earlier row.

// parquetSchema returns s with every fixed_size_list replaced by a list.
func parquetSchema(s *arrow.Schema) *arrow.Schema {
	fields := s.Fields()
	changed := false
	for i, f := range fields {
		if hasFixedList(f.Type) {
			fields[i].Type = parquetType(f.Type)
			changed = true
		}
	}
	if !changed {
		return s
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}

// hasFixedList reports whether t is or holds a fixed_size_list.
func hasFixedList(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.FixedSizeListType:
		return true
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if hasFixedList(f.Type) {
				return true
			}
		}
	case arrow.ListLikeType:
		return hasFixedList(t.Elem())
	}
	return false
}

// parquetType returns t with every fixed_size_list replaced by a list.
func parquetType(t arrow.DataType) arrow.DataType {
	switch t := t.(type) {
	case *arrow.FixedSizeListType:
		f := t.ElemField()
		f.Type = parquetType(f.Type)
		return arrow.ListOfField(f)
	case *arrow.StructType:
		fields := t.Fields()
		for i := range fields {
			fields[i].Type = parquetType(fields[i].Type)
		}
		return arrow.StructOf(fields...)
	case *arrow.ListType:
		f := t.ElemField()
		f.Type = parquetType(f.Type)
		return arrow.ListOfField(f)
	}
	return t
}

// parquetArray returns a in the form described above, of type
// parquetType(a.DataType()). The caller releases the result.
func parquetArray(a arrow.Array) (arrow.Array, error) {
	return parquetForm(a, nil)
}

// parquetForm converts a; parentNull[i] tells that an enclosing struct is
// null in row i (nil: none is).
func parquetForm(a arrow.Array, parentNull []bool) (arrow.Array, error) {
	_, isStruct := a.(*array.Struct)
	if !hasFixedList(a.DataType()) && parentNull == nil && (!isStruct || a.NullN() == 0) {
		a.Retain()
		return a, nil
	}
	n := a.Len()
	null := make([]bool, n)
	nulls := 0
	for i := range null {
		null[i] = a.IsNull(i) || (parentNull != nil && parentNull[i])
		if null[i] {
			nulls++
		}
	}
	switch a := a.(type) {
	case *array.FixedSizeList:
		width := int(a.DataType().(*arrow.FixedSizeListType).Len())
		offsets := make([]int32, n+1)
		var pieces []arrow.Array
		for i := range n {
			offsets[i+1] = offsets[i]
			if !null[i] {
				start := int64((a.Offset() + i) * width)
				pieces = append(pieces, array.NewSlice(a.ListValues(), start, start+int64(width)))
				offsets[i+1] += int32(width)
			}
		}
		elems, err := concatOrEmpty(pieces, a.ListValues().DataType())
		if err != nil {
			return nil, err
		}
		defer elems.Release()
		child, err := parquetForm(elems, nil)
		if err != nil {
			return nil, err
		}
		defer child.Release()
		d := array.NewData(parquetType(a.DataType()), n,
			[]*memory.Buffer{validityOf(null, 0), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))},
			[]arrow.ArrayData{child.Data()}, nulls, 0)
		defer d.Release()
		return array.MakeFromData(d), nil
	case *array.Struct:
		kids := make([]arrow.ArrayData, a.NumField())
		for k := range kids {
			c, err := parquetForm(a.Field(k), null)
			if err != nil {
				return nil, err
			}
			defer c.Release()
			kids[k] = c.Data()
		}
		d := array.NewData(parquetType(a.DataType()), n, []*memory.Buffer{validityOf(null, 0)}, kids, nulls, 0)
		defer d.Release()
		return array.MakeFromData(d), nil
	case *array.List, *array.LargeList, *array.ListView, *array.Map:
		return nil, fmt.Errorf("arrowexport: no Parquet form for %s in a struct", a.DataType())
	}
	// a leaf under a struct: the same values with the struct's nulls
	src := a.Data()
	bufs := append([]*memory.Buffer{validityOf(null, src.Offset())}, src.Buffers()[1:]...)
	var d arrow.ArrayData
	if dict := src.Dictionary(); dict != nil {
		d = array.NewDataWithDictionary(src.DataType(), n, bufs, nulls, src.Offset(), dict.(*array.Data))
	} else {
		d = array.NewData(src.DataType(), n, bufs, src.Children(), nulls, src.Offset())
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// validityOf returns the validity bitmap of rows whose null flags are
// given, for an array whose data starts off bits into its buffers.
func validityOf(null []bool, off int) *memory.Buffer {
	b := make([]byte, bitutil.BytesForBits(int64(off+len(null))))
	for i, isNull := range null {
		if !isNull {
			bitutil.SetBit(b, off+i)
		}
	}
	return memory.NewBufferBytes(b)
}

// concatOrEmpty concatenates arrays of type t (none: an empty array).
func concatOrEmpty(pieces []arrow.Array, t arrow.DataType) (arrow.Array, error) {
	defer releaseAll(pieces)
	if len(pieces) == 0 {
		return array.MakeArrayOfNull(memory.DefaultAllocator, t, 0), nil
	}
	return array.Concatenate(pieces, memory.DefaultAllocator)
}
