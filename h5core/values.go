package h5core

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// ---- (a) packed little-endian bytes ----

// packKind is what a packOp does to each of its items.
type packKind uint8

const (
	packCopy packKind = iota // bytes as stored
	packSwap                 // reverse the bytes of each item (big-endian numbers)
	packVAX                  // reverse the 16-bit words of each item (VAX floats)
	packSub                  // apply sub to each item (arrays of compounds)
	packBits                 // an integer narrower than its bytes: shift down, sign-extend
)

// packOp turns count consecutive items of size bytes, starting at byte off
// of an element, into packed little-endian bytes. A datatype's ops, run in
// order, produce one packed element.
type packOp struct {
	kind  packKind
	off   int
	size  int
	count int
	sub   []packOp
	t     *Datatype // packBits: the integer type
}

// buildPack returns the ops that pack one element of t.
func (t *Datatype) buildPack() []packOp { return t.appendPack(nil, 0) }

func (t *Datatype) appendPack(ops []packOp, off int) []packOp {
	switch t.Class {
	case ClassFixedPoint, ClassFloat, ClassTime, ClassBitfield:
		if t.Class != ClassFloat && t.Size <= 8 && (t.BitOffset != 0 || t.Precision != 8*t.Size) {
			// as libhdf5 converts it to a native integer: the value bits
			// moved down to bit 0 and sign-extended
			return append(ops, packOp{kind: packBits, off: off, size: t.Size, count: 1, t: t})
		}
		switch {
		case t.ByteOrder == BigEndian && t.Size > 1:
			return addPackOp(ops, packOp{kind: packSwap, off: off, size: t.Size, count: 1})
		case t.ByteOrder == VAXOrder:
			return addPackOp(ops, packOp{kind: packVAX, off: off, size: t.Size, count: 1})
		}
	case ClassEnum:
		return t.Base.appendPack(ops, off)
	case ClassComplex:
		return appendPackRepeated(ops, t.Base, off, 2)
	case ClassArray:
		return appendPackRepeated(ops, t.Base, off, t.arrayLen())
	case ClassCompound:
		for _, f := range t.Fields {
			ops = f.Type.appendPack(ops, off+f.Offset)
		}
		return ops
	}
	return addPackOp(ops, packOp{kind: packCopy, off: off, size: t.Size, count: 1})
}

// appendPackRepeated packs n consecutive elements of base starting at off.
func appendPackRepeated(ops []packOp, base *Datatype, off, n int) []packOp {
	sub := base.buildPack()
	if len(sub) == 1 && sub[0].kind != packSub && sub[0].size*sub[0].count == base.Size {
		op := sub[0] // one op covers the whole base element: widen it
		op.off = off
		op.count *= n
		return addPackOp(ops, op)
	}
	return addPackOp(ops, packOp{kind: packSub, off: off, size: base.Size, count: n, sub: sub})
}

// addPackOp appends op, merging it into the previous op when both treat
// adjacent bytes the same way.
func addPackOp(ops []packOp, op packOp) []packOp {
	if op.kind == packCopy {
		op.size, op.count = op.size*op.count, 1
	}
	if k := len(ops) - 1; k >= 0 {
		last := &ops[k]
		if last.kind == op.kind && last.kind != packSub && last.off+last.size*last.count == op.off {
			switch {
			case op.kind == packCopy:
				last.size += op.size
				return ops
			case last.size == op.size:
				last.count += op.count
				return ops
			}
		}
	}
	return append(ops, op)
}

// packOps returns t's ops, building them for types not made by parseDatatype.
func (t *Datatype) packOps() []packOp {
	if t.pack != nil {
		return t.pack
	}
	return t.buildPack()
}

// appendPackedLE appends one element as packed little-endian bytes:
// numbers byte-swapped to little-endian (integers whose precision does not
// fill their bytes shifted down and sign-extended, as libhdf5 reads them), compound fields packed in
// declaration order, arrays element by element, strings, opaque data,
// references and vlen heap ids as stored. elem is zero-extended if short.
func (t *Datatype) appendPackedLE(dst, elem []byte) []byte {
	if len(elem) < t.Size {
		elem = append(slices.Clone(elem), make([]byte, t.Size-len(elem))...)
	}
	ops := t.packOps()
	n := packedLen(ops)
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	packInto(dst[start:], elem, ops)
	return dst
}

// AppendPackedLE appends n elements of src, as stored in the file, as
// packed little-endian bytes (the form WriteRaw writes), PackedSize bytes
// each. Whole buffers of little-endian numbers are copied and big-endian
// ones swapped in one pass; other types go element by element. If src
// holds fewer than n elements, only the complete ones are converted.
func (t *Datatype) AppendPackedLE(dst, src []byte, n int) []byte {
	n = max(0, min(n, len(src)/t.Size))
	src = src[:n*t.Size]
	ops := t.packOps()
	if len(ops) == 1 && ops[0].kind == packCopy && ops[0].size == t.Size {
		return append(dst, src...)
	}
	per := packedLen(ops)
	start := len(dst)
	dst = slices.Grow(dst, n*per)[:start+n*per]
	out := dst[start:]
	if len(ops) == 1 && (ops[0].kind == packSwap || ops[0].kind == packVAX) && ops[0].size*ops[0].count == t.Size {
		packItems(out, src, ops[0].kind, ops[0].size) // one run over the whole buffer
		return dst
	}
	for i := range n {
		packInto(out[i*per:(i+1)*per], src[i*t.Size:(i+1)*t.Size], ops)
	}
	return dst
}

// packedLen returns the number of bytes ops write for one element.
func packedLen(ops []packOp) int {
	n := 0
	for _, op := range ops {
		if op.kind == packSub {
			n += op.count * packedLen(op.sub)
		} else {
			n += op.size * op.count
		}
	}
	return n
}

// packInto writes one packed element, packedLen(ops) bytes, to out and
// returns that length.
func packInto(out, elem []byte, ops []packOp) int {
	o := 0
	for i := range ops {
		op := &ops[i]
		src := elem[op.off : op.off+op.size*op.count]
		switch op.kind {
		case packCopy:
			o += copy(out[o:], src)
		case packSub:
			for j := range op.count {
				o += packInto(out[o:], src[j*op.size:(j+1)*op.size], op.sub)
			}
		case packBits:
			t := op.t
			var le [8]byte
			copy(le[:], src)
			if t.ByteOrder == BigEndian {
				slices.Reverse(le[:op.size])
			}
			v := extractBits(le[:op.size], t.BitOffset, t.Precision)
			if t.Signed && t.Precision > 0 && t.Precision < 64 && v>>(t.Precision-1)&1 != 0 {
				v |= ^uint64(0) << t.Precision
			}
			for k := range op.size {
				out[o+k] = byte(v >> (8 * k))
			}
			o += op.size
		default:
			packItems(out[o:o+len(src)], src, op.kind, op.size)
			o += len(src)
		}
	}
	return o
}

// packItems writes the items of size bytes in src to out (same length)
// byte-swapped (packSwap) or with their 16-bit words reversed (packVAX).
func packItems(out, src []byte, kind packKind, size int) {
	switch {
	case kind == packVAX:
		for i := 0; i+size <= len(src); i += size {
			for w := 0; w < size; w += 2 {
				copy(out[i+w:i+w+2], src[i+size-w-2:i+size-w])
			}
		}
	case size == 2:
		swap16(out, src)
	case size == 4:
		swap32(out, src)
	case size == 8:
		swap64(out, src)
	default:
		for i := 0; i+size <= len(src); i += size {
			for j := range size {
				out[i+j] = src[i+size-1-j]
			}
		}
	}
}

// swap16, swap32 and swap64 byte-swap every 2-, 4- or 8-byte item of src
// into out (at least as long), eight bytes per step where possible.
func swap16(out, src []byte) {
	out = out[:len(src)]
	for len(src) >= 8 {
		x := binary.LittleEndian.Uint64(src)
		binary.LittleEndian.PutUint64(out, x>>8&0x00ff00ff00ff00ff|x&0x00ff00ff00ff00ff<<8)
		src, out = src[8:], out[8:]
	}
	for len(src) >= 2 {
		out[0], out[1] = src[1], src[0]
		src, out = src[2:], out[2:]
	}
}

func swap32(out, src []byte) {
	out = out[:len(src)]
	for len(src) >= 8 {
		x := bits.ReverseBytes64(binary.LittleEndian.Uint64(src))
		binary.LittleEndian.PutUint64(out, x<<32|x>>32)
		src, out = src[8:], out[8:]
	}
	if len(src) >= 4 {
		binary.LittleEndian.PutUint32(out, binary.BigEndian.Uint32(src))
	}
}

func swap64(out, src []byte) {
	out = out[:len(src)]
	for len(src) >= 8 {
		binary.LittleEndian.PutUint64(out, binary.BigEndian.Uint64(src))
		src, out = src[8:], out[8:]
	}
}

// ---- (b) Go values of elements ----

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
		return trimString(elem, t.StrPad), nil
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

// littleEndian returns the element's bytes in little-endian order.
func (t *Datatype) littleEndian(elem []byte) []byte {
	if t.ByteOrder != BigEndian && t.ByteOrder != VAXOrder {
		return elem
	}
	kind := packSwap
	if t.ByteOrder == VAXOrder {
		kind = packVAX
	}
	out := make([]byte, t.Size)
	packItems(out, elem[:t.Size], kind, t.Size)
	return out
}

// intValue decodes an integer (or bitfield, time, enum base) element.
func (t *Datatype) intValue(elem []byte) any {
	if t.BitOffset == 0 && t.Precision == 8*t.Size {
		var u uint64
		order := binary.ByteOrder(binary.LittleEndian)
		if t.ByteOrder == BigEndian {
			order = binary.BigEndian
		}
		switch t.Size {
		case 1:
			u = uint64(elem[0])
		case 2:
			u = uint64(order.Uint16(elem))
		case 4:
			u = uint64(order.Uint32(elem))
		case 8:
			u = order.Uint64(elem)
		default:
			return t.wideInt(elem)
		}
		return signExtend(u, t.Precision, t.Signed)
	}
	if t.Precision > 64 {
		return t.wideInt(elem)
	}
	return signExtend(extractBits(t.littleEndian(elem), t.BitOffset, t.Precision), t.Precision, t.Signed)
}

// signExtend returns the low prec bits of u as int64 when signed, else u.
func signExtend(u uint64, prec int, signed bool) any {
	if !signed {
		return u
	}
	shift := 64 - prec
	return int64(u<<shift) >> shift
}

// wideInt decodes integers that do not fit 64 bits (or odd sizes).
func (t *Datatype) wideInt(elem []byte) any {
	le := t.littleEndian(elem)
	if t.Precision <= 64 {
		return signExtend(extractBits(le, t.BitOffset, t.Precision), t.Precision, t.Signed)
	}
	be := slices.Clone(le)
	slices.Reverse(be)
	v := new(big.Int).SetBytes(be)
	v.Rsh(v, uint(t.BitOffset))
	one := big.NewInt(1)
	limit := new(big.Int).Lsh(one, uint(t.Precision))
	v.And(v, new(big.Int).Sub(limit, one))
	if t.Signed && v.Bit(t.Precision-1) == 1 {
		v.Sub(v, limit)
	}
	return v
}

// extractBits returns n <= 64 bits of the little-endian bytes le starting
// at bit off.
func extractBits(le []byte, off, n int) uint64 {
	var v uint64
	for i := 0; i < n; {
		bit := off + i
		take := min(8-bit&7, n-i)
		v |= uint64(le[bit>>3]>>(bit&7)&byte(1<<take-1)) << i
		i += take
	}
	return v
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

// floatValue decodes a floating-point element: float32 for IEEE binary32,
// float64 otherwise.
func (t *Datatype) floatValue(elem []byte) any {
	if t.isIEEE() {
		le := t.ByteOrder == LittleEndian
		switch t.Size {
		case 2:
			u := binary.BigEndian.Uint16(elem)
			if le {
				u = binary.LittleEndian.Uint16(elem)
			}
			return Float16(u)
		case 4:
			u := binary.BigEndian.Uint32(elem)
			if le {
				u = binary.LittleEndian.Uint32(elem)
			}
			return math.Float32frombits(u)
		case 8:
			u := binary.BigEndian.Uint64(elem)
			if le {
				u = binary.LittleEndian.Uint64(elem)
			}
			return math.Float64frombits(u)
		}
	}
	return t.genericFloat(t.littleEndian(elem))
}

// Float16 converts the bits of an IEEE binary16 number to float64.
func Float16(h uint16) float64 {
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	var v float64
	switch e {
	case 0x1f:
		v = math.Inf(1)
		if m != 0 {
			v = math.NaN()
		}
	case 0:
		v = math.Ldexp(m, -24)
	default:
		v = math.Ldexp(1024+m, e-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

// genericFloat decodes a float of any layout from little-endian bytes.
// Mantissas wider than 64 bits keep their 64 most significant bits.
func (t *Datatype) genericFloat(le []byte) float64 {
	l := t.Float
	e := int64(extractBits(le, l.ExpPos, l.ExpSize))
	mbits := min(l.MantSize, 64)
	m := extractBits(le, l.MantPos+l.MantSize-mbits, mbits)
	maxE := int64(1)<<l.ExpSize - 1
	scale := e - int64(l.Bias)
	frac := m // mantissa bits below an explicitly stored leading digit
	if l.Norm != 2 {
		frac &^= 1 << (mbits - 1)
	}
	var v float64
	switch {
	case e == maxE && t.ByteOrder != VAXOrder && l.ExpSize >= 5:
		v = math.Inf(1) // IEEE-style infinity or NaN
		if frac != 0 {
			v = math.NaN()
		}
	case e == maxE && l.ExpSize == 4 && l.MantSize == 3 && m == 7:
		v = math.NaN() // FP8 E4M3 has no infinities and one NaN pattern
	case l.Norm == 2 && e != 0: // 1.m * 2^(e-bias)
		v = ldexp(1, scale) + ldexp(float64(m), scale-int64(mbits))
	default:
		// Subnormal (0.m * 2^(1-bias)), or a mantissa that stores its
		// leading digit (m.mmm * 2^(e-bias)): both are m * 2^(e-bias+1-mbits),
		// as libhdf5 converts them.
		v = ldexp(float64(m), scale+1-int64(mbits))
	}
	if extractBits(le, l.SignPos, 1) != 0 {
		v = -v
	}
	return v
}

// ldexp is math.Ldexp with an exponent clamped to where the result is
// already 0 or infinite.
func ldexp(frac float64, exp int64) float64 {
	return math.Ldexp(frac, int(max(-4000, min(exp, 4000))))
}

func toFloat64(v any) float64 {
	if x, ok := v.(float32); ok {
		return float64(x)
	}
	return v.(float64)
}

// trimString strips a fixed or variable-length string's padding: up to the
// first NUL for NULLTERM, trailing NULs for NULLPAD, trailing spaces for
// SPACEPAD.
func trimString(b []byte, pad StrPad) string {
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
		return trimString(data, t.StrPad), nil
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

// ---- (c) text ----

// FormatValue renders a value returned for an element as text in the
// style of h5dump: numbers in shortest round-trip form, strings quoted,
// compounds as {1, 2.5, "x"}, arrays and sequences as [1, 2], enums by
// name, references as object(ADDR) or region(ADDR), null ones as NULL.
func FormatValue(v any) string {
	var b strings.Builder
	formatValue(&b, v)
	return b.String()
}

func formatValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("NULL")
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case *big.Int:
		b.WriteString(x.String())
	case float32:
		b.WriteString(formatFloat(float64(x), 32))
	case float64:
		b.WriteString(formatFloat(x, 64))
	case complex128:
		b.WriteString(formatFloat(real(x), 64))
		if im := imag(x); im >= 0 || math.IsNaN(im) {
			b.WriteString("+")
		}
		b.WriteString(formatFloat(imag(x), 64) + "i")
	case string:
		b.WriteString(strconv.Quote(x))
	case []byte:
		b.WriteString("0x" + hex.EncodeToString(x))
	case EnumValue:
		if x.Name != "" {
			b.WriteString(x.Name)
		} else {
			b.WriteString(strconv.FormatInt(x.Value, 10))
		}
	case Compound:
		b.WriteString("{")
		for i, fv := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, fv.Value)
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, e)
		}
		b.WriteString("]")
	case ObjectRef:
		if x == 0 {
			b.WriteString("NULL")
		} else {
			b.WriteString("object(" + strconv.FormatUint(uint64(x), 10) + ")")
		}
	case RegionRef:
		if x.Object == 0 {
			b.WriteString("NULL")
		} else {
			b.WriteString("region(" + strconv.FormatUint(x.Object, 10) + ")")
		}
	case Reference:
		if x.Type == 0 {
			b.WriteString("NULL")
			return
		}
		b.WriteString(x.Type.String() + "(")
		if x.File != "" {
			b.WriteString(strconv.Quote(x.File) + ", ")
		}
		b.WriteString(strconv.FormatUint(x.Object, 10))
		if x.Type == RefAttr {
			b.WriteString(", " + strconv.Quote(x.Attr))
		}
		b.WriteString(")")
	default:
		fmt.Fprint(b, x)
	}
}

// formatFloat writes the shortest text that reads back as the same value
// of the given bit size, with inf and nan spelled as h5dump does.
func formatFloat(x float64, bitSize int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, bitSize)
}
