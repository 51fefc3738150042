package h5core

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"io"
	"math/bits"
	"math/rand"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	kzlib "github.com/klauspost/compress/zlib"
)

// lsbWriter writes deflate's bits, least significant first.
type lsbWriter struct {
	b    []byte
	acc  uint64
	nacc uint
}

func (w *lsbWriter) put(v uint64, n uint) {
	w.acc |= v << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// code writes a Huffman codeword of n bits, most significant bit first.
func (w *lsbWriter) code(c uint64, n uint) { w.put(uint64(bits.Reverse16(uint16(c))>>(16-n)), n) }

func (w *lsbWriter) bytes() []byte {
	if w.nacc > 0 {
		w.put(0, 8-w.nacc)
	}
	return w.b
}

// fixedLit writes literal/length symbol s with the fixed code.
func (w *lsbWriter) fixedLit(s int) {
	switch {
	case s < 144:
		w.code(uint64(0x30+s), 8)
	case s < 256:
		w.code(uint64(0x190+s-144), 9)
	case s < 280:
		w.code(uint64(s-256), 7)
	default:
		w.code(uint64(0xc0+s-280), 8)
	}
}

// fixedLits writes n literals with the fixed code, i % period for the i-th.
func (w *lsbWriter) fixedLits(n, period int) {
	for i := range n {
		w.fixedLit(i % period)
	}
}

// fixedMatch writes a match with the fixed code: length symbol ls and its
// extra bits le (width lw), distance symbol ds and its extra bits de (dw).
func (w *lsbWriter) fixedMatch(ls int, le uint64, lw uint, ds int, de uint64, dw uint) {
	w.fixedLit(ls)
	w.put(le, lw)
	w.code(uint64(ds), 5)
	w.put(de, dw)
}

// zlibWrap frames a raw deflate stream as zlib with the Adler-32 of data.
func zlibWrap(raw, data []byte) []byte {
	out := append([]byte{0x78, 0x9c}, raw...)
	return binary.BigEndian.AppendUint32(out, adler32.Checksum(data))
}

// goInflate decodes a raw deflate stream with compress/flate, reading at
// most limit bytes; it returns the output, the bytes of in the stream
// used and whether the stream was complete.
func goInflate(in []byte, limit int) ([]byte, int, error) {
	r := bytes.NewReader(in)
	out, err := io.ReadAll(io.LimitReader(flate.NewReader(r), int64(limit)))
	return out, len(in) - r.Len(), err
}

// checkInflate decodes raw with inflate and compares with compress/flate:
// the same bytes, stream length and checksum, or both fail. It decodes
// with each fast loop, assembly (where it runs) and Go, which must also
// fail alike.
func checkInflate(t *testing.T, raw []byte) (int, error) {
	t.Helper()
	const limit = 1 << 22
	want, wantEnd, wantErr := goInflate(raw, limit)
	if wantErr == nil && len(want) == limit {
		return 0, nil // too long to compare
	}
	guard := 16
	buf := make([]byte, len(want)+1<<16+guard)
	size := len(want)
	if wantErr != nil {
		size += 1 << 16
	}
	var errs [2]error
	for i, goLoop := range []bool{false, true} {
		for i := range buf[size:] {
			buf[size+i] = 0xa5
		}
		f := &inflater{goLoop: goLoop}
		n, end, err := f.inflate(buf[:size], raw)
		for _, b := range buf[size:] {
			if b != 0xa5 {
				t.Fatalf("inflate (Go loop %v) wrote past the %d bytes of its output", goLoop, size)
			}
		}
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("inflate (Go loop %v): %v, compress/flate: %v", goLoop, err, wantErr)
		}
		errs[i] = err
		if err != nil {
			continue
		}
		if !bytes.Equal(buf[:n], want) || end != wantEnd {
			t.Fatalf("inflate (Go loop %v) gave %d bytes of a %d-byte stream, compress/flate %d of %d", goLoop, n, end, len(want), wantEnd)
		}
		if len(want) > 0 {
			if _, _, err := f.inflate(buf[:len(want)-1], raw); err == nil || !strings.Contains(err.Error(), "more than the expected") {
				t.Fatalf("inflate (Go loop %v) into one byte too few: %v", goLoop, err)
			}
		}
	}
	if errs[0] != nil {
		if errs[0].Error() != errs[1].Error() {
			t.Fatalf("the fast loops fail differently: %v; Go loop: %v", errs[0], errs[1])
		}
		return 0, errs[0]
	}
	z := zlibWrap(raw[:wantEnd], want)
	if n, err := inflateInto(buf[:len(want)], z); err != nil || n != len(want) {
		t.Fatalf("zlib stream: %d bytes, %v", n, err)
	}
	z[len(z)-1] ^= 1
	if _, err := inflateInto(buf[:len(want)], z); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("zlib stream with a bad checksum: %v", err)
	}
	return len(want), nil
}

// inflateSeeds are deflate streams of every block kind from compress/flate
// and klauspost/compress at several levels.
func inflateSeeds(t testing.TB) [][]byte {
	r := rand.New(rand.NewSource(3))
	rnd := make([]byte, 70000)
	r.Read(rnd)
	text := []byte(strings.Repeat("an HDF5 chunk of text, ", 300))
	floats := make([]byte, 8*5000)
	for i := range 5000 {
		binary.LittleEndian.PutUint64(floats[8*i:], uint64(i%97)*0x3ff0000000000000/97)
	}
	var seeds [][]byte
	for _, data := range [][]byte{nil, {7}, text, rnd[:300], rnd, shuffled(floats, 8), bytes.Repeat([]byte{0}, 100000)} {
		for _, level := range []int{0, 1, 4, 9, -2} {
			var b bytes.Buffer
			w, err := flate.NewWriter(&b, level)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(data)
			w.Close()
			seeds = append(seeds, b.Bytes())
		}
	}
	return seeds
}

func TestInflateMatchesCompressFlate(t *testing.T) {
	for _, raw := range inflateSeeds(t) {
		if _, err := checkInflate(t, raw); err != nil {
			t.Errorf("seed of %d bytes: %v", len(raw), err)
		}
		for _, cut := range []int{0, 1, len(raw) / 2, len(raw) - 1} { // truncated
			if cut < len(raw) {
				if _, err := checkInflate(t, raw[:cut]); err == nil {
					t.Errorf("stream of %d bytes cut to %d decodes", len(raw), cut)
				}
			}
		}
	}
}

// dynamicHeader writes a dynamic block header with the code length code
// lengths clens and the literal/length and distance code lengths lens
// (nlit of them, then the distance codes), runs of 11 or more zeros
// coded by symbol 18. syms, when not nil, are written instead of lens:
// code length symbols, with extra bits in s>>5.
func dynamicHeader(w *lsbWriter, final bool, nlit, ndist int, clens [19]uint8, lens []int, syms []int) {
	if syms == nil {
		for i := 0; i < len(lens); {
			run := 0
			for i+run < len(lens) && lens[i+run] == 0 && run < 138 {
				run++
			}
			if run >= 11 && clens[18] != 0 {
				syms = append(syms, 18|(run-11)<<5)
				i += run
				continue
			}
			syms = append(syms, lens[i])
			i++
		}
	}
	f := uint64(0)
	if final {
		f = 1
	}
	w.put(f|2<<1, 3)
	w.put(uint64(nlit-257), 5)
	w.put(uint64(ndist-1), 5)
	w.put(19-4, 4)
	for _, s := range precodeOrder {
		w.put(uint64(clens[s]), 3)
	}
	var code [19]uint64 // canonical codewords of clens
	next := uint64(0)
	for l := uint8(1); l <= 7; l++ {
		for s := range 19 {
			if clens[s] == l {
				code[s] = next
				next++
			}
		}
		next <<= 1
	}
	for _, s := range syms {
		w.code(code[s&31], uint(clens[s&31]))
		switch s & 31 {
		case 16:
			w.put(uint64(s>>5), 2)
		case 17:
			w.put(uint64(s>>5), 3)
		case 18:
			w.put(uint64(s>>5), 7)
		}
	}
}

// canonicalCodes returns the canonical Huffman codewords of the code
// lengths lens (RFC 1951 3.2.2), by symbol.
func canonicalCodes(lens []int) []uint64 {
	code, next := make([]uint64, len(lens)), uint64(0)
	for l := 1; l <= 15; l++ {
		for s, sl := range lens {
			if sl == l {
				code[s] = next
				next++
			}
		}
		next <<= 1
	}
	return code
}

// codeLens returns n code lengths, zero except those given by symbol.
func codeLens(n int, set map[int]int) []int {
	l := make([]int, n)
	for s, v := range set {
		l[s] = v
	}
	return l
}

func TestInflateBlocks(t *testing.T) {
	// every code length symbol 0-18 gets a 5-bit code length code: 19 of 32
	var clens5 [19]uint8
	for i := range clens5 {
		clens5[i] = 5
	}
	// a complete code length code: 3 bits for lengths 0-5 and symbols 16, 18
	var clens3 [19]uint8
	for _, s := range []int{0, 1, 2, 3, 4, 5, 16, 18} {
		clens3[s] = 3
	}
	var clens4 [19]uint8 // lengths 0-15 in 4 bits each: complete
	for i := range 16 {
		clens4[i] = 4
	}
	rep := func(sym, extra int) int { return sym | extra<<5 }
	cases := []struct {
		name  string
		build func(w *lsbWriter)
		want  string // error text; "" for success with the output of compress/flate
	}{
		{"empty fixed block", func(w *lsbWriter) { w.put(1|1<<1, 3); w.fixedLit(256) }, ""},
		{"empty stored blocks", func(w *lsbWriter) {
			w.put(0, 3)
			w.bytes()
			w.put(0xffff0000, 32)
			w.put(1, 3)
			w.bytes()
			w.put(0xffff0000, 32)
		}, ""},
		{"fixed literals and length 258 by symbol 285", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			w.fixedLit('a')
			w.fixedLit('b')
			w.fixedMatch(285, 0, 0, 1, 0, 0) // distance 2
			w.fixedLit(256)
		}, ""},
		{"length 258 by symbol 284 with extra 31", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			w.fixedLit('x')
			w.fixedMatch(284, 31, 5, 0, 0, 0)
			w.fixedLit(256)
		}, ""},
		{"maximum distance 32768", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			r := rand.New(rand.NewSource(5))
			for range 32768 {
				w.fixedLit(r.Intn(256))
			}
			w.fixedMatch(285, 0, 0, 29, 8191, 13)
			w.fixedMatch(270, 1, 2, 29, 8191, 13) // length 22, overlapping the last
			w.fixedLit(256)
		}, ""},
		{"short distances overlap", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			for i := range 7 {
				w.fixedLit('0' + i)
			}
			for d := range 7 { // distances 1-7 (symbols 0-3 and 4 with extra 0-1, 5 with 0-1)
				ds, de, dw := d, uint64(0), uint(0)
				if d >= 4 {
					ds, de, dw = 4+(d-4)/2, uint64((d-4)%2), 1
				}
				w.fixedMatch(264, 0, 0, ds, de, dw) // length 10
			}
			w.fixedLit(256)
		}, ""},
		{"distance too far back", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			w.fixedLit('a')
			w.fixedMatch(257, 0, 0, 1, 0, 0) // distance 2 after 1 byte
			w.fixedLit(256)
		}, "match distance 2 beyond the 1 bytes decoded"},
		{"distance too far back in the fast loop", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			w.fixedLits(600, 7)
			w.fixedMatch(257, 0, 0, 19, 100, 8) // distance 869 after 600 bytes
			w.fixedLits(100, 1)                 // input the fast loop needs past the match
			w.fixedLit(256)
		}, "match distance 869 beyond the 600 bytes decoded"},
		{"invalid codes in the fast loop", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			w.fixedLits(600, 7)
			w.fixedMatch(257, 0, 0, 31, 0, 0)
			w.fixedLits(100, 1)
		}, "invalid distance code"},
		{"blocks after an end of block in the fast loop", func(w *lsbWriter) {
			for b := range 3 {
				w.put(uint64(b/2)|1<<1, 3)
				w.fixedLits(600, 7+b)
				w.fixedMatch(260, 0, 0, 4, 1, 1) // length 6, distance 6
				w.fixedLit(256)
			}
		}, ""},
		{"distance at the start", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			w.fixedMatch(257, 0, 0, 0, 0, 0)
		}, "match distance 1 beyond the 0 bytes decoded"},
		{"fixed length symbol 286", func(w *lsbWriter) { w.put(1|1<<1, 3); w.fixedLit(286) }, "invalid literal/length code"},
		{"fixed distance symbol 30", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			w.fixedLit('a')
			w.fixedMatch(257, 0, 0, 30, 0, 0)
		}, "invalid distance code"},
		{"block type 3", func(w *lsbWriter) { w.put(1|3<<1, 3) }, "invalid deflate block type 3"},
		{"stored length not complemented", func(w *lsbWriter) {
			w.put(1, 3)
			w.bytes()
			w.put(5|0xfffb<<16, 32)
			w.put(0x0102030405, 40)
		}, "stored block length 5 does not match its complement"},
		{"stored block past the input", func(w *lsbWriter) {
			w.put(1, 3)
			w.bytes()
			w.put(50|0xffcd<<16, 32)
			w.put(0x0102030405, 40)
		}, "truncated"},
		{"too many literal/length codes", func(w *lsbWriter) { dynamicHeader(w, true, 287, 1, clens5, nil, []int{}) }, "287 literal/length"},
		{"too many distance codes", func(w *lsbWriter) { dynamicHeader(w, true, 257, 31, clens5, nil, []int{}) }, "31 distance codes"},
		{"over-subscribed code length code", func(w *lsbWriter) {
			c := clens5
			c[0], c[1] = 1, 1
			dynamicHeader(w, true, 257, 1, c, nil, []int{})
		}, "invalid code length code"},
		{"incomplete code length code", func(w *lsbWriter) { dynamicHeader(w, true, 257, 1, clens5, nil, []int{}) }, "invalid code length code"},
		{"repeat with no previous length", func(w *lsbWriter) {
			dynamicHeader(w, true, 257, 1, clens3, nil, []int{rep(16, 0)})
		}, "repeat with no previous length"},
		{"repeat past the last code", func(w *lsbWriter) {
			dynamicHeader(w, true, 257, 1, clens3, nil, []int{rep(18, 127), rep(18, 127)})
		}, "repeat past the last code"},
		{"over-subscribed literal/length code", func(w *lsbWriter) {
			dynamicHeader(w, true, 257, 1, clens3, codeLens(258, map[int]int{0: 1, 1: 1, 256: 1, 257: 1}), nil)
		}, "invalid literal/length code lengths"},
		{"incomplete literal/length code", func(w *lsbWriter) {
			dynamicHeader(w, true, 257, 1, clens3, codeLens(258, map[int]int{0: 1, 256: 2, 257: 1}), nil)
		}, "invalid literal/length code lengths"},
		{"over-subscribed distance code", func(w *lsbWriter) {
			dynamicHeader(w, true, 258, 3, clens3, codeLens(261, map[int]int{0: 1, 256: 2, 257: 2, 258: 1, 259: 1, 260: 1}), nil)
		}, "invalid distance code lengths"},
		{"one 1-bit distance code, as compress/flate accepts", func(w *lsbWriter) {
			dynamicHeader(w, true, 258, 1, clens3, codeLens(259, map[int]int{0: 1, 256: 2, 257: 2, 258: 1}), nil)
			w.code(0, 1) // literal 0
			w.code(3, 2) // length 3
			w.code(0, 1) // distance 1
			w.code(2, 2) // end of block
		}, ""},
		{"the missing codeword of a 1-bit distance code", func(w *lsbWriter) {
			dynamicHeader(w, true, 258, 1, clens3, codeLens(259, map[int]int{0: 1, 256: 2, 257: 2, 258: 1}), nil)
			w.code(0, 1)
			w.code(3, 2)
			w.code(1, 1) // no such distance codeword
		}, "invalid distance code"},
		{"dynamic block of codes up to 15 bits", func(w *lsbWriter) {
			// lengths 1, 2, ..., 14, 15, 15: literals 'a'+i, end of block the last
			set := map[int]int{256: 15, 'a' + 14: 15}
			for i := range 14 {
				set['a'+i] = i + 1
			}
			lens := codeLens(258, set)
			dynamicHeader(w, true, 257, 1, clens4, lens, nil)
			code := canonicalCodes(lens[:257])
			for _, s := range []int{'a', 'a' + 13, 'a' + 14, 'a' + 5} {
				w.code(code[s], uint(set[s]))
			}
			w.code(code[256], 15)
		}, ""},
		{"long codes and every match copy in the fast loop", func(w *lsbWriter) {
			// literals 'a'+i of 1 ... 13 bits, length 3 (symbol 257) of 14
			// bits, literal 'a'+13 and the end of block of 15: the last three
			// decode through subtables; distance codes 0-9 (distances 1 to
			// 32) of 1 ... 9 bits, the 9-bit ones through subtables.
			lit := map[int]int{257: 14, 'a' + 13: 15, 256: 15}
			for i := range 13 {
				lit['a'+i] = i + 1
			}
			lens := codeLens(258+10, lit)
			for d := range 10 {
				lens[258+d] = min(d+1, 9)
			}
			dynamicHeader(w, true, 258, 10, clens4, lens, nil)
			lc, dc := canonicalCodes(lens[:258]), canonicalCodes(lens[258:])
			r := rand.New(rand.NewSource(11))
			for n := 0; n < 20000; {
				if n < 40 || r.Intn(3) > 0 {
					s := 'a' + min(r.Intn(15), 13)
					w.code(lc[s], uint(lens[s]))
					n++
					continue
				}
				d := r.Intn(10) // distance base 1, 2, 3, 4, 5, 7, 9, 13, 17, 25
				w.code(lc[257], 14)
				w.code(dc[d], uint(lens[258+d]))
				if d >= 4 {
					eb := uint(d/2 - 1)
					w.put(uint64(r.Intn(1<<eb)), eb)
				}
				n += 3
			}
			w.code(lc[256], 15)
		}, ""},
		{"literal after the end of input", func(w *lsbWriter) {
			w.put(1|1<<1, 3)
			w.fixedLit('a')
		}, "truncated"},
	}
	for _, tc := range cases {
		var w lsbWriter
		tc.build(&w)
		raw := w.bytes()
		_, err := checkInflate(t, raw)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
		step := max(1, len(raw)/300)
		for cut := 0; cut < len(raw); cut += step { // a stream cut anywhere fails
			if _, _, err := new(inflater).inflate(make([]byte, 1<<16), raw[:cut]); err == nil {
				t.Errorf("%s: cut to %d of %d bytes: no error", tc.name, cut, len(raw))
			}
		}
	}
}

func TestInflateZlibFraming(t *testing.T) {
	data := []byte("zlib framing")
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write(data)
	w.Close()
	good := b.Bytes()
	withDict := bytes.Clone(good)
	withDict[1] = 0xa0 // FDICT
	withDict[1] += byte((31 - (0x7800|uint(withDict[1]))%31) % 31)
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"ok", good, ""},
		{"trailing bytes", append(bytes.Clone(good), 9, 9), ""},
		{"empty", nil, "truncated header"},
		{"not deflate", append([]byte{0x79, 0x9c - 29}, good[2:]...), "invalid header"},
		{"window too large", []byte{0x88, 0x1c}, "invalid header"},
		{"bad header check", []byte{0x78, 0x9d}, "invalid header"},
		{"preset dictionary", withDict, "preset dictionary"},
		{"checksum cut", good[:len(good)-2], "truncated checksum"},
		{"bad checksum", append(bytes.Clone(good[:len(good)-1]), good[len(good)-1]^0x10), "checksum"},
	} {
		out := make([]byte, len(data))
		n, err := inflateInto(out, tc.in)
		if tc.want == "" {
			if err != nil || !bytes.Equal(out[:n], data) {
				t.Errorf("%s: %v", tc.name, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
		if _, err := zlib.NewReader(bytes.NewReader(tc.in)); err == nil != (tc.want == "" || strings.Contains(tc.want, "checksum")) {
			t.Errorf("%s: compress/zlib disagrees on the header: %v", tc.name, err)
		}
	}
}

func TestAdler32(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	big := make([]byte, 3*adlerNMax+13)
	r.Read(big)
	ones := bytes.Repeat([]byte{0xff}, 4*adlerNMax+5)
	for _, p := range [][]byte{nil, {1}, big[:7], big[:8], big[:9], big[:31], big[:32], big[:33], big[:adlerNMax], big[:adlerNMax+8], big, ones} {
		if got, want := adler32Sum(p), adler32.Checksum(p); got != want {
			t.Errorf("%d bytes: adler32Sum %#x, hash/adler32 %#x", len(p), got, want)
		}
	}
	// adlerBlocks (AVX2 where it runs) against the Go words, on every
	// length it is given, random bytes and all ones (the largest sums)
	for n := 0; n <= adlerNMax; n += adlerBlock {
		for _, p := range [][]byte{big[13 : 13+n], ones[:n]} {
			s, w := adlerBlocks(p)
			if gs, gw := adlerBlocksGo(p); s != gs || w != gw {
				t.Fatalf("%d bytes: adlerBlocks %d, %d; adlerBlocksGo %d, %d", n, s, w, gs, gw)
			}
		}
	}
}

// FuzzInflate decodes arbitrary deflate streams with inflate and
// compress/flate: the same bytes and stream length, or both fail; never a
// panic nor a write past the output. Decoding into one byte less fails,
// and the zlib framing checks its checksum.
func FuzzInflate(f *testing.F) {
	for _, s := range inflateSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkInflate(t, raw)
		if len(raw) > 0 {
			adler32Sum(raw)
			if got, want := adler32Sum(raw), adler32.Checksum(raw); got != want {
				t.Fatalf("adler32Sum %#x, hash/adler32 %#x", got, want)
			}
		}
	})
}

// benchChunk returns a chunk of the bench files (bench/h5core_bench.sh):
// 1e6 float64 values, shuffled and compressed by zlib at level 4 as h5py
// stores them, made by /usr/bin/python3's zlib.
func benchChunk(b *testing.B) (z []byte, size int) {
	cmd := exec.Command("/usr/bin/python3", "-c", `
import sys, zlib, numpy as np
i = np.arange(1000000, 2000000, dtype=np.float64)
a = np.round(np.sin(i * 0.001) * 1000, 3).view(np.uint8).reshape(-1, 8).T.copy()
sys.stdout.buffer.write(zlib.compress(a.tobytes(), 4))`)
	z, err := cmd.Output()
	if err != nil {
		b.Fatalf("making the chunk with python3 zlib: %v", err)
	}
	return z, 8_000_000
}

// BenchmarkInflateChunk inflates one chunk of the bench files: with the
// fast loop in use here (assembly on amd64 with BMI2), with the Go loop,
// with klauspost/compress/zlib (the decoder inflate replaced), and the
// whole pipeline of the chunk, inflate and unshuffle. Besides MB/s, each
// reports CPU time per chunk, which a loaded machine changes less.
func BenchmarkInflateChunk(b *testing.B) {
	z, size := benchChunk(b)
	out := make([]byte, size)
	run := func(name string, decode func() error) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			c0 := cpuTime(b)
			for b.Loop() {
				if err := decode(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-c0)/float64(b.N), "cpu-ns/op")
		})
	}
	inflate := func(f *inflater) func() error {
		return func() error {
			n, _, err := f.inflate(out, z[2:])
			if err == nil && n != size {
				err = fmt.Errorf("%d bytes", n)
			}
			return err
		}
	}
	run("inflate", func() error {
		n, err := inflateInto(out, z)
		if err == nil && n != size {
			err = fmt.Errorf("%d bytes", n)
		}
		return err
	})
	run("fastloop", inflate(new(inflater)))
	run("goloop", inflate(&inflater{goLoop: true}))
	run("klauspost", func() error {
		r, err := kzlib.NewReader(bytes.NewReader(z))
		if err == nil {
			_, err = io.ReadFull(r, out)
		}
		return err
	})
	p := []Filter{{ID: FilterShuffle, ClientData: []uint32{8}}, {ID: FilterDeflate, ClientData: []uint32{4}}}
	run("pipeline", func() error {
		_, err := decodeChunk(p, 0, z, size)
		return err
	})
}

// cpuTime returns the user and system CPU time the process used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
