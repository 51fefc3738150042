package arrowexport

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// canonical returns a with offset 0 and buffers exactly as long as its
// values need, sharing memory with a where it can.
//
// arrow-go's IPC writer writes a buffer whole when it is no longer than
// the 64-byte-padded size the values need, and truncates it otherwise, so
// the bytes of a batch depend on how its arrays were allocated and sliced.
// Writing canonical arrays makes them depend only on the values, which is
// what lets a synthetic batch stand in for a real one of the same shape.
func canonical(a arrow.Array) arrow.Array {
	d := a.Data()
	off, n := d.Offset(), d.Len()
	bufs := d.Buffers()
	switch t := a.DataType().(type) {
	case *arrow.DictionaryType:
		da := a.(*array.Dictionary)
		idx, dict := canonical(da.Indices()), canonical(da.Dictionary())
		defer idx.Release()
		defer dict.Release()
		return array.NewDictionaryArray(t, idx, dict)
	case *arrow.BooleanType:
		return newCanonical(t, n, a.NullN(), canonicalValidity(bufs[0], off, n, a.NullN()), canonicalBits(bufs[1], off, n))
	case *arrow.StringType, *arrow.BinaryType:
		offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[off : off+n+1]
		ob := arrow.Int32Traits.CastToBytes(offs)
		if base := offs[0]; base != 0 {
			rebased := make([]int32, n+1)
			for i, o := range offs {
				rebased[i] = o - base
			}
			ob = arrow.Int32Traits.CastToBytes(rebased)
		}
		var data []byte
		if bufs[2] != nil {
			data = bufs[2].Bytes()[offs[0]:offs[n]]
		}
		return newCanonical(t, n, a.NullN(), canonicalValidity(bufs[0], off, n, a.NullN()),
			memory.NewBufferBytes(ob), memory.NewBufferBytes(data))
	case arrow.FixedWidthDataType:
		if w := t.BitWidth(); w%8 == 0 && len(bufs) == 2 {
			w /= 8
			return newCanonical(t, n, a.NullN(), canonicalValidity(bufs[0], off, n, a.NullN()),
				memory.NewBufferBytes(bufs[1].Bytes()[off*w:(off+n)*w]))
		}
	}
	a.Retain()
	return a
}

func newCanonical(t arrow.DataType, n, nulls int, bufs ...*memory.Buffer) arrow.Array {
	data := array.NewData(t, n, bufs, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// canonicalValidity returns the validity bitmap of a canonical array: nil
// when there are no nulls.
func canonicalValidity(b *memory.Buffer, off, n, nulls int) *memory.Buffer {
	if nulls == 0 || b == nil {
		return nil
	}
	return canonicalBits(b, off, n)
}

// canonicalBits returns bits [off, off+n) of b as a bitmap of exactly
// BytesForBits(n) bytes.
func canonicalBits(b *memory.Buffer, off, n int) *memory.Buffer {
	size := int(bitutil.BytesForBits(int64(n)))
	if off == 0 {
		return memory.NewBufferBytes(b.Bytes()[:size])
	}
	out := make([]byte, size)
	bitutil.CopyBitmap(b.Bytes(), off, n, out, 0)
	return memory.NewBufferBytes(out)
}
