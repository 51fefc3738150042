package h5core

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
)

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
// packed little-endian bytes (the form DumpPacked writes), PackedSize bytes
// each. Whole buffers of little-endian numbers are copied and big-endian
// ones swapped in one pass; other types go element by element. If src
// holds fewer than n elements, only the complete ones are converted.
func (t *Datatype) AppendPackedLE(dst, src []byte, n int) []byte {
	n = max(0, min(n, len(src)/t.Size))
	src = src[:n*t.Size]
	if t.PackedIsStored() {
		return append(dst, src...)
	}
	ops := t.packOps()
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

// PackedIsStored reports whether t's packed little-endian elements are
// byte for byte the ones the file stores (AppendPackedLE and AppendStored
// copy them).
func (t *Datatype) PackedIsStored() bool {
	ops := t.packOps()
	return len(ops) == 1 && ops[0].kind == packCopy && ops[0].size == t.Size
}

// AppendStored appends n elements given in packed little-endian form
// (PackedSize bytes each, as AppendPackedLE makes them) as the file stores
// them, t.Size bytes each: the inverse of AppendPackedLE, for writers.
// Compound padding and the bits outside an integer's precision are zero.
// A value a partial-precision integer cannot hold is an error naming the
// element; if packed holds fewer than n elements, only the complete ones
// are converted.
func (t *Datatype) AppendStored(dst, packed []byte, n int) ([]byte, error) {
	ops := t.packOps()
	per := packedLen(ops)
	if per == 0 {
		return dst, nil
	}
	n = max(0, min(n, len(packed)/per))
	packed = packed[:n*per]
	if t.PackedIsStored() {
		return append(dst, packed...), nil
	}
	start := len(dst)
	dst = slices.Grow(dst, n*t.Size)[:start+n*t.Size]
	out := dst[start:]
	if len(ops) == 1 && (ops[0].kind == packSwap || ops[0].kind == packVAX) && ops[0].size*ops[0].count == t.Size {
		packItems(out, packed, ops[0].kind, ops[0].size)
		return dst, nil
	}
	clear(out)
	for i := range n {
		if _, err := unpackInto(out[i*t.Size:(i+1)*t.Size], packed[i*per:(i+1)*per], ops); err != nil {
			return dst[:start], fmt.Errorf("element %d: %w", i, err)
		}
	}
	return dst, nil
}

// unpackInto is packInto backwards: it stores the packed element in (at
// least packedLen(ops) bytes) into elem and returns the bytes it used.
func unpackInto(elem, in []byte, ops []packOp) (int, error) {
	o := 0
	for i := range ops {
		op := &ops[i]
		dst := elem[op.off : op.off+op.size*op.count]
		switch op.kind {
		case packCopy:
			o += copy(dst, in[o:o+len(dst)])
		case packSub:
			for j := range op.count {
				k, err := unpackInto(dst[j*op.size:(j+1)*op.size], in[o:], op.sub)
				if err != nil {
					return 0, err
				}
				o += k
			}
		case packBits:
			t := op.t
			var le [8]byte
			copy(le[:], in[o:o+op.size])
			v := binary.LittleEndian.Uint64(le[:])
			if t.Signed && le[op.size-1]&0x80 != 0 {
				v = uint64(signExtend(v, 8*op.size))
			}
			var err error
			if t.Signed {
				err = t.PutInt(dst, int64(v))
			} else {
				err = t.PutUint(dst, v)
			}
			if err != nil {
				return 0, err
			}
			o += op.size
		default:
			packItems(dst, in[o:o+len(dst)], op.kind, op.size)
			o += len(dst)
		}
	}
	return o, nil
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
// Both are their own inverse, and out may be src (in place).
func packItems(out, src []byte, kind packKind, size int) {
	switch {
	case kind == packVAX:
		for i := 0; i+size <= len(src); i += size {
			o := out[i : i+size]
			copy(o, src[i:i+size])
			for a, b := 0, size-2; a < b; a, b = a+2, b-2 {
				o[a], o[a+1], o[b], o[b+1] = o[b], o[b+1], o[a], o[a+1]
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
			o := out[i : i+size]
			copy(o, src[i:i+size])
			slices.Reverse(o)
		}
	}
}

// swap16, swap32 and swap64 byte-swap every 2-, 4- or 8-byte item of src
// into out (at least as long, or src itself), eight bytes per step where
// possible.
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

// IsPackedLE reports whether stored elements already are their packed
// little-endian form, so that raw bytes need no conversion.
func (t *Datatype) IsPackedLE() bool {
	ops := t.packOps()
	return len(ops) == 1 && ops[0].kind == packCopy && ops[0].size == t.Size
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
