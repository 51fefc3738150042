package table

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/h5fs/h5fs/h5core"
)

// Encoding: the inverse of Read and ReadRaw. Values come in as Arrow
// arrays of the column's Field type, categoricals and enums as dictionary
// arrays or as their labels (arrowexport.CSVParser's form), or as packed
// little-endian elements (the .raw form); they leave as stored elements
// in the file's byte order, missing values as the fill value.

// RowError is a value a column cannot hold: row Row of the values given.
type RowError struct {
	Path string // the column's dataset
	Row  int
	Err  error
}

func (e *RowError) Error() string { return fmt.Sprintf("%s: row %d: %v", e.Path, e.Row, e.Err) }

func (e *RowError) Unwrap() error { return e.Err }

// Encode returns the stored elements of a's values, Type.Size bytes each:
// numbers at the column's width and byte order, labels turned into their
// codes, strings padded as the type pads them, nulls as the fill value;
// variable-length strings, and the labels of a categorical column whose
// labels can grow, staged for Append and Update (see vlen.go). A
// value the column cannot hold is an error naming its row of a.
func (c *Column) Encode(a arrow.Array) ([]byte, error) { return c.AppendEncoded(nil, a) }

// AppendEncoded appends what Encode returns to dst: the values of
// several arrays concatenate, as Append takes them. On error dst is
// returned as it was.
func (c *Column) AppendEncoded(dst []byte, a arrow.Array) ([]byte, error) {
	if err := c.Writable(); err != nil {
		return dst, err
	}
	if c.isVlen() || c.growsLabels() {
		staged, err := c.encodeStaged(a)
		if err != nil {
			return dst, err
		}
		return append(dst, staged...), nil
	}
	n := a.Len()
	var packed []byte
	if c.conv.kind == cvPrim && arrow.TypeEqual(a.DataType(), c.conv.dt) {
		// the Arrow values are the packed elements (a null's slot is
		// overwritten with the fill below)
		buf := a.Data().Buffers()[1].Bytes()
		off := a.Data().Offset() * c.ElemSize
		packed = buf[off : off+n*c.ElemSize]
	} else {
		packed = make([]byte, 0, n*c.ElemSize)
		var err error
		for i := range n {
			if a.IsNull(i) {
				packed = append(packed, make([]byte, c.ElemSize)...)
				continue
			}
			if packed, err = c.conv.appendPacked(packed, a, i); err != nil {
				return dst, &RowError{Path: c.Path, Row: i, Err: err}
			}
		}
	}
	if a.NullN() > 0 && (!c.Nullable || len(c.Fill) != c.Type.Size) {
		for i := range n {
			if a.IsNull(i) {
				return dst, &RowError{Path: c.Path, Row: i, Err: errors.New("missing, but the column has no fill value")}
			}
		}
	}
	start := len(dst)
	out, err := c.Type.AppendStored(dst, packed, n)
	if err != nil {
		return dst, fmt.Errorf("%s: %w", c.Path, err)
	}
	if a.NullN() > 0 {
		stored := out[start:]
		for i := range n {
			if a.IsNull(i) {
				copy(stored[i*c.Type.Size:], c.Fill)
			}
		}
	}
	return out, nil
}

// Writable reports, as an error naming the column, why it cannot take
// new values (Encode): columns shown as text (variable-length sequences,
// revised references) and other types without a fixed size (but
// variable-length strings).
func (c *Column) Writable() error {
	if (c.ElemSize == 0 && !c.isVlen()) || c.conv.kind == cvText {
		return fmt.Errorf("%s: %s columns cannot take new values", c.Path, c.HDF5Type)
	}
	return nil
}

// EncodeRaw returns the stored elements of packed little-endian elements
// as ReadRaw gives them (ElemSize bytes each); the codes of a categorical
// column whose labels can grow staged as their labels, as Encode gives
// them. Where the two forms are the same, it returns packed itself.
func (c *Column) EncodeRaw(packed []byte) ([]byte, error) {
	if c.ElemSize == 0 || len(packed)%c.ElemSize != 0 {
		return nil, fmt.Errorf("%s: %d raw bytes are not whole elements of %d bytes", c.Path, len(packed), c.ElemSize)
	}
	if c.conv.kind == cvInt && c.Type.Precision > 0 && c.Type.Precision < 8*c.Type.Size { // a full-width value always fits
		n := len(packed) / c.ElemSize
		le := leType(c.Type)
		for i := range n {
			v := le.Int64(packed[i*c.ElemSize:])
			if err := fitsPrecision(c.Type, v); err != nil {
				return nil, &RowError{Path: c.Path, Row: i, Err: err}
			}
		}
	}
	if c.Type.PackedIsStored() && !c.growsLabels() {
		return packed, nil
	}
	n := len(packed) / c.ElemSize
	stored, err := c.Type.AppendStored(nil, packed, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Path, err)
	}
	if !c.growsLabels() {
		return stored, nil
	}
	return c.stageCodes(stored)
}

// leType is t as a full-width little-endian integer of its size: the
// type of its packed form.
func leType(t *h5core.Datatype) *h5core.Datatype {
	return &h5core.Datatype{Class: h5core.ClassFixedPoint, Size: t.Size, Signed: t.Signed, Precision: 8 * t.Size}
}

// fitsPrecision checks that v fits the precision of integer type t.
func fitsPrecision(t *h5core.Datatype, v int64) error {
	p := t.Precision
	if p <= 0 || p >= 64 {
		return nil
	}
	if t.Signed {
		if v < -(1<<(p-1)) || v >= 1<<(p-1) {
			return fmt.Errorf("%d does not fit %d bits", v, p)
		}
	} else if uint64(v) >= 1<<p {
		return fmt.Errorf("%d does not fit %d bits", uint64(v), p)
	}
	return nil
}

// appendPacked appends value i of a (not null) as a packed little-endian
// element of the converter's type: the inverse of build.
func (c *converter) appendPacked(dst []byte, a arrow.Array, i int) ([]byte, error) {
	t := c.t
	switch c.kind {
	case cvPrim, cvInt:
		v, ok := intOf(a, i)
		if c.t.Class == h5core.ClassFloat {
			return appendFloatLE(dst, t.Size, a, i)
		}
		if !ok {
			return nil, fmt.Errorf("%s is not an integer", a.DataType())
		}
		if c.kind == cvInt {
			if err := fitsPrecision(t, v); err != nil {
				return nil, err
			}
		}
		return appendLE(dst, uint64(v), t.Size), nil
	case cvBool:
		b, ok := a.(*array.Boolean)
		if !ok {
			return nil, fmt.Errorf("%s is not a boolean", a.DataType())
		}
		v := uint64(0)
		if b.Value(i) {
			v = 1
		}
		return appendLE(dst, v, t.Size), nil
	case cvFixedStr:
		s, ok := stringOf(a, i)
		if !ok {
			return nil, fmt.Errorf("%s is not a string", a.DataType())
		}
		e, err := padString(t, s)
		if err != nil {
			return nil, err
		}
		return append(dst, e...), nil
	case cvBinary:
		b, ok := a.(*array.FixedSizeBinary)
		if !ok || len(b.Value(i)) != t.Size {
			return nil, fmt.Errorf("%s is not %d bytes", a.DataType(), t.Size)
		}
		return append(dst, b.Value(i)...), nil
	case cvEnum, cvCat:
		code, err := c.code(a, i)
		if err != nil {
			return nil, err
		}
		return appendLE(dst, uint64(code), t.Size), nil
	case cvStruct:
		s, ok := a.(*array.Struct)
		if !ok || s.NumField() != len(c.kids) {
			return nil, fmt.Errorf("%s is not a compound of %d fields", a.DataType(), len(c.kids))
		}
		for k, kc := range c.kids {
			f := s.Field(k)
			if f.IsNull(i) {
				return nil, fmt.Errorf("field %q is null: compound fields cannot be missing", t.Fields[k].Name)
			}
			var err error
			if dst, err = kc.appendPacked(dst, f, i); err != nil {
				return nil, fmt.Errorf("field %q: %w", t.Fields[k].Name, err)
			}
		}
		return dst, nil
	case cvList:
		l, ok := a.(*array.FixedSizeList)
		m := t.Size / t.Base.Size
		if !ok || int(l.DataType().(*arrow.FixedSizeListType).Len()) != m {
			return nil, fmt.Errorf("%s is not a list of %d elements", a.DataType(), m)
		}
		vals := l.ListValues()
		for k := range m {
			j := (l.Offset()+i)*m + k
			if vals.IsNull(j) {
				return nil, fmt.Errorf("element %d is null: array elements cannot be missing", k)
			}
			var err error
			if dst, err = c.kids[0].appendPacked(dst, vals, j); err != nil {
				return nil, fmt.Errorf("element %d: %w", k, err)
			}
		}
		return dst, nil
	}
	return nil, fmt.Errorf("%s values cannot be written", t)
}

// appendLE appends the low size bytes of v little-endian.
func appendLE(dst []byte, v uint64, size int) []byte {
	for k := range size {
		dst = append(dst, byte(v>>(8*k)))
	}
	return dst
}

// intOf returns value i of an integer array.
func intOf(a arrow.Array, i int) (int64, bool) {
	switch a := a.(type) {
	case *array.Int8:
		return int64(a.Value(i)), true
	case *array.Int16:
		return int64(a.Value(i)), true
	case *array.Int32:
		return int64(a.Value(i)), true
	case *array.Int64:
		return a.Value(i), true
	case *array.Uint8:
		return int64(a.Value(i)), true
	case *array.Uint16:
		return int64(a.Value(i)), true
	case *array.Uint32:
		return int64(a.Value(i)), true
	case *array.Uint64:
		return int64(a.Value(i)), true
	case *array.Timestamp:
		return int64(a.Value(i)), true
	}
	return 0, false
}

// appendFloatLE appends value i of a float array as an IEEE float of size
// bytes; a finite value that overflows the width is an error.
func appendFloatLE(dst []byte, size int, a arrow.Array, i int) ([]byte, error) {
	var v float64
	switch a := a.(type) {
	case *array.Float16:
		if size == 2 {
			return appendLE(dst, uint64(a.Value(i).Uint16()), 2), nil
		}
		v = h5core.Float16(a.Value(i).Uint16())
	case *array.Float32:
		if size == 4 {
			return appendLE(dst, uint64(math.Float32bits(a.Value(i))), 4), nil
		}
		v = float64(a.Value(i))
	case *array.Float64:
		v = a.Value(i)
	default:
		return nil, fmt.Errorf("%s is not a float", a.DataType())
	}
	switch size {
	case 8:
		return appendLE(dst, math.Float64bits(v), 8), nil
	case 4:
		f := float32(v)
		if math.IsInf(float64(f), 0) && !math.IsInf(v, 0) {
			return nil, fmt.Errorf("%v is outside the range of float32", v)
		}
		return appendLE(dst, uint64(math.Float32bits(f)), 4), nil
	}
	return nil, fmt.Errorf("%v cannot be stored as a %d-byte float", v, size)
}

// stringOf returns value i of a string array.
func stringOf(a arrow.Array, i int) (string, bool) {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i), true
	case *array.LargeString:
		return a.Value(i), true
	}
	return "", false
}

// padString returns s as a stored fixed-length string of type t
// (h5core's PutString: padded as t pads; a NULLTERM string may fill the
// whole element, as libhdf5 reads it), refused when it does not fit or
// would not read back the same. The bytes are taken as they are, as Read
// gives them.
func padString(t *h5core.Datatype, s string) ([]byte, error) {
	e := make([]byte, t.Size)
	if err := t.PutString(e, s); err != nil {
		return nil, err
	}
	return e, nil
}

// code returns the stored code of label i of a (an enum member name, or
// a categorical label in its value type), or of entry i of a dictionary
// array of labels.
func (c *converter) code(a arrow.Array, i int) (int64, error) {
	label := labelOf(a, i)
	codes, err := c.labelCodes()
	if err != nil {
		return 0, err
	}
	code, ok := codes[label]
	if !ok {
		return 0, fmt.Errorf("%q is not one of the column's labels", label)
	}
	return code, nil
}

// labelOf returns label i of a (its text, Arrow's ValueStr), or of
// entry i of a dictionary array of labels.
func labelOf(a arrow.Array, i int) string {
	if d, ok := a.(*array.Dictionary); ok {
		return d.Dictionary().ValueStr(d.GetValueIndex(i))
	}
	return a.ValueStr(i)
}

// labelCodes returns the code of each label of an enum or categorical
// converter, keyed by the label's text (Arrow's ValueStr).
func (c *converter) labelCodes() (map[string]int64, error) {
	c.codesOnce.Do(func() {
		c.codes = map[string]int64{}
		if c.kind == cvEnum {
			for _, m := range c.t.Members {
				if _, dup := c.codes[m.Name]; !dup {
					c.codes[m.Name] = c.t.Base.Int64(m.Value)
				}
			}
			return
		}
		labels, err := c.cats.Labels()
		if err != nil {
			c.codesErr = err
			return
		}
		for k := range labels.Len() {
			if s := labels.ValueStr(k); labels.IsValid(k) {
				if _, dup := c.codes[s]; !dup {
					c.codes[s] = int64(k)
				}
			}
		}
	})
	return c.codes, c.codesErr
}

// codeTable is the lazily built label → code map of a dictionary
// converter.
type codeTable struct {
	codesOnce sync.Once
	codes     map[string]int64
	codesErr  error
}
