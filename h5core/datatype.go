package h5core

import (
	"fmt"
	"strconv"
	"strings"
)

// DatatypeClass is the class of an HDF5 datatype (the low nibble of the
// first byte of a datatype message).
type DatatypeClass uint8

// The datatype classes of the file format.
const (
	ClassFixedPoint DatatypeClass = 0
	ClassFloat      DatatypeClass = 1
	ClassTime       DatatypeClass = 2
	ClassString     DatatypeClass = 3
	ClassBitfield   DatatypeClass = 4
	ClassOpaque     DatatypeClass = 5
	ClassCompound   DatatypeClass = 6
	ClassReference  DatatypeClass = 7
	ClassEnum       DatatypeClass = 8
	ClassVlen       DatatypeClass = 9
	ClassArray      DatatypeClass = 10
	ClassComplex    DatatypeClass = 11 // HDF5 2.0, datatype message version 5
)

var classNames = [...]string{"fixed-point", "float", "time", "string", "bitfield",
	"opaque", "compound", "reference", "enum", "vlen", "array", "complex"}

func (c DatatypeClass) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// ByteOrder is the byte order of an atomic numeric datatype.
type ByteOrder uint8

// Byte orders. OrderNone is used by classes without a byte order (strings,
// opaque, references, containers).
const (
	OrderNone ByteOrder = iota
	LittleEndian
	BigEndian
	VAXOrder // floats only: 16-bit words in reverse order, each little-endian
)

func (o ByteOrder) String() string {
	switch o {
	case LittleEndian:
		return "LE"
	case BigEndian:
		return "BE"
	case VAXOrder:
		return "VAX"
	}
	return ""
}

// StrPad is how a string is padded to its storage size.
type StrPad uint8

// String padding types.
const (
	NullTerm StrPad = 0
	NullPad  StrPad = 1
	SpacePad StrPad = 2
)

func (p StrPad) String() string {
	if p <= SpacePad {
		return [...]string{"NULLTERM", "NULLPAD", "SPACEPAD"}[p]
	}
	return "pad(" + strconv.Itoa(int(p)) + ")"
}

// CharSet is the character encoding of a string.
type CharSet uint8

// Character sets.
const (
	ASCII CharSet = 0
	UTF8  CharSet = 1
)

func (c CharSet) String() string {
	if c == UTF8 {
		return "UTF-8"
	}
	return "ASCII"
}

// RefType is the kind of a reference datatype.
type RefType uint8

// Reference kinds: the two original ones (object address; dataset region
// via the global heap) and the revised ones of HDF5 1.12.
const (
	RefObject  RefType = 0 // H5R_OBJECT1
	RefRegion  RefType = 1 // H5R_DATASET_REGION1
	RefObject2 RefType = 2 // H5R_OBJECT2
	RefRegion2 RefType = 3 // H5R_DATASET_REGION2
	RefAttr    RefType = 4 // H5R_ATTR
)

func (r RefType) String() string {
	switch r {
	case RefObject, RefObject2:
		return "object"
	case RefRegion, RefRegion2:
		return "region"
	case RefAttr:
		return "attribute"
	}
	return "ref" + strconv.Itoa(int(r))
}

// Revised reports whether r is one of the revised (1.12+) reference kinds.
func (r RefType) Revised() bool { return r >= RefObject2 }

// VlenKind tells a variable-length sequence from a variable-length string.
type VlenKind uint8

// Variable-length kinds.
const (
	VlenSequence VlenKind = 0
	VlenString   VlenKind = 1
)

// FloatLayout describes where the parts of a floating-point number lie,
// in bits numbered from the least significant bit of the little-endian
// value.
type FloatLayout struct {
	SignPos  int
	ExpPos   int
	ExpSize  int
	MantPos  int
	MantSize int
	Bias     uint32
	Norm     uint8 // 0: none, 1: MSB set, 2: MSB implied
}

// Field is a member of a compound datatype.
type Field struct {
	Name   string
	Offset int // byte offset within the compound element
	Type   *Datatype
}

// EnumMember is a name/value pair of an enumeration datatype. Value holds
// the raw bytes of the value in the base type's representation.
type EnumMember struct {
	Name  string
	Value []byte
}

// Datatype is a decoded HDF5 datatype message. Which fields are meaningful
// depends on Class.
type Datatype struct {
	Class   DatatypeClass
	Version int // datatype message version, 1..5
	Size    int // bytes per element as stored in the file

	// Fixed-point, float, time, bitfield (and enum through Base).
	ByteOrder ByteOrder
	Signed    bool
	BitOffset int
	Precision int
	Float     FloatLayout

	// Strings, and variable-length strings.
	StrPad  StrPad
	CharSet CharSet

	Fields   []Field      // compound members, in declaration order
	Members  []EnumMember // enum members
	Base     *Datatype    // enum, vlen, array, complex: the parent type
	Dims     []int        // array dimensions, slowest first
	Tag      string       // opaque tag
	RefType  RefType      // references
	VlenKind VlenKind     // variable-length types

	pack []packOp // how to produce packed little-endian bytes (values.go)
	raw  []byte   // the datatype message as the file stored it (writers copy it)
}

// IsFixedSize reports whether every element's value lies entirely in its
// Size bytes: false for variable-length data and revised references (whose
// content may live in the global heap), and for any type containing them.
func (t *Datatype) IsFixedSize() bool {
	switch t.Class {
	case ClassVlen:
		return false
	case ClassReference:
		return !t.RefType.Revised()
	case ClassCompound:
		for _, f := range t.Fields {
			if !f.Type.IsFixedSize() {
				return false
			}
		}
		return true
	case ClassArray, ClassEnum, ClassComplex:
		return t.Base.IsFixedSize()
	}
	return true
}

// PackedSize returns the size of one element with compound fields packed
// (padding between and after fields removed), as appendPackedLE writes it.
func (t *Datatype) PackedSize() int {
	switch t.Class {
	case ClassCompound:
		n := 0
		for _, f := range t.Fields {
			n += f.Type.PackedSize()
		}
		return n
	case ClassArray:
		return t.arrayLen() * t.Base.PackedSize()
	}
	return t.Size
}

// arrayLen returns the number of base elements of an array type.
func (t *Datatype) arrayLen() int {
	n := 1
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// String returns a compact description such as "int32 LE", "float64 BE",
// "string(10, NULLPAD, UTF-8)" or "compound{x float32; y float32}".
// Byte order is shown for top-level numbers, and inside containers only
// when it is not little-endian.
func (t *Datatype) String() string {
	var b strings.Builder
	t.describe(&b, true)
	return b.String()
}

func (t *Datatype) describe(b *strings.Builder, top bool) {
	order := func() {
		if top || t.ByteOrder != LittleEndian {
			b.WriteString(" " + t.ByteOrder.String())
		}
	}
	switch t.Class {
	case ClassFixedPoint:
		if !t.Signed {
			b.WriteString("u")
		}
		fmt.Fprintf(b, "int%d", 8*t.Size)
		order()
		t.describeBits(b)
	case ClassFloat:
		fmt.Fprintf(b, "float%d", 8*t.Size)
		order()
		if !t.IsIEEE() {
			l := t.Float
			fmt.Fprintf(b, " (sign %d, exp %d:%d bias %d, mant %d:%d", l.SignPos, l.ExpPos, l.ExpSize, l.Bias, l.MantPos, l.MantSize)
			if l.Norm != 2 {
				fmt.Fprintf(b, ", norm %d", l.Norm)
			}
			b.WriteString(")")
		}
	case ClassTime:
		fmt.Fprintf(b, "time%d", 8*t.Size)
		order()
	case ClassBitfield:
		fmt.Fprintf(b, "bitfield%d", 8*t.Size)
		order()
		t.describeBits(b)
	case ClassString:
		fmt.Fprintf(b, "string(%d, %s, %s)", t.Size, t.StrPad, t.CharSet)
	case ClassOpaque:
		if t.Tag != "" {
			fmt.Fprintf(b, "opaque(%d, %q)", t.Size, t.Tag)
		} else {
			fmt.Fprintf(b, "opaque(%d)", t.Size)
		}
	case ClassCompound:
		b.WriteString("compound{")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(f.Name + " ")
			f.Type.describe(b, false)
		}
		b.WriteString("}")
	case ClassReference:
		b.WriteString("reference(" + t.RefType.String())
		if t.RefType.Revised() {
			b.WriteString(", revised")
		}
		b.WriteString(")")
	case ClassEnum:
		b.WriteString("enum ")
		t.Base.describe(b, false)
		b.WriteString(" {")
		for i, m := range t.Members {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(m.Name + "=" + FormatValue(t.Base.intValue(m.Value)))
		}
		b.WriteString("}")
	case ClassVlen:
		if t.VlenKind == VlenString {
			b.WriteString("vlen string " + t.CharSet.String())
			return
		}
		b.WriteString("vlen ")
		t.Base.describe(b, false)
	case ClassArray:
		b.WriteString("array[")
		for i, d := range t.Dims {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(strconv.Itoa(d))
		}
		b.WriteString("] ")
		t.Base.describe(b, false)
	case ClassComplex:
		b.WriteString("complex ")
		t.Base.describe(b, top)
	default:
		fmt.Fprintf(b, "%s(%d)", t.Class, t.Size)
	}
}

// describeBits notes a precision or offset that does not fill the element.
func (t *Datatype) describeBits(b *strings.Builder) {
	if t.BitOffset != 0 || t.Precision != 8*t.Size {
		fmt.Fprintf(b, " (%d bits at %d)", t.Precision, t.BitOffset)
	}
}

// IsIEEE reports whether a float type is the standard IEEE 754 binary16,
// binary32 or binary64 layout (in either byte order), the fast paths.
func (t *Datatype) IsIEEE() bool {
	var want FloatLayout
	switch t.Size {
	case 2:
		want = FloatLayout{15, 10, 5, 0, 10, 15, 2}
	case 4:
		want = FloatLayout{31, 23, 8, 0, 23, 127, 2}
	case 8:
		want = FloatLayout{63, 52, 11, 0, 52, 1023, 2}
	default:
		return false
	}
	return t.Float == want && t.BitOffset == 0 && t.Precision == 8*t.Size && t.ByteOrder != VAXOrder
}
