package h5core

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// Limits that refuse absurd datatype messages before they cost memory.
const (
	maxDatatypeDepth = 32  // nesting of compound/enum/vlen/array/complex
	maxArrayRank     = 32  // H5S_MAX_RANK
	maxNumberSize    = 256 // bytes of one integer, float, time or bitfield
	maxFloatExpBits  = 32  // wider exponents exist in no real format
	maxTokenSize     = 16  // H5VL_token_t, for revised references
)

// parseDatatype decodes a datatype message (header message 0x0003) that
// starts at b[0], which lies at file address at. It returns the datatype
// and the number of bytes the message used.
func parseDatatype(b []byte, at uint64) (*Datatype, int, error) {
	d := newDecoder(b, at, 0, 0)
	t := parseDatatypeAt(d, 0)
	if d.err != nil {
		return nil, 0, d.err
	}
	t.pack = t.buildPack()
	t.raw = slices.Clone(b[:d.pos])
	return t, d.pos, nil
}

// dtFail records a datatype error at the address where the type began.
func dtFail(d *decoder, at uint64, format string, args ...any) {
	if d.err == nil {
		d.err = formatErr(at, "datatype: "+format, args...)
	}
}

// parseDatatypeAt decodes one (possibly nested) datatype at the decoder's
// position. It returns nil exactly when d.err is set.
func parseDatatypeAt(d *decoder, depth int) *Datatype {
	at := d.addr()
	if depth > maxDatatypeDepth {
		dtFail(d, at, "nested more than %d levels deep", maxDatatypeDepth)
		return nil
	}
	cv := d.u8()
	flags := uint32(d.u8()) | uint32(d.u8())<<8 | uint32(d.u8())<<16
	size := d.u32()
	if d.err != nil {
		return nil
	}
	t := &Datatype{Class: DatatypeClass(cv & 0x0f), Version: int(cv >> 4), Size: int(size)}
	if t.Version < 1 || t.Version > 5 {
		dtFail(d, at, "message version %d (want 1..5)", t.Version)
		return nil
	}
	if size == 0 {
		dtFail(d, at, "%s type of size 0", t.Class)
		return nil
	}
	switch t.Class {
	case ClassFixedPoint, ClassBitfield:
		t.ByteOrder = flagOrder(flags)
		t.Signed = t.Class == ClassFixedPoint && flags&0x08 != 0
		t.BitOffset = int(d.u16())
		t.Precision = int(d.u16())
		checkBits(d, at, t)
	case ClassFloat:
		parseFloat(d, at, t, flags)
	case ClassTime:
		t.ByteOrder = flagOrder(flags)
		t.Precision = int(d.u16())
		checkBits(d, at, t)
	case ClassString:
		t.StrPad, t.CharSet = parseStrFlags(d, at, flags)
	case ClassOpaque:
		tag := d.bytes(int(flags & 0xff))
		if i := bytes.IndexByte(tag, 0); i >= 0 {
			tag = tag[:i]
		}
		t.Tag = string(tag)
	case ClassCompound:
		parseCompound(d, at, t, flags, depth)
	case ClassReference:
		parseReference(d, at, t, flags)
	case ClassEnum:
		parseEnum(d, at, t, flags, depth)
	case ClassVlen:
		parseVlen(d, at, t, flags, depth)
	case ClassArray:
		parseArray(d, at, t, depth)
	case ClassComplex:
		parseComplex(d, at, t, flags, depth)
	default:
		dtFail(d, at, "unknown datatype class %d", t.Class)
	}
	if d.err != nil {
		return nil
	}
	return t
}

// flagOrder reads the byte-order bit shared by the numeric classes.
func flagOrder(flags uint32) ByteOrder {
	if flags&1 != 0 {
		return BigEndian
	}
	return LittleEndian
}

// checkBits refuses numbers whose significant bits do not fit the element.
func checkBits(d *decoder, at uint64, t *Datatype) {
	switch {
	case d.err != nil:
	case t.Size > maxNumberSize:
		dtFail(d, at, "%s of %d bytes (at most %d supported)", t.Class, t.Size, maxNumberSize)
	case t.Precision == 0:
		dtFail(d, at, "%s with precision 0", t.Class)
	case t.BitOffset+t.Precision > 8*t.Size:
		dtFail(d, at, "%s bits %d..%d lie outside its %d-byte element", t.Class, t.BitOffset, t.BitOffset+t.Precision-1, t.Size)
	}
}

func parseFloat(d *decoder, at uint64, t *Datatype, flags uint32) {
	t.ByteOrder = flagOrder(flags)
	if t.Version >= 3 && flags&0x40 != 0 {
		if flags&1 == 0 {
			dtFail(d, at, "float byte-order bits 0 and 6 are 0 and 1 (reserved)")
			return
		}
		t.ByteOrder = VAXOrder
	}
	l := &t.Float
	l.Norm = uint8(flags>>4) & 3
	l.SignPos = int(flags>>8) & 0xff
	t.BitOffset = int(d.u16())
	t.Precision = int(d.u16())
	l.ExpPos = int(d.u8())
	l.ExpSize = int(d.u8())
	l.MantPos = int(d.u8())
	l.MantSize = int(d.u8())
	l.Bias = d.u32()
	checkBits(d, at, t)
	bits := 8 * t.Size
	switch {
	case d.err != nil:
	case l.Norm == 3:
		dtFail(d, at, "float mantissa normalization 3 (reserved)")
	case t.ByteOrder == VAXOrder && t.Size%4 != 0:
		dtFail(d, at, "VAX-order float of %d bytes (want a multiple of 4)", t.Size)
	case l.ExpSize == 0 || l.ExpSize > maxFloatExpBits:
		dtFail(d, at, "float exponent of %d bits", l.ExpSize)
	case l.MantSize == 0:
		dtFail(d, at, "float mantissa of 0 bits")
	case l.SignPos >= bits || l.ExpPos+l.ExpSize > bits || l.MantPos+l.MantSize > bits:
		dtFail(d, at, "float fields (sign %d, exponent %d+%d, mantissa %d+%d) exceed %d bits",
			l.SignPos, l.ExpPos, l.ExpSize, l.MantPos, l.MantSize, bits)
	}
}

// parseStrFlags decodes the padding and character set nibbles of a string
// (flags) or of a variable-length string (flags >> 4).
func parseStrFlags(d *decoder, at uint64, flags uint32) (StrPad, CharSet) {
	pad, cset := flags&0x0f, flags>>4&0x0f
	if pad > uint32(SpacePad) {
		dtFail(d, at, "string padding type %d (reserved)", pad)
	}
	if cset > uint32(UTF8) {
		dtFail(d, at, "string character set %d (reserved)", cset)
	}
	return StrPad(pad), CharSet(cset)
}

// dtName reads a NUL-terminated name; before version 3 it is padded with
// NULs to a multiple of 8 bytes.
func dtName(d *decoder, version int) string {
	s := d.cstring()
	if version < 3 {
		d.skip(7 - len(s)%8)
	}
	return s
}

func parseCompound(d *decoder, at uint64, t *Datatype, flags uint32, depth int) {
	n := int(flags & 0xffff)
	// A member needs at least a name byte, a one-byte offset and an
	// 8-byte type header.
	if n == 0 || n*10 > d.remaining() {
		dtFail(d, at, "compound declares %d members in %d bytes", n, d.remaining())
		return
	}
	offWidth := bytesFor(uint64(t.Size))
	t.Fields = make([]Field, 0, n)
	for range n {
		memberAt := d.addr()
		f := Field{Name: dtName(d, t.Version)}
		if t.Version >= 3 {
			f.Offset = int(d.uN(offWidth))
		} else {
			f.Offset = int(d.u32())
		}
		var dims []int
		if t.Version == 1 {
			rank := int(d.u8())
			d.skip(3 + 4 + 4) // reserved, permutation, reserved
			for i := range 4 {
				if dim := int(d.u32()); i < rank {
					dims = append(dims, dim)
				}
			}
			if rank > 4 {
				dtFail(d, memberAt, "compound member %q has %d dimensions (at most 4)", f.Name, rank)
			}
		}
		if d.err != nil {
			return
		}
		if f.Type = parseDatatypeAt(d, depth+1); f.Type == nil {
			return
		}
		if dims != nil {
			if f.Type = arrayOf(d, memberAt, f.Type, dims); f.Type == nil {
				return
			}
		}
		if f.Offset+f.Type.Size > t.Size {
			dtFail(d, memberAt, "compound member %q (offset %d, size %d) overruns the %d-byte compound",
				f.Name, f.Offset, f.Type.Size, t.Size)
			return
		}
		t.Fields = append(t.Fields, f)
	}
	checkOverlap(d, at, t.Fields)
}

// checkOverlap refuses compounds whose members share bytes.
func checkOverlap(d *decoder, at uint64, fields []Field) {
	byOffset := slices.Clone(fields)
	slices.SortFunc(byOffset, func(a, b Field) int { return a.Offset - b.Offset })
	for i := 1; i < len(byOffset); i++ {
		prev, cur := byOffset[i-1], byOffset[i]
		if cur.Offset < prev.Offset+prev.Type.Size {
			dtFail(d, at, "compound members %q and %q overlap", prev.Name, cur.Name)
			return
		}
	}
}

func parseReference(d *decoder, at uint64, t *Datatype, flags uint32) {
	t.RefType = RefType(flags & 0x0f)
	switch {
	case t.RefType > RefAttr:
		dtFail(d, at, "reference type %d (reserved)", t.RefType)
	case t.RefType.Revised() && flags>>4&0x0f != 1:
		dtFail(d, at, "revised reference encoding version %d (want 1)", flags>>4&0x0f)
	}
}

func parseEnum(d *decoder, at uint64, t *Datatype, flags uint32, depth int) {
	n := int(flags & 0xffff)
	if t.Base = parseDatatypeAt(d, depth+1); t.Base == nil {
		return
	}
	if t.Base.Class != ClassFixedPoint || t.Base.Size != t.Size {
		dtFail(d, at, "enum of size %d over a %d-byte %s base (want an integer of the same size)", t.Size, t.Base.Size, t.Base.Class)
		return
	}
	minName := 1
	if t.Version < 3 {
		minName = 8
	}
	if n*(minName+t.Size) > d.remaining() {
		dtFail(d, at, "enum declares %d members in %d bytes", n, d.remaining())
		return
	}
	t.Members = make([]EnumMember, n)
	for i := range t.Members {
		t.Members[i].Name = dtName(d, t.Version)
	}
	values := bytes.Clone(d.bytes(n * t.Size))
	if d.err != nil {
		return
	}
	for i := range t.Members {
		t.Members[i].Value = values[i*t.Size : (i+1)*t.Size : (i+1)*t.Size]
	}
}

func parseVlen(d *decoder, at uint64, t *Datatype, flags uint32, depth int) {
	switch t.VlenKind = VlenKind(flags & 0x0f); t.VlenKind {
	case VlenString:
		t.StrPad, t.CharSet = parseStrFlags(d, at, flags>>4)
	case VlenSequence:
	default:
		dtFail(d, at, "variable-length kind %d (reserved)", t.VlenKind)
	}
	if d.err == nil {
		t.Base = parseDatatypeAt(d, depth+1)
	}
}

func parseArray(d *decoder, at uint64, t *Datatype, depth int) {
	rank := int(d.u8())
	if rank == 0 || rank > maxArrayRank {
		dtFail(d, at, "array of rank %d (want 1..%d)", rank, maxArrayRank)
		return
	}
	if t.Version < 3 {
		d.skip(3)
	}
	dims := make([]int, rank)
	for i := range dims {
		dims[i] = int(d.u32())
	}
	if t.Version < 3 {
		d.skip(4 * rank) // permutation indices, never implemented
	}
	if d.err != nil {
		return
	}
	base := parseDatatypeAt(d, depth+1)
	if base == nil {
		return
	}
	a := arrayOf(d, at, base, dims)
	if a != nil && a.Size != t.Size {
		dtFail(d, at, "array of %d-byte elements %v has size %d, not %d", base.Size, dims, t.Size, a.Size)
		return
	}
	t.Dims, t.Base = dims, base
}

// arrayOf returns an array type of base with the given dimensions, refusing
// zero dimensions and total sizes beyond what a datatype can describe.
func arrayOf(d *decoder, at uint64, base *Datatype, dims []int) *Datatype {
	size := uint64(base.Size)
	for _, n := range dims {
		size *= uint64(n)
		if n == 0 || size > 1<<32-1 {
			dtFail(d, at, "array dimensions %v of %d-byte elements: size 0 or above 4 GiB", dims, base.Size)
			return nil
		}
	}
	return &Datatype{Class: ClassArray, Version: 2, Size: int(size), Dims: dims, Base: base}
}

func parseComplex(d *decoder, at uint64, t *Datatype, flags uint32, depth int) {
	if flags != 1 {
		dtFail(d, at, "complex flags %#x (only homogeneous rectangular form, 0x1, is defined)", flags)
		return
	}
	if t.Base = parseDatatypeAt(d, depth+1); t.Base == nil {
		return
	}
	if t.Base.Class != ClassFloat || 2*t.Base.Size != t.Size {
		dtFail(d, at, "complex of size %d over a %d-byte %s base (want two floats)", t.Size, t.Base.Size, t.Base.Class)
	}
}

// encodeDatatype encodes the datatype message of t: the bytes its file
// stored for a type read from one, else (a type built by a caller) the
// version 1 message of a fixed-point or IEEE-style float number, the
// inverse of parseDatatypeAt for those classes.
func encodeDatatype(t *Datatype) ([]byte, error) {
	if t.raw != nil {
		return t.raw, nil
	}
	var flags uint32
	switch t.ByteOrder {
	case LittleEndian:
	case BigEndian:
		flags = 1
	default:
		return nil, fmt.Errorf("encoding a %s datatype of byte order %v: %w", t.Class, t.ByteOrder, ErrUnsupported)
	}
	b := []byte{1<<4 | byte(t.Class)}
	switch t.Class {
	case ClassFixedPoint:
		if t.Signed {
			flags |= 0x08
		}
	case ClassFloat:
		flags |= uint32(t.Float.Norm&3)<<4 | uint32(t.Float.SignPos&0xff)<<8
	default:
		return nil, fmt.Errorf("encoding a new %s datatype: %w", t.Class, ErrUnsupported)
	}
	le := binary.LittleEndian
	b = append(b, byte(flags), byte(flags>>8), byte(flags>>16))
	b = le.AppendUint32(b, uint32(t.Size))
	b = le.AppendUint16(b, uint16(t.BitOffset))
	b = le.AppendUint16(b, uint16(t.Precision))
	if t.Class == ClassFloat {
		l := t.Float
		b = append(b, byte(l.ExpPos), byte(l.ExpSize), byte(l.MantPos), byte(l.MantSize))
		b = le.AppendUint32(b, l.Bias)
	}
	return b, nil
}
