package arrowexport

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fillRow returns row start of c when rows [start, start+n) were never
// written (see fillSource), so that every one of them equals it; nil
// otherwise.
func fillRow(c ColumnSource, start, n int64) (arrow.Array, error) {
	f, ok := c.(fillSource)
	if !ok || n == 0 {
		return nil, nil
	}
	if fill, err := f.allFill(start, n); !fill || err != nil {
		return nil, err
	}
	return c.Read(start, 1)
}

// fillArray returns rows [start, start+n) of c without reading them when
// they were never written: n copies of their first row. Only null rows
// and fixed-width values (not booleans or dictionaries) are built so; nil
// otherwise.
func fillArray(c ColumnSource, start, n int64) (arrow.Array, error) {
	a, err := fillRow(c, start, n)
	if a == nil || err != nil {
		return nil, err
	}
	defer a.Release()
	t := a.DataType()
	if a.IsNull(0) {
		return array.MakeArrayOfNull(memory.DefaultAllocator, t, int(n)), nil
	}
	fw, ok := t.(arrow.FixedWidthDataType)
	if !ok || t.ID() == arrow.BOOL || t.ID() == arrow.DICTIONARY || fw.BitWidth()%8 != 0 {
		return nil, nil
	}
	w := fw.BitWidth() / 8
	d := a.Data()
	buf := make([]byte, int(n)*w)
	copy(buf, d.Buffers()[1].Bytes()[d.Offset()*w:][:w])
	for k := w; k < len(buf); k *= 2 {
		copy(buf[k:], buf[:k])
	}
	data := array.NewData(t, int(n), []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}
