package h5core

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// intBits returns the value bits of an integer element (fixed-point,
// bitfield, time or enum base) zero-extended; ok is false when the
// precision exceeds 64 bits.
func (t *Datatype) intBits(elem []byte) (u uint64, ok bool) {
	if t.Precision > 64 {
		return 0, false
	}
	if t.BitOffset == 0 && t.Precision == 8*t.Size {
		order := binary.ByteOrder(binary.LittleEndian)
		if t.ByteOrder == BigEndian {
			order = binary.BigEndian
		}
		switch t.Size {
		case 1:
			return uint64(elem[0]), true
		case 2:
			return uint64(order.Uint16(elem)), true
		case 4:
			return uint64(order.Uint32(elem)), true
		case 8:
			return order.Uint64(elem), true
		}
	}
	return extractBits(t.littleEndian(elem), t.BitOffset, t.Precision), true
}

// intValue decodes an integer (or bitfield, time, enum base) element:
// int64 when signed, uint64 when not, *big.Int beyond 64 bits.
func (t *Datatype) intValue(elem []byte) any {
	u, ok := t.intBits(elem)
	switch {
	case !ok:
		return t.wideInt(elem)
	case t.Signed:
		return signExtend(u, t.Precision)
	}
	return u
}

// Int64 returns an integer element (fixed-point, bitfield, time, or an
// enumeration's value) as int64: sign-extended when the type is signed,
// wrapped when an unsigned value is 2^63 or more. Integers wider than 64
// bits keep their low 64 bits.
func (t *Datatype) Int64(elem []byte) int64 {
	if t.Class == ClassEnum {
		t = t.Base
	}
	u, ok := t.intBits(elem)
	switch {
	case !ok:
		return t.wideInt(elem).Int64()
	case t.Signed:
		return signExtend(u, t.Precision)
	}
	return int64(u)
}

// signExtend returns the low prec bits of u as a two's complement number.
func signExtend(u uint64, prec int) int64 {
	shift := 64 - prec
	return int64(u<<shift) >> shift
}

// wideInt decodes integers whose precision exceeds 64 bits.
func (t *Datatype) wideInt(elem []byte) *big.Int {
	be := slices.Clone(t.littleEndian(elem))
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

// floatValue decodes a floating-point element: float32 for IEEE binary32,
// float64 otherwise.
func (t *Datatype) floatValue(elem []byte) any {
	if t.Size == 4 && t.IsIEEE() {
		return float32(t.Float64(elem))
	}
	return t.Float64(elem)
}

// Float64 returns a floating-point element of any layout as float64
// (IEEE binary16/32/64 exactly; wider mantissas keep their 64 most
// significant bits).
func (t *Datatype) Float64(elem []byte) float64 {
	if !t.IsIEEE() {
		return t.genericFloat(t.littleEndian(elem))
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if t.ByteOrder == BigEndian {
		order = binary.BigEndian
	}
	switch t.Size {
	case 2:
		return Float16(order.Uint16(elem))
	case 4:
		return float64(math.Float32frombits(order.Uint32(elem)))
	}
	return math.Float64frombits(order.Uint64(elem))
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

// PutInt stores v in elem (t.Size bytes) as an element of the integer
// type t (fixed-point, bitfield, time, or an enumeration's base): the
// inverse of Int64. Bits outside the type's precision are zero. A value
// the type cannot hold is an error, and elem is left unchanged.
func (t *Datatype) PutInt(elem []byte, v int64) error {
	if v >= 0 {
		return t.PutUint(elem, uint64(v))
	}
	if t.Class == ClassEnum {
		t = t.Base
	}
	if !t.Signed || t.Precision < 64 && signExtend(uint64(v), t.Precision) != v {
		return fmt.Errorf("value %d does not fit the %d-bit integer type %s", v, t.Precision, t)
	}
	return t.putIntBits(elem, uint64(v), true)
}

// PutUint is PutInt for unsigned values.
func (t *Datatype) PutUint(elem []byte, v uint64) error {
	if t.Class == ClassEnum {
		t = t.Base
	}
	prec := t.Precision
	if t.Signed {
		prec--
	}
	if prec < 64 && v>>prec != 0 {
		return fmt.Errorf("value %d does not fit the %d-bit integer type %s", v, t.Precision, t)
	}
	return t.putIntBits(elem, v, false)
}

// putIntBits stores the two's complement bits of a value that fits t
// (negative: sign-extended beyond 64 bits) at t's bit offset.
func (t *Datatype) putIntBits(elem []byte, v uint64, negative bool) error {
	switch t.Class {
	case ClassFixedPoint, ClassBitfield, ClassTime:
	default:
		return fmt.Errorf("cannot store an integer in a %s element", t.Class)
	}
	if len(elem) < t.Size || t.BitOffset+t.Precision > 8*t.Size {
		return fmt.Errorf("element of %d bytes for the %d-byte type %s", len(elem), t.Size, t)
	}
	if t.BitOffset != 0 || t.Precision != 8*t.Size {
		if t.Size > 8 {
			return &unsupportedError{fmt.Sprintf("cannot store integers of the %d-byte partial-precision type %s", t.Size, t)}
		}
		if t.Precision < 64 {
			v &= 1<<t.Precision - 1
		}
		v <<= t.BitOffset
		negative = false
	}
	elem = elem[:t.Size]
	for i := range elem {
		switch {
		case i < 8:
			elem[i] = byte(v >> (8 * i))
		case negative:
			elem[i] = 0xff
		default:
			elem[i] = 0
		}
	}
	if t.ByteOrder == BigEndian {
		slices.Reverse(elem)
	}
	return nil
}

// PutFloat stores v in elem (t.Size bytes) as an element of the IEEE
// floating-point type t, rounded to nearest even as numpy and libhdf5
// convert; values beyond the type's range become infinities. Other float
// layouts (VAX, custom) are not supported.
func (t *Datatype) PutFloat(elem []byte, v float64) error {
	if t.Class != ClassFloat || !t.IsIEEE() {
		return &unsupportedError{fmt.Sprintf("cannot store floating-point values in elements of %s", t)}
	}
	if len(elem) < t.Size {
		return fmt.Errorf("element of %d bytes for the %d-byte type %s", len(elem), t.Size, t)
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if t.ByteOrder == BigEndian {
		order = binary.BigEndian
	}
	switch t.Size {
	case 2:
		order.PutUint16(elem, Float16Bits(v))
	case 4:
		order.PutUint32(elem, math.Float32bits(float32(v)))
	default:
		order.PutUint64(elem, math.Float64bits(v))
	}
	return nil
}

// Float16Bits converts x to the bits of the nearest IEEE binary16 number
// (ties to even; NaN stays NaN, overflow becomes infinity): the inverse of
// Float16.
func Float16Bits(x float64) uint16 {
	sign := uint16(math.Float64bits(x)>>48) & 0x8000
	a := math.Abs(x)
	switch {
	case math.IsNaN(x):
		return sign | 0x7e00
	case a >= 65520: // halfway between the largest finite (65504) and 2^16
		return sign | 0x7c00
	case a < 0x1p-14: // subnormal: multiples of 2^-24
		return sign | uint16(math.RoundToEven(a*0x1p24))
	}
	frac, exp := math.Frexp(a) // a = frac·2^exp, frac in [0.5, 1)
	m := math.RoundToEven((2*frac - 1) * 1024)
	e := exp - 1 + 15
	if m == 1024 {
		m, e = 0, e+1
	}
	if e >= 31 {
		return sign | 0x7c00
	}
	return sign | uint16(e)<<10 | uint16(m)
}
