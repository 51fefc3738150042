package table

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/h5fs/h5fs/h5core"
)

// Decoding of single stored elements (file byte order) of atomic types.

// leBytes returns b in little-endian order (a copy when swapped).
func leBytes(t *h5core.Datatype, b []byte) []byte {
	if t.ByteOrder != h5core.BigEndian || len(b) < 2 {
		return b
	}
	out := make([]byte, len(b))
	for i := range b {
		out[i] = b[len(b)-1-i]
	}
	return out
}

// rawUint returns the bits of a fixed-point element (up to 8 bytes) as an
// unsigned value, honouring bit offset and precision.
func rawUint(t *h5core.Datatype, b []byte) uint64 {
	le := leBytes(t, b[:t.Size])
	var u uint64
	for i := min(len(le), 8) - 1; i >= 0; i-- {
		u = u<<8 | uint64(le[i])
	}
	prec := t.Precision
	if prec <= 0 || prec > 64 {
		prec = min(8*t.Size, 64)
	}
	u >>= uint(t.BitOffset)
	if prec < 64 {
		u &= 1<<uint(prec) - 1
	}
	return u
}

// decodeInt returns a fixed-point element as int64 (sign-extended when
// signed; unsigned values above 2^63 wrap).
func decodeInt(t *h5core.Datatype, b []byte) int64 {
	u := rawUint(t, b)
	prec := t.Precision
	if prec <= 0 || prec > 64 {
		prec = min(8*t.Size, 64)
	}
	if t.Signed && prec < 64 {
		shift := uint(64 - prec)
		return int64(u<<shift) >> shift
	}
	return int64(u)
}

// isIEEE reports whether a float type is IEEE binary16/32/64.
func isIEEE(t *h5core.Datatype) bool {
	if t.Class != h5core.ClassFloat || t.ByteOrder == h5core.VAXOrder || t.BitOffset != 0 || t.Precision != 8*t.Size {
		return false
	}
	f := t.Float
	switch t.Size {
	case 2:
		return f.ExpSize == 5 && f.MantSize == 10 && f.SignPos == 15
	case 4:
		return f.ExpSize == 8 && f.MantSize == 23 && f.SignPos == 31
	case 8:
		return f.ExpSize == 11 && f.MantSize == 52 && f.SignPos == 63
	}
	return false
}

// decodeFloat returns an IEEE float element as float64.
func decodeFloat(t *h5core.Datatype, b []byte) float64 {
	le := leBytes(t, b[:t.Size])
	switch t.Size {
	case 2:
		return h5core.Float16(binary.LittleEndian.Uint16(le))
	case 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(le)))
	default:
		return math.Float64frombits(binary.LittleEndian.Uint64(le))
	}
}

// stripString removes a fixed-length string's storage padding: the text
// ends at the first NUL for NULLTERM, trailing NULs go for NULLPAD and
// trailing spaces for SPACEPAD.
func stripString(pad h5core.StrPad, b []byte) []byte {
	switch pad {
	case h5core.NullTerm:
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return b[:i]
		}
	case h5core.NullPad:
		return bytes.TrimRight(b, "\x00")
	case h5core.SpacePad:
		return bytes.TrimRight(b, " ")
	}
	return b
}

// needsSwap reports whether packing t to little-endian changes its bytes.
func needsSwap(t *h5core.Datatype) bool {
	switch t.Class {
	case h5core.ClassFixedPoint, h5core.ClassFloat, h5core.ClassTime, h5core.ClassBitfield:
		return t.Size > 1 && t.ByteOrder != h5core.LittleEndian
	case h5core.ClassEnum, h5core.ClassArray, h5core.ClassComplex:
		return needsSwap(t.Base)
	case h5core.ClassCompound:
		for _, f := range t.Fields {
			if needsSwap(f.Type) {
				return true
			}
		}
	}
	return false
}

// swapInPlace byte-swaps every size-byte item of b.
func swapInPlace(b []byte, size int) {
	switch size {
	case 2:
		for i := 0; i+2 <= len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], binary.BigEndian.Uint32(b[i:]))
		}
	case 8:
		for i := 0; i+8 <= len(b); i += 8 {
			binary.LittleEndian.PutUint64(b[i:], binary.BigEndian.Uint64(b[i:]))
		}
	default:
		for i := 0; i+size <= len(b); i += size {
			for j, k := i, i+size-1; j < k; j, k = j+1, k-1 {
				b[j], b[k] = b[k], b[j]
			}
		}
	}
}

// appendPackedLE appends one stored element of t as packed little-endian
// bytes, as the raw views show it: numbers little-endian, compound fields
// in declaration order without padding, arrays element by element,
// strings, opaque data and references as stored.
func appendPackedLE(dst []byte, t *h5core.Datatype, e []byte) []byte {
	switch t.Class {
	case h5core.ClassFixedPoint, h5core.ClassFloat, h5core.ClassTime, h5core.ClassBitfield:
		if t.ByteOrder == h5core.BigEndian {
			for i := t.Size - 1; i >= 0; i-- {
				dst = append(dst, e[i])
			}
			return dst
		}
	case h5core.ClassEnum:
		return appendPackedLE(dst, t.Base, e)
	case h5core.ClassArray, h5core.ClassComplex:
		for off := 0; off+t.Base.Size <= t.Size; off += t.Base.Size {
			dst = appendPackedLE(dst, t.Base, e[off:])
		}
		return dst
	case h5core.ClassCompound:
		for _, f := range t.Fields {
			dst = appendPackedLE(dst, f.Type, e[f.Offset:])
		}
		return dst
	}
	return append(dst, e[:t.Size]...)
}
