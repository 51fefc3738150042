package h5core

import (
	"encoding/binary"
	"fmt"
)

// FilterZFP is the registered id of the zfp filter (LLNL's H5Z-ZFP plugin).
const FilterZFP = 32013

func init() { registerFilter(FilterZFP, "zfp", decodeZFP, nil) }

// zfp's limits and header layout (zfp 0.5.5 to 1.0, codec version 5).
const (
	zfpCodec      = 5     // the stream format this decoder reads
	zfpMinExp     = -1074 // smallest exponent; below it: reversible mode
	zfpMaxBits    = 16658 // most bits in one block
	zfpMaxPrec    = 64    // most bit planes
	zfpMetaBits   = 52    // field type and dimensions in the header
	zfpShortBits  = 12    // a common mode in short form,
	zfpShortMax   = 4094  // whose largest value; 4095 announces the long form
	zfpLongBits   = 64    // the long form: every parameter
	zfpBlockEdge  = 4     // a block is 4^d values
	zfpMaxDims    = 4
	zfpMaxBlock   = 256 // values in a 4-D block
	zfpFloatEBits = 8   // exponent bits of float32 blocks,
	zfpDblEBits   = 11  // and of float64 blocks
)

// zfpType is zfp's scalar type: 1 int32, 2 int64, 3 float32, 4 float64.
type zfpType uint8

const (
	zfpInt32 zfpType = 1 + iota
	zfpInt64
	zfpFloat32
	zfpFloat64
)

// size is the type's size in bytes.
func (t zfpType) size() int {
	if t == zfpInt32 || t == zfpFloat32 {
		return 4
	}
	return 8
}

// zfpParams is what H5Z-ZFP's client data say about every chunk: the
// field's type and sizes (nx varies fastest) and the coding parameters.
type zfpParams struct {
	typ              zfpType
	dims             int
	n                [zfpMaxDims]uint64 // nx, ny, nz, nw (1 beyond dims)
	minbits, maxbits int
	maxprec          uint
	minexp           int
}

// reversible reports whether the stream is zfp's lossless mode.
func (p *zfpParams) reversible() bool { return p.minexp < zfpMinExp }

// parseZFPParams reads H5Z-ZFP's client data: cd[0] holds the filter's,
// zfp's and the codec's versions; the values after it are a zfp bit stream
// (32-bit values, little-endian) with zfp's full header: the magic "zfp"
// and codec version (32 bits), the field's type and dimensions (52 bits)
// and the mode (12 bits, or 64 when not one of the four common modes).
func parseZFPParams(cd []uint32) (*zfpParams, error) {
	if len(cd) < 4 {
		return nil, fmt.Errorf("zfp client data %v too short for a zfp header", cd)
	}
	b := make([]byte, 4*(len(cd)-1))
	for i, v := range cd[1:] {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	r := &zfpBits{b: b}
	if r.read(24) != 'z'|'f'<<8|'p'<<16 {
		return nil, fmt.Errorf("zfp client data %v hold no zfp header", cd)
	}
	if codec := r.read(8); codec != zfpCodec {
		return nil, &unsupportedError{fmt.Sprintf("zfp codec version %d not supported (only %d)", codec, zfpCodec)}
	}
	meta := r.read(zfpMetaBits)
	p := &zfpParams{typ: zfpType(meta&3 + 1), dims: int(meta>>2&3) + 1, n: [zfpMaxDims]uint64{1, 1, 1, 1}}
	meta >>= 4
	w := 48 / p.dims // bits of each size (less one), nx lowest
	for i := range p.dims {
		p.n[i] = meta>>(w*i)&(1<<w-1) + 1
	}
	mode := r.read(zfpShortBits)
	if mode > zfpShortMax {
		mode += r.read(zfpLongBits-zfpShortBits) << zfpShortBits
	}
	if r.short {
		return nil, fmt.Errorf("zfp client data %v: header truncated", cd)
	}
	p.setMode(mode)
	if p.minbits > p.maxbits {
		return nil, fmt.Errorf("zfp mode %#x: at least %d bits per block exceeds the most, %d", mode, p.minbits, p.maxbits)
	}
	return p, nil
}

// setMode sets the coding parameters from zfp's mode word: short forms
// 0-2047 fixed rate (bits per block - 1), 2048-2175 fixed precision
// (bit planes - 1), 2176 reversible, above it fixed accuracy (the smallest
// exponent kept); the long form packs minbits-1, maxbits-1 (15 bits each),
// maxprec-1 (7 bits) and minexp+16495 (15 bits) above 12 set bits.
func (p *zfpParams) setMode(mode uint64) {
	p.minbits, p.maxbits, p.maxprec, p.minexp = 1, zfpMaxBits, zfpMaxPrec, zfpMinExp
	switch {
	case mode < 2048:
		p.minbits = int(mode) + 1
		p.maxbits = p.minbits
	case mode < 2048+128:
		p.maxprec = uint(mode) + 1 - 2048
	case mode == 2048+128:
		p.minexp = zfpMinExp - 1
	case mode <= zfpShortMax:
		p.minexp = int(mode) + zfpMinExp - (2048 + 128 + 1)
	default:
		mode >>= 12
		p.minbits = int(mode&0x7fff) + 1
		mode >>= 15
		p.maxbits = int(mode&0x7fff) + 1
		mode >>= 15
		p.maxprec = uint(mode&0x7f) + 1
		mode >>= 7
		p.minexp = int(mode&0x7fff) - 16495
	}
}

// decodeZFP undoes the zfp filter: the chunk is one zfp stream, without
// header, of the field the client data describe, in blocks of 4^d values
// (partial at the high edges), each coded independently (filter_zfp_block.go).
func decodeZFP(cd []uint32, in, out []byte) ([]byte, error) {
	p, err := parseZFPParams(cd)
	if err != nil {
		return nil, err
	}
	count := uint64(1)
	limit := uint64(cap(out) / p.typ.size())
	for _, n := range p.n {
		if n > limit || count*n > limit {
			return nil, fmt.Errorf("zfp field of %v values exceeds the chunk's %d bytes", p.n[:p.dims], cap(out))
		}
		count *= n
	}
	out = out[:count*uint64(p.typ.size())]
	r := &zfpBits{b: in}
	d := zfpDecoder{p: p, r: r, out: out}
	nx, ny, nz, nw := p.n[0], p.n[1], p.n[2], p.n[3]
	for w := uint64(0); w < nw; w += zfpBlockEdge {
		for z := uint64(0); z < nz; z += zfpBlockEdge {
			for y := uint64(0); y < ny; y += zfpBlockEdge {
				for x := uint64(0); x < nx; x += zfpBlockEdge {
					d.block()
					if r.short {
						return nil, fmt.Errorf("zfp stream of %d bytes ends inside block (%d,%d,%d,%d)", len(in), x, y, z, w)
					}
					d.scatter(x, y, z, w)
				}
			}
		}
	}
	return out, nil
}

// scatter stores the decoded block whose first value is at (x, y, z, w),
// leaving out the values beyond the field's edges.
func (d *zfpDecoder) scatter(x, y, z, w uint64) {
	nx, ny, nz, nw := d.p.n[0], d.p.n[1], d.p.n[2], d.p.n[3]
	es := uint64(d.p.typ.size())
	for l := uint64(0); l < zfpBlockEdge && w+l < nw; l++ {
		for k := uint64(0); k < zfpBlockEdge && z+k < nz; k++ {
			for j := uint64(0); j < zfpBlockEdge && y+j < ny; j++ {
				for i := uint64(0); i < zfpBlockEdge && x+i < nx; i++ {
					v := d.vals[i+4*j+16*k+64*l]
					at := ((((w+l)*nz+z+k)*ny+y+j)*nx + x + i) * es
					if es == 4 {
						binary.LittleEndian.PutUint32(d.out[at:], uint32(v))
					} else {
						binary.LittleEndian.PutUint64(d.out[at:], v)
					}
				}
			}
		}
	}
}

// zfpBits reads a zfp bit stream: bit i is bit i%8 of byte i/8 (zfp's
// words, 8-bit as H5Z-ZFP requires or 64-bit little-endian, are read from
// their least significant bit up). Reading past
// the end yields zeros and sets short.
type zfpBits struct {
	b     []byte
	pos   uint64 // in bits
	short bool
}

// read returns the next n (at most 64) bits, the first in the lowest bit.
func (r *zfpBits) read(n uint) uint64 {
	if n == 0 {
		return 0
	}
	if r.pos+uint64(n) > uint64(len(r.b))*8 {
		r.short = true
		r.pos += uint64(n)
		return 0
	}
	var v uint64
	for got := uint(0); got < n; {
		byteAt, shift := r.pos/8, uint(r.pos%8)
		take := min(8-shift, n-got)
		v |= uint64(r.b[byteAt]>>shift&(1<<take-1)) << got
		got += take
		r.pos += uint64(take)
	}
	return v
}

// bit returns the next bit.
func (r *zfpBits) bit() uint64 {
	if r.pos >= uint64(len(r.b))*8 {
		r.short = true
		r.pos++
		return 0
	}
	v := uint64(r.b[r.pos/8] >> (r.pos % 8) & 1)
	r.pos++
	return v
}

// skip passes over n bits.
func (r *zfpBits) skip(n int) {
	r.pos += uint64(n)
	if r.pos > uint64(len(r.b))*8 {
		r.short = true
	}
}
