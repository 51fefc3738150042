package h5core

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// szipBitWriter writes bits most significant first.
type szipBitWriter struct {
	b   []byte
	acc uint64
	n   uint
}

func (w *szipBitWriter) put(v uint64, k uint) {
	for k > 0 {
		c := min(k, 8)
		w.acc = w.acc<<c | v>>(k-c)&(1<<c-1)
		w.n += c
		k -= c
		if w.n >= 8 {
			w.n -= 8
			w.b = append(w.b, byte(w.acc>>w.n))
		}
	}
}

// fs writes the fundamental sequence of m: m zeros, then a one.
func (w *szipBitWriter) fs(m uint64) {
	for ; m > 32; m -= 32 {
		w.put(0, 32)
	}
	w.put(1, uint(m)+1)
}

func (w *szipBitWriter) bytes() []byte {
	if w.n > 0 {
		w.put(0, 8-w.n)
	}
	return w.b
}

// szipParams are the filter's client data: option mask, pixels per block,
// bits per pixel, pixels per scanline.
type szipParams struct{ options, ppb, bpp, pps uint32 }

func (p szipParams) filter() Filter {
	return Filter{ID: FilterSZIP, ClientData: []uint32{p.options, p.ppb, p.bpp, p.pps}}
}

// szipSamples splits data into coded samples the way libaec's szlib layer
// does: byte planes for 32- and 64-bit pixels, else whole samples.
func szipSamples(p szipParams, data []byte) (s []uint32, bps uint) {
	msb := p.options&szipMSB != 0
	switch {
	case p.bpp == 32 || p.bpp == 64:
		w := int(p.bpp / 8)
		n := len(data) / w
		s = make([]uint32, len(data))
		for i := 0; i < n; i++ {
			for j := 0; j < w; j++ {
				s[j*n+i] = uint32(data[i*w+j])
			}
		}
		return s, 8
	case p.bpp <= 8:
		for _, b := range data {
			s = append(s, uint32(b))
		}
	case p.bpp <= 16:
		for i := 0; i+2 <= len(data); i += 2 {
			if msb {
				s = append(s, uint32(binary.BigEndian.Uint16(data[i:])))
			} else {
				s = append(s, uint32(binary.LittleEndian.Uint16(data[i:])))
			}
		}
	default:
		for i := 0; i+4 <= len(data); i += 4 {
			if msb {
				s = append(s, binary.BigEndian.Uint32(data[i:]))
			} else {
				s = append(s, binary.LittleEndian.Uint32(data[i:]))
			}
		}
	}
	return s, uint(p.bpp)
}

// szipMapError is the NN preprocessor: the prediction error of x after
// prev, mapped to a non-negative integer.
func szipMapError(x, prev, xmax uint32) uint32 {
	theta := min(prev, xmax-prev)
	if x >= prev {
		if d := x - prev; d <= theta {
			return 2 * d
		} else {
			return theta + d
		}
	}
	if d := prev - x; d <= theta {
		return 2*d - 1
	} else {
		return theta + d
	}
}

// The coding options of a block, as the test encoder's pick function sees
// them: cost[szipOptSplit+k] is split-sample coding with k low bits.
const (
	szipOptZero = iota // a run of zero blocks, counted
	szipOptROS         // a run of zero blocks to the end of the segment or scanline
	szipOptSE
	szipOptUncompressed
	szipOptSplit
)

// szipEncode is a test encoder writing the chunk the SZIP filter stores for
// data: the decoded size, then the coded stream. pick chooses each block's
// option from their costs in bits (-1: not possible); nil picks the
// cheapest. Scanlines are padded as libaec's szlib layer pads them.
func szipEncode(p szipParams, data []byte, pick func(cost []int) int) []byte {
	samples, bps := szipSamples(p, data)
	nn := p.options&szipNN != 0
	xmax := uint32(1<<bps - 1)
	idLen := uint(3)
	if bps > 16 {
		idLen = 5
	} else if bps > 8 {
		idLen = 4
	}
	J, pps := int(p.ppb), int(p.pps)
	rsi := (pps + J - 1) / J
	if pick == nil {
		pick = func(cost []int) int {
			best := szipOptUncompressed
			for i, c := range cost {
				if c >= 0 && c < cost[best] {
					best = i
				}
			}
			return best
		}
	}
	var w szipBitWriter
	line := make([]uint32, rsi*J)
	cost := make([]int, szipOptSplit+int(1<<idLen-2))
	for off := 0; off < len(samples); off += pps {
		n := copy(line, samples[off:min(off+pps, len(samples))])
		pad := uint32(0)
		if nn {
			pad = line[n-1]
		}
		for i := n; i < len(line); i++ {
			line[i] = pad
		}
		coded := slices.Clone(line)
		if nn {
			for i := len(line) - 1; i > 0; i-- {
				coded[i] = szipMapError(line[i], line[i-1], xmax)
			}
		}
		for b := 0; b < rsi; {
			ref := nn && b == 0
			first := 0
			if ref {
				first = 1
			}
			blk := coded[b*J : (b+1)*J]
			base := int(idLen)
			if ref {
				base += int(bps)
			}
			// zero blocks: a run to the end of the segment at most
			run := 0
			for b+run < rsi && (run == 0 || (b+run)%szipSegment != 0) {
				z := true
				for i, v := range coded[(b+run)*J : (b+run+1)*J] {
					if v != 0 && (i >= first || run > 0) {
						z = false
					}
				}
				if !z {
					break
				}
				run++
			}
			cost[szipOptZero], cost[szipOptROS] = -1, -1
			if run > 0 {
				cost[szipOptZero] = base + 1 + run + 1
				if b+run == rsi || (b+run)%szipSegment == 0 {
					cost[szipOptROS] = base + 1 + szipROS
				}
			}
			// second extension
			cost[szipOptSE] = base + 1
			var se []uint64
			for i := first; i < J; {
				d0, d1 := uint32(0), blk[i]
				if i%2 == 0 {
					d0, d1 = blk[i], blk[i+1]
				}
				i += 2 - i%2
				beta := uint64(d0) + uint64(d1)
				if beta > 12 {
					cost[szipOptSE] = -1
					break
				}
				m := beta*(beta+1)/2 + uint64(d1)
				se = append(se, m)
				cost[szipOptSE] += int(m) + 1
			}
			cost[szipOptUncompressed] = int(idLen) + J*int(bps)
			for k := 0; szipOptSplit+k < len(cost); k++ {
				c := base + k*(J-first)
				for _, v := range blk[first:] {
					c += int(v>>k) + 1
					if v>>k > 1<<8 { // keep streams short
						c = -1
						break
					}
				}
				cost[szipOptSplit+k] = c
			}
			opt := pick(cost)
			putRef := func() {
				if ref {
					w.put(uint64(blk[0]), bps)
				}
			}
			switch {
			case opt == szipOptZero || opt == szipOptROS:
				w.put(0, idLen+1)
				putRef()
				switch {
				case opt == szipOptROS:
					w.fs(szipROS - 1)
				case run < szipROS:
					w.fs(uint64(run - 1))
				default:
					w.fs(uint64(run))
				}
				b += run
				continue
			case opt == szipOptSE:
				w.put(1, idLen+1)
				putRef()
				for _, m := range se {
					w.fs(m)
				}
			case opt == szipOptUncompressed:
				w.put(1<<idLen-1, idLen)
				for _, v := range blk {
					w.put(uint64(v), bps)
				}
			default:
				k := uint(opt - szipOptSplit)
				w.put(uint64(k+1), idLen)
				putRef()
				for _, v := range blk[first:] {
					w.fs(uint64(v >> k))
				}
				for _, v := range blk[first:] {
					w.put(uint64(v), k)
				}
			}
			b++
		}
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(data)))
	return append(out, w.bytes()...)
}

// szipRandomPick picks any possible option no longer than the uncompressed
// block (libaec's decoder expects no longer ones).
func szipRandomPick(r *rand.Rand) func([]int) int {
	return func(cost []int) int {
		for {
			if i := r.Intn(len(cost)); cost[i] >= 0 && cost[i] <= cost[szipOptUncompressed] {
				return i
			}
		}
	}
}

// szipTestData makes n pixels of size bytes holding values of at most bits
// bits, of the given kind.
func szipTestData(r *rand.Rand, kind string, n, size int, bits uint32, msb bool) []byte {
	out := make([]byte, n*size)
	limit := uint64(1)<<bits - 1
	v := uint64(r.Int63()) & limit
	for i := 0; i < n; i++ {
		switch kind {
		case "random":
			v = uint64(r.Int63()) ^ uint64(r.Int63())<<40
		case "walk": // small steps, clamped to the range
			v += uint64(r.Intn(7)) - 3
			if v > limit {
				v = uint64(r.Intn(2)) * limit
			}
		case "runs": // long constant and zero stretches, some spikes
			switch {
			case i%500 < 200:
				v = 0
			case i%500 < 400:
			case i%37 == 0:
				v = uint64(r.Int63())
			}
		case "low": // mostly 0 and 1
			v = uint64(r.Intn(10) / 8)
		}
		v &= limit
		for j := 0; j < size; j++ {
			sh := 8 * j
			if msb {
				sh = 8 * (size - 1 - j)
			}
			out[i*size+j] = byte(v >> sh)
		}
	}
	return out
}

// TestSZIPRoundTrip decodes streams of the test encoder for every sample
// width, block size and scanline shape, with blocks coded by the cheapest
// option and by random ones (each option with and without a reference
// sample, zero runs with and without the ROS code).
func TestSZIPRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, bpp := range []uint32{1, 4, 8, 12, 16, 20, 24, 31, 32, 64} {
		size := int(max(1, (bpp+7)/8))
		switch {
		case bpp == 64:
			size = 8
		case bpp > 16:
			size = 4
		}
		for _, ppb := range []uint32{2, 8, 10, 16, 32, 64} {
			// scanlines shorter than a block, of whole blocks, padded, and
			// of 128 blocks (libhdf5's longest); chunks of a partial block,
			// of partial scanlines
			shapes := [][2]int{{1, 7}, {int(ppb), 1000}, {5*int(ppb) + 3, 2501}, {128 * int(ppb), 9000}}
			for _, shape := range shapes {
				for _, options := range []uint32{szipNN, 4 | 8, szipNN | szipMSB, 4 | szipMSB} {
					pps, n := uint32(shape[0]), shape[1]
					kind := []string{"random", "walk", "runs", "low"}[r.Intn(4)]
					valueBits := bpp
					if bpp == 64 {
						valueBits = 63
					}
					data := szipTestData(r, kind, n, size, valueBits, options&szipMSB != 0)
					p := szipParams{options, ppb, bpp, pps}
					for _, pick := range []func([]int) int{nil, szipRandomPick(r)} {
						chunk := szipEncode(p, data, pick)
						got, err := decodeChunk([]Filter{p.filter()}, 0, chunk, len(data))
						if err != nil {
							t.Fatalf("%+v %s n=%d: %v", p, kind, n, err)
						}
						if !bytes.Equal(got, data) {
							t.Fatalf("%+v %s n=%d: wrong bytes", p, kind, n)
						}
					}
				}
			}
		}
	}
}

// szipStream builds a chunk from a size and hand-written bits.
func szipStream(size uint32, write func(w *szipBitWriter)) []byte {
	var w szipBitWriter
	write(&w)
	return append(binary.LittleEndian.AppendUint32(nil, size), w.bytes()...)
}

func TestSZIPErrors(t *testing.T) {
	ec8 := szipParams{4 | 8, 8, 8, 16} // two blocks of 8-bit samples a scanline
	valid := szipEncode(ec8, []byte("0123456789abcdef"), nil)
	for _, tc := range []struct {
		name  string
		cd    []uint32
		in    []byte
		size  int
		error string
	}{
		{"parameters", []uint32{4, 8, 8}, valid, 16, "szip needs 4 parameters, found 3"},
		{"odd block", []uint32{4, 7, 8, 16}, valid, 16, "szip block of 7 pixels"},
		{"no block", []uint32{4, 0, 8, 16}, valid, 16, "szip block of 0 pixels"},
		{"big block", []uint32{4, 66, 8, 16}, valid, 16, "szip block of 66 pixels"},
		{"no scanline", []uint32{4, 8, 8, 0}, valid, 16, "szip scanline of 0 pixels"},
		{"huge scanline", []uint32{4, 8, 8, 1 << 31}, valid, 16, "szip scanline of 2147483648 pixels"},
		{"no bits", []uint32{4, 8, 0, 16}, valid, 16, "szip pixels of 0 bits"},
		{"40 bits", []uint32{4, 8, 40, 16}, valid, 16, "szip pixels of 40 bits"},
		{"no size", ec8.filter().ClientData, valid[:3], 16, "szip chunk of 3 bytes, shorter than its 4-byte size"},
		{"size too large", ec8.filter().ClientData, valid, 15, "decodes to 16 bytes, more than the 15 expected"},
		{"odd size", []uint32{4, 8, 16, 16}, szipStream(15, func(*szipBitWriter) {}), 15,
			"szip decoded size 15 is not a whole number of 2-byte pixels"},
		{"odd size, planes", []uint32{4, 8, 64, 16}, szipStream(12, func(*szipBitWriter) {}), 12,
			"not a whole number of 8-byte pixels"},
		{"empty stream", ec8.filter().ClientData, valid[:4], 16, "szip stream: truncated at sample 0 of 16"},
		{"cut stream", ec8.filter().ClientData, valid[:5], 16, "szip stream: truncated at sample 0 of 16"},
		{"cut uncompressed", ec8.filter().ClientData, szipStream(16, func(w *szipBitWriter) {
			w.put(7, 3)
			w.put(0, 8*7)
		}), 16, "truncated at sample 0 of 16"},
		{"cut split", ec8.filter().ClientData, szipStream(16, func(w *szipBitWriter) {
			w.put(3, 3) // k = 2
			for range 8 {
				w.fs(0)
			}
		}), 16, "truncated at sample 0 of 16"},
		{"zero run too long", ec8.filter().ClientData, szipStream(16, func(w *szipBitWriter) {
			w.put(0, 4)
			w.fs(2) // three blocks, in a scanline of two
		}), 16, "szip stream: block 0 of the scanline at sample 0: run of 3 zero blocks passes the end of the scanline"},
		{"zero run after a block", ec8.filter().ClientData, szipStream(16, func(w *szipBitWriter) {
			w.put(0, 4)
			w.fs(0)
			w.put(0, 4)
			w.fs(1)
		}), 16, "block 1 of the scanline at sample 8: run of 2 zero blocks"},
		{"second extension code", ec8.filter().ClientData, szipStream(16, func(w *szipBitWriter) {
			w.put(1, 4)
			w.fs(91)
		}), 16, "second-extension code 91 (at most 90)"},
		{"endless sequence", ec8.filter().ClientData, szipStream(16, func(w *szipBitWriter) {
			w.put(1, 3) // k = 0
			w.put(0, 64)
		}), 16, "truncated at sample 0 of 16"},
	} {
		got, err := decodeSZIP(tc.cd, tc.in, make([]byte, 0, tc.size))
		if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v (%d bytes), want %q", tc.name, err, len(got), tc.error)
		}
	}
}

// TestSZIPCodes decodes hand-written streams, one per coding option,
// against values worked out from CCSDS 121.0-B.
func TestSZIPCodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     szipParams
		write func(w *szipBitWriter)
		want  []byte
	}{
		{"split k=1", szipParams{4, 2, 8, 2}, func(w *szipBitWriter) {
			w.put(2, 3) // ID k+1
			w.fs(2)     // 5>>1
			w.fs(0)     // 1>>1
			w.put(1, 1) // 5&1
			w.put(1, 1) // 1&1
		}, []byte{5, 1}},
		{"uncompressed 12-bit, MSB", szipParams{4 | szipMSB, 2, 12, 2}, func(w *szipBitWriter) {
			w.put(15, 4)
			w.put(0xabc, 12)
			w.put(0x123, 12)
		}, []byte{0x0a, 0xbc, 0x01, 0x23}},
		{"second extension", szipParams{4, 4, 8, 4}, func(w *szipBitWriter) {
			w.put(1, 4) // ID 000, second extension
			w.fs(4)     // β=2, d1=1: (1, 1)
			w.fs(3)     // β=2, d1=0: (2, 0)
		}, []byte{1, 1, 2, 0}},
		{"second extension after a reference", szipParams{szipNN, 4, 8, 4}, func(w *szipBitWriter) {
			w.put(1, 4)
			w.put(100, 8) // reference
			w.fs(2)       // β=1, d1=1: mapped error 1 is -1
			w.fs(5)       // β=2, d1=2: (0, 2): +0, +1
		}, []byte{100, 99, 99, 100}},
		{"zero runs", szipParams{4, 2, 8, 20}, func(w *szipBitWriter) {
			w.put(0, 4)
			w.fs(5) // 5 blocks (counts from 5 on are one less)
			w.put(7, 3)
			w.put(7, 8)
			w.put(8, 8)
			w.put(0, 4)
			w.fs(4) // ROS: the 4 blocks left in the scanline
		}, append(append(make([]byte, 10), 7, 8), make([]byte, 8)...)},
		{"zero run with ROS at the segment end", szipParams{szipNN, 2, 8, 2 * 70}, func(w *szipBitWriter) {
			w.put(0, 4)
			w.put(9, 8) // reference
			w.fs(4)     // ROS: to the end of the 64-block segment
			w.put(0, 4)
			w.fs(4) // ROS: the 6 blocks left in the scanline
		}, bytes.Repeat([]byte{9}, 140)},
		{"NN at the bounds", szipParams{szipNN, 4, 4, 4}, func(w *szipBitWriter) {
			w.put(7, 3) // uncompressed: reference 14, then mapped errors
			w.put(14, 4)
			w.put(3, 4)  // θ=1 from 14: 3 > 2θ, so 15-3 = 12
			w.put(10, 4) // θ=3 from 12: 10 > 6, so 15-10 = 5
			w.put(6, 4)  // θ=5 from 5: +3 = 8
		}, []byte{14, 12, 5, 8}},
	} {
		in := szipStream(uint32(len(tc.want)), tc.write)
		got, err := decodeChunk([]Filter{tc.p.filter()}, 0, in, len(tc.want))
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// BenchmarkDecodeSZIP decodes a chunk of 1e6 float64 (NN, 32 pixels per
// block, byte planes) and one of 1e6 int16 (NN, 16 pixels per block).
func BenchmarkDecodeSZIP(b *testing.B) {
	const n = 1_000_000
	r := rand.New(rand.NewSource(7))
	f64 := make([]byte, 8*n)
	i16 := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		v := math.Sin(float64(i)/1000)*100 + r.NormFloat64()*0.01
		binary.LittleEndian.PutUint64(f64[8*i:], math.Float64bits(v))
		binary.LittleEndian.PutUint16(i16[2*i:], uint16(int16(v*100)))
	}
	for _, bc := range []struct {
		name string
		p    szipParams
		raw  []byte
	}{
		{"f64", szipParams{szipNN | 4 | 1 | 128, 32, 64, 4096}, f64},
		{"i16", szipParams{szipNN | 8 | 1 | 128, 16, 16, 2048}, i16},
	} {
		b.Run(bc.name, func(b *testing.B) {
			chunk := szipEncode(bc.p, bc.raw, nil)
			p := []Filter{bc.p.filter()}
			got, err := decodeChunk(p, 0, chunk, len(bc.raw))
			if err != nil || !bytes.Equal(got, bc.raw) {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(bc.raw))/float64(len(chunk)), "ratio")
			b.SetBytes(int64(len(bc.raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeChunk(p, 0, chunk, len(bc.raw)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
