package h5core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

func init() { registerFilter(FilterSZIP, "szip", decodeSZIP, nil) }

// Bits of the SZIP option mask (the filter's first client data value, with
// szlib's values). Decoding depends on these two only: libhdf5 also sets
// ALLOW_K13 (1), RAW (128) and EC (4) or LSB (8), which libaec ignores.
const (
	szipMSB = 16 // samples are stored most significant byte first
	szipNN  = 32 // nearest-neighbour preprocessing: samples coded as differences
)

const (
	szipMaxBlock    = 64      // most pixels per block libaec decodes
	szipMaxScanline = 1 << 30 // most pixels per scanline accepted here
	szipMaxSE       = 90      // largest second-extension code: pairs summing to at most 12
	szipROS         = 5       // zero-block count that means "to the end of the segment"
	szipSegment     = 64      // blocks per segment, for the ROS code
)

// errSZIPTruncated reports a stream that ends before the chunk is complete.
var errSZIPTruncated = errors.New("truncated")

// decodeSZIP undoes the SZIP filter (id 4) as libhdf5 writes it through
// libaec's szlib compatibility layer: a 4-byte little-endian decoded size,
// then a CCSDS 121.0-B adaptive entropy coded stream without header.
//
// The client data are libhdf5's: the option mask, pixels per block (the
// block size J), bits per pixel and pixels per scanline. A scanline is one
// reference sample interval of ceil(scanline/J) blocks; its last block is
// padded when J does not divide the scanline, and the padding is dropped
// here. Pixels of 32 and 64 bits are coded as 8-bit samples, byte plane
// after byte plane; others as unsigned samples of the given width stored in
// 1, 2 or 4 bytes, least significant byte first unless the MSB option is
// set. With the NN option the first sample of each scanline is a reference
// and the others are mapped prediction errors.
//
// Each block starts with an option ID: a split-sample code (fundamental
// sequences plus k low bits per sample), uncompressed samples, a second
// extension code (pairs of small samples) or a run of zero blocks.
func decodeSZIP(cd []uint32, in, out []byte) ([]byte, error) {
	if len(cd) != 4 {
		return nil, fmt.Errorf("szip needs 4 parameters, found %d", len(cd))
	}
	options, ppb, bpp, pps := cd[0], cd[1], cd[2], cd[3]
	if ppb < 2 || ppb > szipMaxBlock || ppb%2 != 0 {
		return nil, fmt.Errorf("szip block of %d pixels (an even number from 2 to %d)", ppb, szipMaxBlock)
	}
	if pps == 0 || pps > szipMaxScanline {
		return nil, fmt.Errorf("szip scanline of %d pixels (1 to %d)", pps, szipMaxScanline)
	}
	d := szipDecoder{
		block: int(ppb),
		pps:   int(pps),
		rsi:   int((pps + ppb - 1) / ppb),
		nn:    options&szipNN != 0,
	}
	d.out.msb = options&szipMSB != 0
	switch {
	case bpp == 32 || bpp == 64:
		d.bps, d.out.size, d.out.word = 8, 1, int(bpp/8)
	case bpp >= 1 && bpp <= 8:
		d.bps, d.out.size = int(bpp), 1
	case bpp > 8 && bpp <= 16:
		d.bps, d.out.size = int(bpp), 2
	case bpp > 16 && bpp < 32:
		d.bps, d.out.size = int(bpp), 4
	default:
		return nil, fmt.Errorf("szip pixels of %d bits (1 to 32, or 64)", bpp)
	}
	switch {
	case d.bps <= 8:
		d.idLen = 3
	case d.bps <= 16:
		d.idLen = 4
	default:
		d.idLen = 5
	}
	d.xmax = uint32(1<<d.bps - 1)

	if len(in) < 4 {
		return nil, fmt.Errorf("szip chunk of %d bytes, shorter than its 4-byte size", len(in))
	}
	dst, err := sized(out, int(binary.LittleEndian.Uint32(in)))
	if err != nil {
		return nil, err
	}
	pixel := d.out.size
	if d.out.word > 0 {
		pixel = d.out.word
	}
	if len(dst)%pixel != 0 {
		return nil, fmt.Errorf("szip decoded size %d is not a whole number of %d-byte pixels", len(dst), pixel)
	}
	d.r.b = in[4:]
	d.out.dst = dst
	if err := d.run(len(dst) / d.out.size); err != nil {
		return nil, fmt.Errorf("szip stream: %w", err)
	}
	return dst, nil
}

// szipDecoder holds the state of one SZIP stream.
type szipDecoder struct {
	r     szipBits
	out   szipOut
	bps   int    // bits per coded sample
	idLen int    // bits of a block's option ID
	xmax  uint32 // largest sample value
	block int    // samples per block
	pps   int    // samples per scanline, without padding
	rsi   int    // blocks per scanline (reference sample interval)
	nn    bool   // samples are mapped prediction errors

	raw [szipMaxBlock]uint32 // the coded values of the current block
	val [szipMaxBlock]uint32 // its samples after postprocessing
}

// run decodes total samples, scanline after scanline.
func (d *szipDecoder) run(total int) error {
	for done := 0; done < total; {
		var last uint32 // the previous sample, for NN postprocessing
		for b := 0; b < d.rsi && done < total; {
			ref := d.nn && b == 0
			n, err := d.decodeBlock(b, ref)
			if err == errSZIPTruncated {
				return fmt.Errorf("truncated at sample %d of %d", done, total)
			}
			if err != nil {
				return fmt.Errorf("block %d of the scanline at sample %d: %w", b, done, err)
			}
			for i := 0; i < n && done < total; i++ {
				if i == 1 {
					d.raw[0] = 0 // the blocks after the first of a zero run
				}
				real := min(d.block, d.pps-b*d.block, total-done)
				v := d.raw[:real]
				if d.nn {
					start := 0
					if ref && i == 0 {
						last = v[0]
						d.val[0] = last
						start = 1
					}
					last = d.unmap(d.val[start:real], v[start:], last)
					v = d.val[:real]
				}
				d.out.put(v)
				done += real
				b++
			}
		}
	}
	return nil
}

// decodeBlock reads the coded data set of block b of a scanline into
// d.raw; ref says whether it begins with a reference sample. It returns how
// many blocks the code stands for: more than one for a run of zero blocks
// (all samples zero but the reference).
func (d *szipDecoder) decodeBlock(b int, ref bool) (int, error) {
	r := &d.r
	raw := d.raw[:d.block]
	first := 0
	if ref {
		first = 1
	}
	n := 1
	switch id := r.bits(d.idLen); {
	case id == 0: // low entropy: zero blocks or second extension
		se := r.bits(1)
		if ref {
			raw[0] = r.bits(d.bps)
		}
		if se == 1 {
			if err := d.secondExtension(raw, first); err != nil {
				return 0, err
			}
			break
		}
		n = int(min(r.fs(), 1<<20)) + 1
		switch {
		case n == szipROS:
			n = min(d.rsi-b, szipSegment-b%szipSegment)
		case n > szipROS:
			n--
		}
		if n > d.rsi-b && r.n >= 0 {
			return 0, fmt.Errorf("run of %d zero blocks passes the end of the scanline", n)
		}
		clear(raw[first:])
	case id == 1<<d.idLen-1: // uncompressed
		for i := range raw {
			if r.n < d.bps {
				r.refill()
			}
			raw[i] = r.take(d.bps)
		}
	default: // split samples: fundamental sequences, then k low bits each
		k := int(id - 1)
		if ref {
			raw[0] = r.bits(d.bps)
		}
		for i := first; i < len(raw); i++ {
			v, ok := r.fsLoaded()
			if !ok {
				v = r.fsLong()
			}
			raw[i] = v << k
		}
		if k > 0 {
			for i := first; i < len(raw); i++ {
				if r.n < k {
					r.refill()
				}
				raw[i] += r.take(k)
			}
		}
	}
	if r.n < 0 {
		return 0, errSZIPTruncated
	}
	return n, nil
}

// szipSETable maps a second-extension code to the pair sum β and the code
// of the pair (0, β): β(β+1)/2.
var szipSETable = func() (t [szipMaxSE + 1][2]uint8) {
	m := 0
	for beta := 0; m <= szipMaxSE; beta++ {
		for j := 0; j <= beta && m <= szipMaxSE; j++ {
			t[m] = [2]uint8{uint8(beta), uint8(m - j)}
			m++
		}
	}
	return t
}()

// secondExtension decodes a block of second-extension codes into raw from
// sample first on: each code m stands for a pair (β-d, d) of samples with
// m = β(β+1)/2 + d. With a reference sample, the first code gives only the
// second sample of the pair the reference begins.
func (d *szipDecoder) secondExtension(raw []uint32, first int) error {
	for i := first; i < len(raw); {
		m := d.r.fs()
		if m > szipMaxSE {
			return fmt.Errorf("second-extension code %d (at most %d)", m, szipMaxSE)
		}
		e := szipSETable[m]
		d1 := m - uint32(e[1])
		if i%2 == 0 {
			raw[i] = uint32(e[0]) - d1
			i++
		}
		raw[i] = d1
		i++
	}
	return nil
}

// unmap undoes NN preprocessing: each mapped prediction error of raw gives
// a sample of dst from the previous sample last, which it returns updated.
// An error δ within reach of the nearer bound of [0, xmax] is a signed
// difference (even δ: +δ/2, odd δ: -(δ+1)/2); a larger one is the distance
// from that bound.
func (d *szipDecoder) unmap(dst, raw []uint32, last uint32) uint32 {
	xmax, top := d.xmax, uint(d.bps-1)&31
	dst = dst[:len(raw)]
	for i, e := range raw {
		bound := -(last >> top & 1) & xmax // 0 or xmax, whichever last is nearer
		near := last + (e>>1 ^ -(e & 1))
		far := bound ^ e
		if e>>1+e&1 > bound^last {
			near = far
		}
		last = near
		dst[i] = last
	}
	return last
}

// szipOut writes decoded samples to the chunk.
type szipOut struct {
	dst   []byte
	size  int  // bytes per sample: 1, 2 or 4
	msb   bool // most significant byte first
	word  int  // 4 or 8 for byte planes of 32- and 64-bit pixels, else 0
	pos   int  // the next byte to write
	plane int  // with byte planes: the plane being written
}

// put writes the next samples.
func (o *szipOut) put(v []uint32) {
	switch {
	case o.word > 0:
		for _, x := range v {
			o.dst[o.pos] = byte(x)
			o.pos += o.word
			if o.pos >= len(o.dst) {
				o.plane++
				o.pos = o.plane
			}
		}
		return
	case o.size == 1:
		p := o.dst[o.pos : o.pos+len(v)]
		for i, x := range v {
			p[i] = byte(x)
		}
	case o.size == 2 && o.msb:
		p := o.dst[o.pos : o.pos+2*len(v)]
		for i, x := range v {
			binary.BigEndian.PutUint16(p[2*i:], uint16(x))
		}
	case o.size == 2:
		p := o.dst[o.pos : o.pos+2*len(v)]
		for i, x := range v {
			binary.LittleEndian.PutUint16(p[2*i:], uint16(x))
		}
	case o.msb:
		p := o.dst[o.pos : o.pos+4*len(v)]
		for i, x := range v {
			binary.BigEndian.PutUint32(p[4*i:], x)
		}
	default:
		p := o.dst[o.pos : o.pos+4*len(v)]
		for i, x := range v {
			binary.LittleEndian.PutUint32(p[4*i:], x)
		}
	}
	o.pos += o.size * len(v)
}

// szipBits reads an SZIP stream most significant bit first. Reading past
// the end gives zero bits and makes n negative, for the caller to check.
type szipBits struct {
	b   []byte
	pos int    // the next byte of b to load
	acc uint64 // the next bits of the stream, left aligned
	n   int    // how many bits of acc are loaded (the bits below are zero or the stream's next)
}

// refill loads at least 56 bits into acc, or what is left of the stream.
func (r *szipBits) refill() {
	if r.n < 0 {
		return
	}
	if r.pos+8 <= len(r.b) {
		r.acc |= binary.BigEndian.Uint64(r.b[r.pos:]) >> r.n
		k := (63 - r.n) >> 3
		r.pos += k
		r.n += k << 3
		return
	}
	for r.n <= 56 && r.pos < len(r.b) {
		r.acc |= uint64(r.b[r.pos]) << (56 - r.n)
		r.pos++
		r.n += 8
	}
}

// bits returns the next k bits (1 <= k <= 32).
func (r *szipBits) bits(k int) uint32 {
	if r.n < k {
		r.refill()
	}
	return r.take(k)
}

// take returns the next k bits (1 <= k <= 32) when they are loaded; the
// hot loops call refill themselves, so that take is inlined.
func (r *szipBits) take(k int) uint32 {
	v := uint32(r.acc >> (uint(64-k) & 63))
	r.acc <<= uint(k) & 63
	r.n -= k
	return v
}

// fs reads a fundamental sequence: the number of 0 bits before a 1 bit.
func (r *szipBits) fs() uint32 {
	if v, ok := r.fsLoaded(); ok {
		return v
	}
	return r.fsLong()
}

// fsLoaded reads a fundamental sequence if it ends within the loaded bits.
func (r *szipBits) fsLoaded() (uint32, bool) {
	z := bits.LeadingZeros64(r.acc)
	if z >= r.n {
		return 0, false
	}
	r.acc <<= uint(z+1) & 63 // z < r.n < 64
	r.n -= z + 1
	return uint32(z), true
}

// fsLong reads a fundamental sequence that goes past the loaded bits.
func (r *szipBits) fsLong() uint32 {
	var fs uint32
	for r.n >= 0 {
		fs += uint32(r.n)
		r.acc = 0
		r.n = 0
		if r.refill(); r.n == 0 {
			r.n = -1
			return 0
		}
		if z := bits.LeadingZeros64(r.acc); z < r.n {
			r.acc <<= z + 1
			r.n -= z + 1
			return fs + uint32(z)
		}
	}
	return 0
}
