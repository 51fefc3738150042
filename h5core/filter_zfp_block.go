package h5core

import "math"

// zfpDecoder decodes the blocks of one zfp stream.
type zfpDecoder struct {
	p    *zfpParams
	r    *zfpBits
	out  []byte
	vals [zfpMaxBlock]uint64 // the block's values, as bits of the field's type
	u    [zfpMaxBlock]uint64 // coefficients as decoded, negabinary
	i32  [zfpMaxBlock]int32
	i64  [zfpMaxBlock]int64
}

// How a float block's integers become values.
const (
	zfpZero = iota // all zero
	zfpCast        // block-floating-point: integers times 2^(emax-intprec+2)
	zfpRaw         // reversible mode's bit patterns (sign-magnitude)
)

// block decodes the next block into d.vals.
func (d *zfpDecoder) block() {
	p := d.p
	n := 1 << (2 * p.dims)
	switch p.typ {
	case zfpInt32:
		ib := d.i32[:n]
		zfpIntegers(d, ib, 32, 5)
		for i, v := range ib {
			d.vals[i] = uint64(uint32(v))
		}
	case zfpInt64:
		ib := d.i64[:n]
		zfpIntegers(d, ib, 64, 6)
		for i, v := range ib {
			d.vals[i] = uint64(v)
		}
	case zfpFloat32:
		ib := d.i32[:n]
		kind, emax := zfpFloats(d, ib, 32, zfpFloatEBits, 5)
		s := float32(math.Ldexp(1, emax-30))
		for i, v := range ib {
			switch kind {
			case zfpZero:
				d.vals[i] = 0
			case zfpCast:
				d.vals[i] = uint64(math.Float32bits(s * float32(v)))
			default:
				if v < 0 {
					v ^= math.MaxInt32
				}
				d.vals[i] = uint64(uint32(v))
			}
		}
	default:
		ib := d.i64[:n]
		kind, emax := zfpFloats(d, ib, 64, zfpDblEBits, 6)
		s := math.Ldexp(1, emax-62)
		for i, v := range ib {
			switch kind {
			case zfpZero:
				d.vals[i] = 0
			case zfpCast:
				d.vals[i] = math.Float64bits(s * float64(v))
			default:
				if v < 0 {
					v ^= math.MaxInt64
				}
				d.vals[i] = uint64(v)
			}
		}
	}
}

// zfpIntegers decodes a block of an integer field: the integers are coded
// directly, by the lossy or the reversible integer codec.
func zfpIntegers[T int32 | int64](d *zfpDecoder, ib []T, intprec, pbits uint) {
	if d.p.reversible() {
		zfpRevIntBlock(d, ib, intprec, pbits, d.p.minbits, d.p.maxbits)
	} else {
		zfpIntBlock(d, ib, intprec, d.p.minbits, d.p.maxbits, d.p.maxprec)
	}
}

// zfpFloats decodes a block of a float field into integers ib and says how
// they become values. A first bit 0 says the block is all zero (then at
// least minbits bits are used). Lossy: the largest exponent (ebits,
// biased) and the integer block follow, coded to at most as many bit
// planes as the exponent and minexp allow. Reversible (zfp 1.0, codec 5): a
// second bit 0 announces the exponent and a reversible integer block of the
// block-floating-point values, a 1 a reversible block of the values' bit
// patterns (counted by the encoder as one bit of header, not two).
func zfpFloats[T int32 | int64](d *zfpDecoder, ib []T, intprec, ebits, pbits uint) (kind, emax int) {
	p := d.p
	ebias := 1<<(ebits-1) - 1
	bits := 1
	if d.r.bit() == 0 {
		if p.minbits > bits {
			d.r.skip(p.minbits - bits)
		}
		return zfpZero, 0
	}
	if !p.reversible() {
		bits += int(ebits)
		emax = int(d.r.read(ebits)) - ebias
		maxprec := uint(max(0, emax-p.minexp+2*p.dims+2))
		zfpIntBlock(d, ib, intprec, p.minbits-bits, p.maxbits-bits, min(p.maxprec, maxprec))
		return zfpCast, emax
	}
	if d.r.bit() == 1 {
		zfpRevIntBlock(d, ib, intprec, pbits, p.minbits-bits, p.maxbits-bits)
		return zfpRaw, 0
	}
	bits += 1 + int(ebits)
	emax = int(d.r.read(ebits)) - ebias
	zfpRevIntBlock(d, ib, intprec, pbits, p.minbits-bits, p.maxbits-bits)
	return zfpCast, emax
}

// zfpIntBlock decodes a lossy integer block: its coefficients' bit planes
// (within maxbits bits and maxprec planes), at least minbits bits used,
// then reordered and inverse-transformed.
func zfpIntBlock[T int32 | int64](d *zfpDecoder, ib []T, intprec uint, minbits, maxbits int, maxprec uint) {
	u := d.u[:len(ib)]
	bits := d.r.decodeInts(u, uint(max(0, maxbits)), maxprec, intprec)
	if bits < minbits {
		d.r.skip(minbits - bits)
	}
	zfpInvOrder(ib, u, intprec, d.p.dims)
	zfpInvXform(ib, d.p.dims, zfpInvLift[T])
}

// zfpRevIntBlock decodes a reversible integer block: the number of bit
// planes (pbits bits, minus one), the planes, then the reordering and the
// reversible inverse transform.
func zfpRevIntBlock[T int32 | int64](d *zfpDecoder, ib []T, intprec, pbits uint, minbits, maxbits int) {
	u := d.u[:len(ib)]
	bits := int(pbits)
	prec := uint(d.r.read(pbits)) + 1
	bits += d.r.decodeInts(u, uint(max(0, maxbits-bits)), prec, intprec)
	if bits < minbits {
		d.r.skip(minbits - bits)
	}
	zfpInvOrder(ib, u, intprec, d.p.dims)
	zfpInvXform(ib, d.p.dims, zfpRevInvLift[T])
}

// decodeInts decodes len(data) unsigned coefficients of intprec bits one
// bit plane at a time from the top, at most maxprec planes and maxbits
// bits: each plane starts with the bits of the coefficients already known
// to be significant, then group tests (a 1 says another coefficient turns
// significant, found by a unary run of 0s). It returns the bits read.
func (r *zfpBits) decodeInts(data []uint64, maxbits, maxprec, intprec uint) int {
	clear(data)
	size := uint(len(data))
	kmin := uint(0)
	if intprec > maxprec {
		kmin = intprec - maxprec
	}
	bits := maxbits
	n := uint(0)
	for k := intprec; bits > 0 && k > kmin && !r.short; {
		k--
		m := min(n, bits)
		bits -= m
		x := r.read(m)
		for n < size && bits > 0 {
			bits--
			if r.bit() == 0 {
				break
			}
			for n < size-1 && bits > 0 {
				bits--
				if r.bit() != 0 {
					break
				}
				n++
			}
			x += 1 << n
			n++
		}
		for i := 0; x != 0; i, x = i+1, x>>1 {
			data[i] += (x & 1) << k
		}
	}
	return int(maxbits - bits)
}

// zfpInvOrder puts the coefficients back from zfp's order (by sequency)
// and from negabinary into two's complement.
func zfpInvOrder[T int32 | int64](ib []T, u []uint64, intprec uint, dims int) {
	perm := zfpPerm[dims-1]
	for i, v := range u {
		if intprec == 32 {
			ib[perm[i]] = T(int32(uint32(v) ^ 0xaaaaaaaa - 0xaaaaaaaa))
		} else {
			ib[perm[i]] = T(int64(v ^ 0xaaaaaaaaaaaaaaaa - 0xaaaaaaaaaaaaaaaa))
		}
	}
}

// zfpPerm is zfp's order of a block's coefficients, for 1, 2 and 3
// dimensions: by the sum of their indexes, then of their squares.
var zfpPerm = [3][]uint8{
	{0, 1, 2, 3},
	{0, 1, 4, 5, 2, 8, 6, 9, 3, 12, 10, 7, 13, 11, 14, 15},
	{0, 1, 4, 16, 20, 17, 5, 2, 8, 32, 21, 6, 18, 24, 9, 33, 36, 3, 12, 48, 22, 25, 37, 40, 34, 10,
		7, 19, 28, 13, 49, 52, 41, 38, 26, 23, 29, 53, 11, 35, 44, 14, 50, 56, 42, 27, 39, 45, 30, 54,
		57, 60, 51, 15, 43, 46, 58, 61, 55, 31, 62, 59, 47, 63},
}

// zfpInvXform applies lift along each axis of the block, z first, then y,
// then x (the inverse of the encoder's x, y, z).
func zfpInvXform[T int32 | int64](p []T, dims int, lift func(p []T, at, stride int)) {
	if dims == 3 {
		for i := 0; i < 16; i++ {
			lift(p, i, 16)
		}
	}
	if dims >= 2 {
		for z := 0; z < 1<<(2*(dims-2)); z++ {
			for x := 0; x < 4; x++ {
				lift(p, 16*z+x, 4)
			}
		}
	}
	for i := 0; i < len(p); i += 4 {
		lift(p, i, 1)
	}
}

// zfpInvLift is the inverse of zfp's decorrelating (non-orthogonal) lifting
// transform of the 4 values at p[at], p[at+s], p[at+2s], p[at+3s].
func zfpInvLift[T int32 | int64](p []T, at, s int) {
	x, y, z, w := p[at], p[at+s], p[at+2*s], p[at+3*s]
	y += w >> 1
	w -= y >> 1
	y += w
	w <<= 1
	w -= y
	z += x
	x <<= 1
	x -= z
	y += z
	z <<= 1
	z -= y
	w += x
	x <<= 1
	x -= w
	p[at], p[at+s], p[at+2*s], p[at+3*s] = x, y, z, w
}

// zfpRevInvLift is the inverse of zfp's reversible transform (a Lorenzo
// predictor of order 4), wrapping on overflow as the encoder did.
func zfpRevInvLift[T int32 | int64](p []T, at, s int) {
	x, y, z, w := p[at], p[at+s], p[at+2*s], p[at+3*s]
	w += z
	z += y
	w += z
	y += x
	z += y
	w += z
	p[at], p[at+s], p[at+2*s], p[at+3*s] = x, y, z, w
}
