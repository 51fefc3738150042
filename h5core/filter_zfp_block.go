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
// Bits go straight into data, as zfp does for blocks of more than 64
// values (4-D), whose planes do not fit one word.
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
		for i := uint(0); i < m; i += 64 {
			for j, x := i, r.read(min(m-i, 64)); x != 0; j, x = j+1, x>>1 {
				data[j] += (x & 1) << k
			}
		}
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
			data[n] += 1 << k
			n++
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

// zfpPerm is zfp's order of a block's coefficients, for 1 to 4
// dimensions: by the sum of their indexes, then of their squares, ties in
// an order of zfp's own (the tables of zfp 1.0; the 4-D one is not the
// draft table of earlier zfp sources).
var zfpPerm = [zfpMaxDims][]uint8{
	{0, 1, 2, 3},
	{0, 1, 4, 5, 2, 8, 6, 9, 3, 12, 10, 7, 13, 11, 14, 15},
	{0, 1, 4, 16, 20, 17, 5, 2, 8, 32, 21, 6, 18, 24, 9, 33, 36, 3, 12, 48, 22, 25, 37, 40, 34, 10,
		7, 19, 28, 13, 49, 52, 41, 38, 26, 23, 29, 53, 11, 35, 44, 14, 50, 56, 42, 27, 39, 45, 30, 54,
		57, 60, 51, 15, 43, 46, 58, 61, 55, 31, 62, 59, 47, 63},
	{
		0, 1, 4, 16, 64, 5, 80, 17, 68, 65, 20, 2, 8, 32, 128, 84,
		81, 69, 21, 6, 18, 66, 24, 72, 9, 96, 33, 36, 129, 132, 144, 3,
		12, 48, 192, 85, 82, 70, 22, 73, 25, 88, 37, 100, 97, 148, 145, 133,
		10, 160, 34, 136, 130, 40, 7, 19, 67, 28, 76, 13, 112, 49, 52, 193,
		196, 208, 86, 89, 101, 149, 161, 137, 41, 134, 38, 164, 26, 152, 146, 104,
		98, 74, 83, 71, 23, 77, 29, 92, 53, 116, 113, 212, 209, 197, 11, 35,
		131, 44, 140, 14, 176, 50, 56, 194, 200, 224, 90, 165, 102, 153, 150, 105,
		168, 162, 138, 42, 87, 93, 117, 213, 27, 75, 99, 39, 135, 147, 108, 45,
		141, 156, 30, 78, 177, 180, 54, 114, 120, 57, 198, 210, 216, 201, 225, 228,
		15, 240, 51, 204, 195, 60, 169, 166, 154, 106, 91, 103, 151, 109, 157, 94,
		181, 118, 121, 214, 217, 229, 163, 139, 43, 142, 46, 172, 58, 184, 178, 232,
		226, 202, 241, 205, 61, 199, 55, 244, 31, 220, 211, 124, 115, 79, 170, 167,
		155, 107, 158, 110, 173, 122, 185, 182, 233, 230, 218, 95, 245, 119, 221, 215,
		125, 242, 206, 62, 203, 59, 248, 47, 236, 227, 188, 179, 143, 171, 174, 186,
		234, 246, 222, 126, 219, 123, 249, 111, 237, 231, 189, 183, 159, 252, 243, 207,
		63, 175, 250, 187, 238, 235, 190, 253, 247, 223, 127, 254, 251, 239, 191, 255,
	},
}

// zfpInvXform applies lift along each axis of the block, the last (w or
// z) first and x last (the inverse of the encoder's x, y, z, w).
func zfpInvXform[T int32 | int64](p []T, dims int, lift func(p []T, at, stride int)) {
	for axis := dims - 1; axis >= 0; axis-- {
		stride := 1 << (2 * axis)
		for i := range p {
			if i/stride%4 == 0 {
				lift(p, i, stride)
			}
		}
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
