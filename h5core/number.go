package h5core

import (
	"encoding/binary"
	"math"
	"math/big"
	"slices"
)

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
