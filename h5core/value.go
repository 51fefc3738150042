package h5core

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"slices"
)

// Compound is the value of a compound element: its fields in declaration
// order.
type Compound []FieldValue

// FieldValue is one field of a Compound value.
type FieldValue struct {
	Name  string
	Value any
}

// EnumValue is the value of an enumeration element. Name is empty when the
// stored value matches no member.
type EnumValue struct {
	Name  string
	Value int64
}

// ObjectRef is an original (H5R_OBJECT1) object reference: the address of
// the referenced object's header. Zero is the null reference.
type ObjectRef uint64

// RegionRef is an original (H5R_DATASET_REGION1) dataset region reference:
// the dataset's object header address and the serialized dataspace
// selection, undecoded. The zero value is the null reference.
type RegionRef struct {
	Object    uint64
	Selection []byte
}

// Reference is a revised (HDF5 1.12+) reference. Object is the object
// address taken from Token. File is set for references into another file,
// Region (an H5Sencode'd dataspace with selection) for region references
// and Attr for attribute references. The zero value (Type 0, as in
// never-written data) is the null reference.
type Reference struct {
	Type   RefType
	Object uint64
	Token  []byte
	File   string
	Region []byte
	Attr   string
}

// maxVlenItems caps the number of items of one variable-length sequence
// element, whatever its heap object claims.
const maxVlenItems = 1 << 24

// elementValue returns the Go value of one element of type t stored in
// elem: int64 or uint64 (*big.Int beyond 64 bits) for integers, time and
// bitfields; float32 for IEEE binary32 and float64 for other floats;
// complex128; string for fixed and variable-length strings; []byte for
// opaque data; Compound; EnumValue; []any for arrays (flattened, row-major)
// and variable-length sequences; ObjectRef, RegionRef or Reference.
func (f *File) elementValue(t *Datatype, elem []byte) (any, error) {
	if len(elem) < t.Size {
		return nil, formatErr(undefAddr, "element of %d bytes for a %d-byte %s type", len(elem), t.Size, t.Class)
	}
	elem = elem[:t.Size]
	switch t.Class {
	case ClassFixedPoint, ClassBitfield:
		return t.intValue(elem), nil
	case ClassTime:
		v := t.intValue(elem)
		if u, ok := v.(uint64); ok {
			return int64(u), nil
		}
		return v, nil
	case ClassFloat:
		return t.floatValue(elem), nil
	case ClassComplex:
		n := t.Base.Size
		return complex(toFloat64(t.Base.floatValue(elem[:n])), toFloat64(t.Base.floatValue(elem[n:]))), nil
	case ClassString:
		return TrimString(elem, t.StrPad), nil
	case ClassOpaque:
		return bytes.Clone(elem), nil
	case ClassEnum:
		return t.enumValue(elem), nil
	case ClassCompound:
		c := make(Compound, len(t.Fields))
		for i, fl := range t.Fields {
			v, err := f.elementValue(fl.Type, elem[fl.Offset:])
			if err != nil {
				return nil, err
			}
			c[i] = FieldValue{fl.Name, v}
		}
		return c, nil
	case ClassArray:
		return f.sequenceValue(t.Base, elem, t.arrayLen())
	case ClassVlen:
		return f.vlenValue(t, elem)
	case ClassReference:
		return f.referenceValue(t, elem)
	}
	return nil, formatErr(undefAddr, "values of %s types are not supported", t.Class)
}

// sequenceValue decodes n consecutive elements of base.
func (f *File) sequenceValue(base *Datatype, b []byte, n int) ([]any, error) {
	if len(b)/base.Size < n {
		return nil, formatErr(undefAddr, "%d bytes hold fewer than %d %d-byte elements", len(b), n, base.Size)
	}
	out := make([]any, n)
	for i := range out {
		v, err := f.elementValue(base, b[i*base.Size:])
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// enumValue decodes an enumeration element and finds its member name.
func (t *Datatype) enumValue(elem []byte) EnumValue {
	var v int64
	switch x := t.Base.intValue(elem).(type) {
	case int64:
		v = x
	case uint64:
		v = int64(x)
	case *big.Int:
		v = x.Int64()
	}
	for _, m := range t.Members {
		if bytes.Equal(m.Value, elem) {
			return EnumValue{m.Name, v}
		}
	}
	return EnumValue{Value: v}
}

// TrimString strips a fixed or variable-length string's padding: up to the
// first NUL for NULLTERM, trailing NULs for NULLPAD, trailing spaces for
// SPACEPAD.
func TrimString(b []byte, pad StrPad) string {
	switch pad {
	case NullTerm:
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
	case NullPad:
		b = bytes.TrimRight(b, "\x00")
	case SpacePad:
		b = bytes.TrimRight(b, " ")
	}
	return string(b)
}

// PutString stores s in elem (t.Size bytes) as an element of the fixed
// string type t, padded as t.StrPad says: the inverse of TrimString. A
// string longer than the element, or one that would not read back the
// same (a NUL in a NULLTERM string, trailing NULs or spaces the padding
// would strip), is an error, and elem is left unchanged.
func (t *Datatype) PutString(elem []byte, s string) error {
	if t.Class != ClassString {
		return fmt.Errorf("cannot store a string in a %s element", t.Class)
	}
	if len(elem) < t.Size {
		return fmt.Errorf("element of %d bytes for the %d-byte type %s", len(elem), t.Size, t)
	}
	if len(s) > t.Size {
		return fmt.Errorf("string of %d bytes does not fit the %d-byte type %s", len(s), t.Size, t)
	}
	pad := byte(0)
	if t.StrPad == SpacePad {
		pad = ' '
	}
	if TrimString([]byte(s), t.StrPad) != s {
		return fmt.Errorf("string %q would not read back the same from the %s type %s", s, t.StrPad, t)
	}
	n := copy(elem, s)
	for i := n; i < t.Size; i++ {
		elem[i] = pad
	}
	return nil
}

// heapRef decodes a global heap id (collection address, object index).
func (f *File) heapRef(b []byte) (addr uint64, index uint32, err error) {
	d := f.decoder(b, undefAddr)
	addr, index = d.offset(), d.u32()
	if d.err != nil {
		return 0, 0, formatErr(undefAddr, "global heap id of %d bytes (want %d)", len(b), f.so+4)
	}
	return addr, index, nil
}

// vlenValue decodes a variable-length element: a 4-byte item count and a
// global heap id.
func (f *File) vlenValue(t *Datatype, elem []byte) (any, error) {
	if len(elem) < 4 {
		return nil, formatErr(undefAddr, "variable-length element of %d bytes", len(elem))
	}
	n := uint64(binary.LittleEndian.Uint32(elem))
	var data []byte
	if n > 0 {
		addr, index, err := f.heapRef(elem[4:])
		if err != nil {
			return nil, err
		}
		obj, err := f.globalHeapObject(addr, index)
		if err != nil {
			return nil, err
		}
		if n > uint64(len(obj))/uint64(t.Base.Size) {
			return nil, formatErr(addr, "variable-length element claims %d items of %d bytes; heap object %d holds %d bytes",
				n, t.Base.Size, index, len(obj))
		}
		data = obj[:n*uint64(t.Base.Size)]
	}
	if t.VlenKind == VlenString {
		return TrimString(data, t.StrPad), nil
	}
	if n > maxVlenItems {
		return nil, formatErr(undefAddr, "variable-length sequence of %d items (at most %d supported)", n, maxVlenItems)
	}
	return f.sequenceValue(t.Base, data, int(n))
}

// referenceValue decodes a reference element.
func (f *File) referenceValue(t *Datatype, elem []byte) (any, error) {
	switch t.RefType {
	case RefObject:
		if t.Size > 8 {
			return nil, formatErr(undefAddr, "object reference of %d bytes", t.Size)
		}
		a := newDecoder(elem, undefAddr, t.Size, 0).offset()
		if a == undefAddr {
			a = 0
		}
		return ObjectRef(a), nil
	case RefRegion:
		addr, index, err := f.heapRef(elem)
		if err != nil || addr == 0 || addr == undefAddr {
			return RegionRef{}, err
		}
		obj, err := f.globalHeapObject(addr, index)
		if err != nil {
			return nil, err
		}
		if len(obj) < f.so {
			return nil, formatErr(addr, "region reference heap object %d of %d bytes", index, len(obj))
		}
		d := f.decoder(obj, addr)
		return RegionRef{Object: d.offset(), Selection: bytes.Clone(obj[f.so:])}, nil
	}
	return f.revisedReference(elem)
}

// revisedReference decodes the H5T_STD_REF encoding: a reference type and
// flags byte, then either the encoded reference inline (internal object
// references) or its length and the global heap id where it is stored.
func (f *File) revisedReference(elem []byte) (any, error) {
	if len(elem) < 2 || (elem[0] == 0 && !slices.ContainsFunc(elem, func(c byte) bool { return c != 0 })) {
		return Reference{}, nil
	}
	r := Reference{Type: RefType(elem[0])}
	if !r.Type.Revised() || r.Type > RefAttr {
		return nil, formatErr(undefAddr, "revised reference of type %d", elem[0])
	}
	external := elem[1]&1 != 0
	enc := elem[2:]
	if r.Type != RefObject2 || external {
		if len(enc) < 4 {
			return nil, formatErr(undefAddr, "revised reference of %d bytes", len(elem))
		}
		n := uint64(binary.LittleEndian.Uint32(enc))
		addr, index, err := f.heapRef(enc[4:])
		if err != nil {
			return nil, err
		}
		obj, err := f.globalHeapObject(addr, index)
		if err != nil {
			return nil, err
		}
		if n > uint64(len(obj)) {
			return nil, formatErr(addr, "revised reference claims %d bytes; heap object %d holds %d", n, index, len(obj))
		}
		enc = obj[:n]
	}
	d := newDecoder(enc, undefAddr, 0, 0)
	n := int(d.u8())
	if n > maxTokenSize {
		return nil, formatErr(undefAddr, "reference token of %d bytes (at most %d)", n, maxTokenSize)
	}
	tok := d.bytes(n)
	r.Token = bytes.Clone(tok)
	if d.err == nil {
		r.Object = newDecoder(tok, undefAddr, min(len(tok), f.so, 8), 0).offset()
	}
	if external {
		r.File = string(d.bytes(int(d.u16())))
	}
	switch r.Type {
	case RefRegion2:
		r.Region = bytes.Clone(d.bytes(int(d.u32())))
	case RefAttr:
		r.Attr = string(d.bytes(int(d.u16())))
	}
	if d.err != nil {
		return nil, formatErr(undefAddr, "revised %s reference truncated at byte %d of its %d-byte encoding", r.Type, d.pos, len(enc))
	}
	return r, nil
}
