package h5core

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

func init() { registerFilter(FilterScaleOffset, "scaleoffset", decodeScaleOffset, encodeScaleOffset) }

// Client data layout of the scale-offset filter (H5Zscaleoffset.c).
const (
	soScaleType   = 0 // 0: float D-scale, 1: float E-scale, 2: integer
	soScaleFactor = 1 // decimal digits (D-scale) or minimum bits (integer)
	soNelmts      = 2 // elements in the chunk
	soClass       = 3 // 0: integer, 1: floating point
	soSize        = 4 // element size in bytes; 5 is the sign, which decoding needs not
	soOrder       = 6 // 0: little-endian, 1: big-endian
	soFillAvail   = 7 // 1 when a fill value is defined
	soFillValue   = 8 // the fill value, in native order, from here on
	soNParms      = 20

	soHeaderSize = 21 // minbits (4), minval size (1), minval (16)
)

// decodeScaleOffset undoes the scale-offset filter (id 6). The chunk starts
// with a 21-byte header: the bits per packed value (minbits, 4 bytes LE),
// the width of the offset (1 byte) and the offset (minval, LE). Then come
// the values minus minval, minbits each, most significant bit first. With
// a fill value defined, the all-ones value stands for the fill value.
// Floating-point values are stored as round(x·10^D − min·10^D).
func decodeScaleOffset(cd []uint32, in, out []byte) ([]byte, error) {
	if len(cd) != soNParms {
		return nil, fmt.Errorf("%d scale-offset parameters, expected %d", len(cd), soNParms)
	}
	size := int(cd[soSize])
	class := cd[soClass]
	bigEndian := cd[soOrder] == 1
	if cd[soOrder] > 1 {
		return nil, fmt.Errorf("invalid scale-offset byte order %d", cd[soOrder])
	}
	factor := int32(cd[soScaleFactor])
	switch {
	case class == 0:
		if size != 1 && size != 2 && size != 4 && size != 8 {
			return nil, fmt.Errorf("scale-offset integer size %d not supported", size)
		}
		if cd[soScaleType] != 2 {
			return nil, fmt.Errorf("invalid scale-offset scale type %d for integers", cd[soScaleType])
		}
		if factor > int32(size*8) {
			return nil, fmt.Errorf("scale-offset minimum bits %d exceed the %d-byte type", factor, size)
		}
		if factor == int32(size*8) { // the writer left the data alone
			return in, nil
		}
	case class == 1:
		if size != 4 && size != 8 {
			return nil, fmt.Errorf("scale-offset float size %d not supported", size)
		}
		switch cd[soScaleType] {
		case 0:
		case 1:
			return nil, &unsupportedError{"scale-offset E-scaling not supported"}
		default:
			return nil, fmt.Errorf("invalid scale-offset scale type %d for floats", cd[soScaleType])
		}
	default:
		return nil, fmt.Errorf("invalid scale-offset datatype class %d", class)
	}
	n := uint64(cd[soNelmts])
	if n*uint64(size) > uint64(cap(out)) {
		return nil, fmt.Errorf("%d elements of %d bytes are more than the %d bytes expected", n, size, cap(out))
	}
	out = out[:int(n)*size]
	if len(in) < soHeaderSize {
		return nil, fmt.Errorf("scale-offset header truncated (%d bytes)", len(in))
	}
	minbits := uint(binary.LittleEndian.Uint32(in))
	if minbits > uint(size*8) {
		return nil, fmt.Errorf("scale-offset minimum bits %d exceed the %d-byte type", minbits, size)
	}
	var minval uint64
	for i := min(int(in[4]), 8) - 1; i >= 0; i-- {
		minval = minval<<8 | uint64(in[5+i])
	}
	payload := in[soHeaderSize:]
	if minbits == uint(size*8) { // stored as they were, in the writer's (little-endian) order
		if len(payload) < len(out) {
			return nil, fmt.Errorf("scale-offset data truncated: %d bytes, need %d", len(payload), len(out))
		}
		copy(out, payload)
		if bigEndian {
			packItems(out, out, packSwap, size)
		}
		return out, nil
	}
	if need := (n*uint64(minbits) + 7) / 8; uint64(len(payload)) < need {
		return nil, fmt.Errorf("scale-offset data truncated: %d bytes, need %d", len(payload), need)
	}
	fillAvail := cd[soFillAvail] == 1
	var fill uint64
	for i := size - 1; i >= 0; i-- { // the fill value, little-endian across cd[8:]
		fill = fill<<8 | uint64(cd[soFillValue+i/4]>>(8*(i%4))&0xff)
	}
	r := msbBitReader{b: payload}
	allOnes := uint64(1)<<minbits - 1
	if class == 0 {
		for i := 0; i < int(n); i++ {
			v, _ := r.bits64(minbits)
			if fillAvail && v == allOnes {
				v = fill
			} else {
				v += minval
			}
			putUint(out[i*size:], v, size, bigEndian)
		}
		return out, nil
	}
	if size == 4 {
		lo := math.Float32frombits(uint32(minval))
		scale := float32(math.Pow(10, float64(factor)))
		for i := 0; i < int(n); i++ {
			v, _ := r.bits(minbits)
			bits := uint64(math.Float32bits(float32(int32(v))/scale + lo))
			if fillAvail && v == allOnes {
				bits = fill
			}
			putUint(out[i*4:], bits, 4, bigEndian)
		}
		return out, nil
	}
	lo := math.Float64frombits(minval)
	scale := math.Pow(10, float64(factor))
	for i := 0; i < int(n); i++ {
		v, _ := r.bits64(minbits)
		bits := math.Float64bits(float64(int64(v))/scale + lo)
		if fillAvail && v == allOnes {
			bits = fill
		}
		putUint(out[i*8:], bits, 8, bigEndian)
	}
	return out, nil
}

// encodeScaleOffset applies the scale-offset filter to integers, as
// H5Zscaleoffset.c does (see decodeScaleOffset for the chunk's layout):
// with cd[1] = 0 the bits per value are the fewest that hold the chunk's
// range (one more value is kept for the fill value when one is defined);
// a range too wide, or the minimum bits of the type, store the values as
// they are, little-endian. A positive cd[1] fixes the bits; a value that
// does not fit them is an error (libhdf5 would silently store a different
// value). Floating-point data is refused: the filter is lossy for it.
func encodeScaleOffset(cd []uint32, in []byte) ([]byte, error) {
	if len(cd) != soNParms {
		return nil, fmt.Errorf("%d scale-offset parameters, expected %d", len(cd), soNParms)
	}
	size, n := int(cd[soSize]), int(cd[soNelmts])
	switch {
	case cd[soClass] == 1:
		return nil, &unsupportedError{"cannot write scale-offset floating-point data (the filter is lossy)"}
	case cd[soClass] != 0 || cd[soScaleType] != 2:
		return nil, fmt.Errorf("invalid scale-offset class %d and scale type %d", cd[soClass], cd[soScaleType])
	case size != 1 && size != 2 && size != 4 && size != 8:
		return nil, fmt.Errorf("scale-offset integer size %d not supported", size)
	case cd[soOrder] > 1:
		return nil, fmt.Errorf("invalid scale-offset byte order %d", cd[soOrder])
	case n*size != len(in):
		return nil, fmt.Errorf("%d bytes for %d elements of %d bytes", len(in), n, size)
	}
	bits := uint(8 * size)
	signed := cd[soSize+1] != 0
	typ := &Datatype{Class: ClassFixedPoint, Size: size, Signed: signed, Precision: size * 8}
	if cd[soOrder] == 1 {
		typ.ByteOrder = BigEndian
	}
	fillAvail := cd[soFillAvail] == 1
	var fill int64
	for i := size - 1; i >= 0; i-- { // the fill value, little-endian across cd[8:]
		fill = fill<<8 | int64(cd[soFillValue+i/4]>>(8*(i%4))&0xff)
	}
	if signed {
		fill = signExtend(uint64(fill), int(bits))
	}
	// values as int64 (unsigned ones wrap above 2^63), compared in the type's signedness
	vals := make([]int64, n)
	less := func(a, b int64) bool { return a < b }
	if !signed {
		less = func(a, b int64) bool { return uint64(a) < uint64(b) }
	}
	var lo, hi int64
	seen := false
	for i := range vals {
		v := typ.Int64(in[i*size:])
		vals[i] = v
		if fillAvail && v == fill {
			continue
		}
		if !seen || less(v, lo) {
			lo = v
		}
		if !seen || less(hi, v) {
			hi = v
		}
		seen = true
	}
	mask := uint64(1)<<bits - 1
	if bits == 64 {
		mask = ^uint64(0)
	}
	span := uint64(hi-lo) & mask // hi-lo in the type's width
	minbits := uint(cd[soScaleFactor])
	switch {
	case minbits > bits:
		return nil, fmt.Errorf("scale-offset minimum bits %d exceed the %d-byte type", minbits, size)
	case minbits == 0 && span > mask-2: // as libhdf5: no room for the range and the fill
		minbits = bits
	case minbits == 0 && fillAvail:
		minbits = ceilLog2(span + 2)
	case minbits == 0:
		minbits = ceilLog2(span + 1)
	}
	out := binary.LittleEndian.AppendUint32(make([]byte, 0, soHeaderSize+(n*int(minbits)+7)/8), uint32(minbits))
	out = append(out, 8)
	out = binary.LittleEndian.AppendUint64(out, uint64(lo))
	out = append(out, make([]byte, soHeaderSize-len(out))...)
	if minbits == bits { // stored as they are, little-endian
		start := len(out)
		out = append(out, in...)
		if typ.ByteOrder == BigEndian {
			packItems(out[start:], out[start:], packSwap, size)
		}
		return out, nil
	}
	allOnes := uint64(1)<<minbits - 1
	w := msbBitWriter{b: out}
	for i, v := range vals {
		d := uint64(v-lo) & mask
		switch {
		case fillAvail && v == fill:
			d = allOnes
		case d > allOnes || fillAvail && d == allOnes:
			return nil, fmt.Errorf("element %d (%d) does not fit the scale-offset filter's %d bits", i, v, minbits)
		}
		w.put(d, minbits)
	}
	return w.flush(), nil
}

// ceilLog2 returns the bits needed for x distinct values: ⌈log₂ x⌉.
func ceilLog2(x uint64) uint {
	if x <= 1 {
		return 0
	}
	return uint(bits.Len64(x - 1))
}
