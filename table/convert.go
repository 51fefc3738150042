package table

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/h5fs/h5fs/h5core"
)

// convKind is how stored elements become an Arrow array.
type convKind uint8

const (
	cvPrim     convKind = iota // full-width ints and IEEE floats: the packed LE bytes are the Arrow values
	cvInt                      // ints with a partial precision or bit offset
	cvFloatAny                 // non-IEEE floats, as float64
	cvBool                     // bool8 and 1-byte bitfields of row tables: non-zero is true
	cvFixedStr                 // fixed-length strings, padding stripped
	cvVlenStr                  // variable-length strings
	cvBinary                   // opaque and other fixed-size types: the stored bytes
	cvEnum                     // enums: dictionary of member names
	cvCat                      // categorical codes: dictionary of the categories dataset
	cvStruct                   // compounds
	cvList                     // array-class elements: fixed-size lists
	cvText                     // anything else (vlen sequences, revised references): text
)

// converter turns n stored elements of one type into an Arrow array.
type converter struct {
	kind      convKind
	dt        arrow.DataType
	t         *h5core.Datatype
	kids      []*converter  // compound fields, or the array base type
	enumPos   map[int64]int // enum code -> dictionary position
	dict      arrow.Array   // enum member names
	cats      *Categories   // categorical: the label set
	codeTable               // enum, categorical: label -> code, for writing
}

// intType returns the Arrow integer type of a fixed-point type, or nil.
func intType(size int, signed bool) arrow.DataType {
	types := map[int][2]arrow.DataType{
		1: {arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Int8},
		2: {arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int16},
		4: {arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Int32},
		8: {arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Int64},
	}
	p, ok := types[size]
	if !ok {
		return nil
	}
	if signed {
		return p[1]
	}
	return p[0]
}

// codeIndexType is the signed Arrow index type that holds every code of
// an integer column of the given size and signedness.
func codeIndexType(size int, signed bool) arrow.DataType {
	if !signed {
		size *= 2
	}
	switch {
	case size <= 1:
		return arrow.PrimitiveTypes.Int8
	case size <= 2:
		return arrow.PrimitiveTypes.Int16
	case size <= 4:
		return arrow.PrimitiveTypes.Int32
	}
	return arrow.PrimitiveTypes.Int64
}

// newConverter builds the converter of type t. asBool selects the bool
// form for bool8 columns and 1-byte bitfields; cats makes a categorical.
func newConverter(t *h5core.Datatype, asBool bool, cats *Categories, fill []byte) (*converter, error) {
	c := &converter{t: t}
	switch {
	case cats != nil:
		c.kind, c.cats = cvCat, cats
		vt, err := cats.valueType()
		if err != nil {
			return nil, err
		}
		c.dt = &arrow.DictionaryType{IndexType: codeIndexType(t.Size, t.Signed), ValueType: vt, Ordered: cats.Ordered}
	case asBool:
		c.kind, c.dt = cvBool, arrow.FixedWidthTypes.Boolean
	case t.Class == h5core.ClassFixedPoint || t.Class == h5core.ClassTime || t.Class == h5core.ClassBitfield:
		it := intType(t.Size, t.Signed || t.Class == h5core.ClassTime)
		switch {
		case it == nil || t.Precision > 64:
			c.kind, c.dt = cvBinary, &arrow.FixedSizeBinaryType{ByteWidth: t.Size}
		case t.BitOffset != 0 || t.Precision != 8*t.Size:
			c.kind, c.dt = cvInt, it
		default:
			c.kind, c.dt = cvPrim, it
		}
	case t.Class == h5core.ClassFloat:
		switch {
		case !t.IsIEEE():
			c.kind, c.dt = cvFloatAny, arrow.PrimitiveTypes.Float64
		case t.Size == 2:
			c.kind, c.dt = cvPrim, arrow.FixedWidthTypes.Float16
		case t.Size == 4:
			c.kind, c.dt = cvPrim, arrow.PrimitiveTypes.Float32
		default:
			c.kind, c.dt = cvPrim, arrow.PrimitiveTypes.Float64
		}
	case t.Class == h5core.ClassString:
		c.kind, c.dt = cvFixedStr, arrow.BinaryTypes.String
	case t.Class == h5core.ClassVlen && t.VlenKind == h5core.VlenString:
		c.kind, c.dt = cvVlenStr, arrow.BinaryTypes.String
	case t.Class == h5core.ClassEnum:
		c.buildEnum(fill)
	case t.Class == h5core.ClassCompound:
		fields := make([]arrow.Field, len(t.Fields))
		for i, fl := range t.Fields {
			k, err := newConverter(fl.Type, false, nil, nil)
			if err != nil {
				return nil, err
			}
			c.kids = append(c.kids, k)
			fields[i] = arrow.Field{Name: fl.Name, Type: k.dt, Nullable: true}
		}
		c.kind, c.dt = cvStruct, arrow.StructOf(fields...)
	case t.Class == h5core.ClassArray && t.Base.IsFixedSize():
		k, err := newConverter(t.Base, false, nil, nil)
		if err != nil {
			return nil, err
		}
		n := 1
		for _, d := range t.Dims {
			n *= d
		}
		c.kids = []*converter{k}
		c.kind, c.dt = cvList, arrow.FixedSizeListOf(int32(n), k.dt)
	case t.IsFixedSize():
		c.kind, c.dt = cvBinary, &arrow.FixedSizeBinaryType{ByteWidth: t.Size}
	default:
		c.kind, c.dt = cvText, arrow.BinaryTypes.String
	}
	return c, nil
}

// buildEnum makes the dictionary of an enum: its member names in
// declaration order, less the member whose value is the fill (MISSING).
func (c *converter) buildEnum(fill []byte) {
	t := c.t
	c.enumPos = map[int64]int{}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	fillCode, hasFill := int64(0), len(fill) == t.Size
	if hasFill {
		fillCode = t.Base.Int64(fill)
	}
	for _, m := range t.Members {
		v := t.Base.Int64(m.Value)
		if _, dup := c.enumPos[v]; dup || (hasFill && v == fillCode) {
			continue
		}
		c.enumPos[v] = b.Len()
		b.Append(m.Name)
	}
	c.dict = b.NewArray()
	c.kind = cvEnum
	c.dt = &arrow.DictionaryType{IndexType: codeIndexType(4, true), ValueType: arrow.BinaryTypes.String}
	if b := len(c.enumPos); b < 128 {
		c.dt.(*arrow.DictionaryType).IndexType = arrow.PrimitiveTypes.Int8
	} else if b < 32768 {
		c.dt.(*arrow.DictionaryType).IndexType = arrow.PrimitiveTypes.Int16
	}
}

// validBitmap packs per-row validity into an Arrow bitmap (nil when all
// rows are valid).
func validBitmap(valid []bool) *memory.Buffer {
	if valid == nil {
		return nil
	}
	bm := make([]byte, (len(valid)+7)/8)
	for i, v := range valid {
		if v {
			bm[i>>3] |= 1 << (i & 7)
		}
	}
	return memory.NewBufferBytes(bm)
}

// strings decodes n stored string elements.
func (c *converter) strings(f *h5core.File, raw []byte, n int) ([]string, error) {
	out := make([]string, n)
	size := c.t.Size
	for i := range out {
		e := raw[i*size : (i+1)*size]
		if c.kind == cvFixedStr {
			out[i] = h5core.TrimString(e, c.t.StrPad)
			continue
		}
		v, err := f.ElementValue(c.t, e)
		if err != nil {
			return nil, err
		}
		out[i], _ = v.(string)
	}
	return out, nil
}

// stringArray builds an Arrow utf8 array.
func stringArray(strs []string, valid []bool, nulls int) arrow.Array {
	offs := make([]byte, 4*(len(strs)+1))
	total := 0
	for i, s := range strs {
		if valid == nil || valid[i] {
			total += len(s)
		}
	}
	data := make([]byte, 0, total)
	for i, s := range strs {
		if valid == nil || valid[i] {
			data = append(data, s...)
		}
		binary.LittleEndian.PutUint32(offs[4*(i+1):], uint32(len(data)))
	}
	d := array.NewData(arrow.BinaryTypes.String, len(strs),
		[]*memory.Buffer{validBitmap(valid), memory.NewBufferBytes(offs), memory.NewBufferBytes(data)}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// build converts n stored elements (raw, file byte order) with the given
// validity; strs are the decoded strings of string converters.
func (c *converter) build(f *h5core.File, raw []byte, n int, strs []string, valid []bool, nulls int) (arrow.Array, error) {
	t := c.t
	size := t.Size
	bm := validBitmap(valid)
	simple := func(buf []byte) arrow.Array {
		d := array.NewData(c.dt, n, []*memory.Buffer{bm, memory.NewBufferBytes(buf)}, nil, nulls, 0)
		defer d.Release()
		return array.MakeFromData(d)
	}
	switch c.kind {
	case cvPrim, cvInt: // packed little-endian is the Arrow form
		if t.IsPackedLE() {
			return simple(raw[:n*size]), nil
		}
		return simple(t.AppendPackedLE(make([]byte, 0, n*size), raw, n)), nil
	case cvFloatAny:
		out := make([]byte, 8*n)
		for i := 0; i < n; i++ {
			v, err := f.ElementValue(t, raw[i*size:(i+1)*size])
			if err != nil {
				return nil, err
			}
			x, _ := v.(float64)
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(x))
		}
		return simple(out), nil
	case cvBool:
		out := make([]byte, (n+7)/8)
		for i := 0; i < n; i++ {
			if t.Int64(raw[i*size:]) != 0 {
				out[i>>3] |= 1 << (i & 7)
			}
		}
		return simple(out), nil
	case cvFixedStr, cvVlenStr:
		if strs == nil {
			var err error
			if strs, err = c.strings(f, raw, n); err != nil {
				return nil, err
			}
		}
		return stringArray(strs, valid, nulls), nil
	case cvBinary:
		return simple(raw[:n*size]), nil
	case cvText:
		out := make([]string, n)
		for i := range out {
			v, err := f.ElementValue(t, raw[i*size:(i+1)*size])
			if err != nil {
				return nil, err
			}
			out[i] = h5core.FormatValue(v)
		}
		return stringArray(out, valid, nulls), nil
	case cvEnum, cvCat:
		return c.buildDict(raw, n, valid)
	case cvStruct:
		kids := make([]arrow.ArrayData, len(c.kids))
		for k, kc := range c.kids {
			fl := t.Fields[k]
			fs := fl.Type.Size
			sub := make([]byte, n*fs)
			for i := 0; i < n; i++ {
				copy(sub[i*fs:(i+1)*fs], raw[i*size+fl.Offset:])
			}
			a, err := kc.build(f, sub, n, nil, nil, 0)
			if err != nil {
				return nil, err
			}
			kids[k] = a.Data()
			defer a.Release()
		}
		d := array.NewData(c.dt, n, []*memory.Buffer{bm}, kids, nulls, 0)
		defer d.Release()
		return array.MakeFromData(d), nil
	case cvList:
		m := size / t.Base.Size
		a, err := c.kids[0].build(f, raw[:n*size], n*m, nil, nil, 0)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		d := array.NewData(c.dt, n, []*memory.Buffer{bm}, []arrow.ArrayData{a.Data()}, nulls, 0)
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	return nil, fmt.Errorf("no Arrow form for %s", t)
}

// putLE stores the low len(b) bytes of v little-endian.
func putLE(b []byte, v uint64) {
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
}

// buildDict builds the dictionary array of an enum or categorical column.
// Codes that name no dictionary entry become nulls.
func (c *converter) buildDict(raw []byte, n int, valid []bool) (arrow.Array, error) {
	dt := c.dt.(*arrow.DictionaryType)
	dict := c.dict
	base := c.t
	if c.kind == cvEnum {
		base = c.t.Base
	} else {
		var err error
		if dict, err = c.cats.Labels(); err != nil {
			return nil, err
		}
	}
	w := dt.IndexType.(arrow.FixedWidthDataType).BitWidth() / 8
	idx := make([]byte, n*w)
	ok := make([]bool, n)
	nulls := 0
	for i := 0; i < n; i++ {
		if valid != nil && !valid[i] {
			nulls++
			continue
		}
		code := base.Int64(raw[i*c.t.Size:])
		pos := code
		if c.kind == cvEnum {
			p, found := c.enumPos[code]
			pos = int64(p)
			if !found {
				pos = -1
			}
		} else if !base.Signed && code < 0 {
			pos = -1
		}
		if pos < 0 || pos >= int64(dict.Len()) {
			nulls++
			continue
		}
		ok[i] = true
		putLE(idx[i*w:(i+1)*w], uint64(pos))
	}
	if nulls == 0 {
		ok = nil
	}
	d := array.NewData(dt.IndexType, n, []*memory.Buffer{validBitmap(ok), memory.NewBufferBytes(idx)}, nil, nulls, 0)
	defer d.Release()
	indices := array.MakeFromData(d)
	defer indices.Release()
	return array.NewDictionaryArray(dt, indices, dict), nil
}
