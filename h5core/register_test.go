package h5core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// encodeTestData returns named chunk contents of n bytes that filters
// treat differently: compressible, incompressible, smooth numbers.
func encodeTestData(n int) map[string][]byte {
	r := rand.New(rand.NewSource(int64(n)))
	random := make([]byte, n)
	r.Read(random)
	ramp := make([]byte, n)
	for i := 0; i+4 <= n; i += 4 {
		binary.LittleEndian.PutUint32(ramp[i:], uint32(i/4%1000))
	}
	smooth := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(smooth[i:], math.Float64bits(math.Sin(float64(i)/800)))
	}
	text := bytes.Repeat([]byte("an HDF5 chunk, "), n/15+1)[:n]
	return map[string][]byte{"random": random, "ramp": ramp, "smooth": smooth, "text": text, "zeros": make([]byte, n)}
}

// TestEncodeChunkRoundTrip runs pipelines forward and back: decodeChunk
// must give back what encodeChunk was given, for every filter h5core can
// write, alone and combined, on chunk sizes around the filters' block and
// element boundaries.
func TestEncodeChunkRoundTrip(t *testing.T) {
	shuffle := func(es uint32) Filter { return Filter{ID: FilterShuffle, ClientData: []uint32{es}} }
	deflate := func(level uint32) Filter { return Filter{ID: FilterDeflate, ClientData: []uint32{level}} }
	fletcher := Filter{ID: FilterFletcher32}
	lzf := Filter{ID: FilterLZF, Flags: 1, ClientData: []uint32{4, 261, 0}}
	blosc := func(typesize, level, shuffle, comp uint32) Filter {
		return Filter{ID: FilterBlosc, ClientData: []uint32{2, 2, typesize, 0, level, shuffle, comp}}
	}
	pipelines := map[string][]Filter{
		"deflate 0":                      {deflate(0)},
		"deflate 1":                      {deflate(1)},
		"deflate 9":                      {deflate(9)},
		"deflate default":                {{ID: FilterDeflate}},
		"shuffle 2":                      {shuffle(2)},
		"shuffle 3":                      {shuffle(3)},
		"shuffle 8":                      {shuffle(8)},
		"fletcher32":                     {fletcher},
		"shuffle+deflate+fletcher32":     {shuffle(4), deflate(6), fletcher},
		"lzf":                            {lzf},
		"shuffle+lzf":                    {shuffle(8), lzf},
		"lz4 default block":              {{ID: FilterLZ4}},
		"lz4 block 1000":                 {{ID: FilterLZ4, ClientData: []uint32{1000}}},
		"zstd default":                   {{ID: FilterZstd}},
		"zstd 19":                        {{ID: FilterZstd, ClientData: []uint32{19}}},
		"shuffle+zstd+fletcher32":        {shuffle(8), {ID: FilterZstd, ClientData: []uint32{1}}, fletcher},
		"blosc blosclz shuffle 4":        {blosc(4, 5, 1, bloscCompBloscLZ)},
		"blosc blosclz no shuffle":       {blosc(8, 9, 0, bloscCompBloscLZ)},
		"blosc lz4 bitshuffle":           {blosc(2, 5, 2, bloscCompLZ4)},
		"blosc lz4hc 3":                  {blosc(3, 5, 1, bloscCompLZ4HC)},
		"blosc zlib":                     {blosc(8, 6, 1, bloscCompZlib)},
		"blosc zstd":                     {blosc(4, 3, 1, bloscCompZstd)},
		"blosc snappy":                   {blosc(8, 5, 1, bloscCompSnappy)},
		"blosc level 0":                  {blosc(4, 0, 1, bloscCompZstd)},
		"blosc defaults":                 {{ID: FilterBlosc}},
		"optional unknown then deflate":  {{ID: 40000, Flags: 1}, deflate(6)},
		"deflate then optional unknown":  {deflate(6), {ID: 40000, Flags: 1}},
		"no filters":                     nil,
		"optional unknown, nothing else": {{ID: 40000, Flags: 1}},
	}
	for pname, p := range pipelines {
		for _, n := range []int{1, 7, 8, 100, 4096, 65537} {
			for dname, data := range encodeTestData(n) {
				orig := bytes.Clone(data)
				enc, mask, err := encodeChunk(p, data)
				if err != nil {
					t.Fatalf("%s, %d %s bytes: %v", pname, n, dname, err)
				}
				if !bytes.Equal(data, orig) {
					t.Fatalf("%s, %d %s bytes: the encoder changed its input", pname, n, dname)
				}
				got, err := decodeChunk(p, mask, enc, n)
				if err != nil {
					t.Fatalf("%s, %d %s bytes (mask %#x): decode: %v", pname, n, dname, mask, err)
				}
				if !bytes.Equal(got, data) {
					t.Fatalf("%s, %d %s bytes (mask %#x): round trip changed the data", pname, n, dname, mask)
				}
			}
		}
	}
}

// TestEncodeChunkMask checks which filters a chunk's mask says were
// skipped, and that compressors do compress.
func TestEncodeChunkMask(t *testing.T) {
	data := encodeTestData(4096)
	lzf := Filter{ID: FilterLZF, Flags: 1}
	for _, tc := range []struct {
		name     string
		pipeline []Filter
		data     string
		mask     uint32
		smaller  bool
	}{
		{"lzf compresses text", []Filter{lzf}, "text", 0, true},
		{"lzf declines random bytes", []Filter{lzf}, "random", 1, false},
		{"lzf declines, deflate still runs", []Filter{lzf, {ID: FilterDeflate, ClientData: []uint32{6}}}, "random", 1, false},
		{"optional unknown filters are skipped", []Filter{{ID: 40000, Flags: 1}, {ID: FilterDeflate}, {ID: 40001, Flags: 1}}, "zeros", 5, true},
		{"deflate", []Filter{{ID: FilterDeflate, ClientData: []uint32{6}}}, "ramp", 0, true},
		{"lz4", []Filter{{ID: FilterLZ4}}, "text", 0, true},
		{"zstd", []Filter{{ID: FilterZstd}}, "text", 0, true},
		{"scaleoffset", []Filter{{ID: FilterScaleOffset, ClientData: soParms(2, 0, 1024, 0, 4, 1, 0, 0)}}, "ramp", 0, true},
		{"blosc blosclz", []Filter{{ID: FilterBlosc, ClientData: []uint32{2, 2, 4, 4096, 5, 1, 0}}}, "ramp", 0, true},
		{"blosc lz4", []Filter{{ID: FilterBlosc, ClientData: []uint32{2, 2, 1, 4096, 5, 0, 1}}}, "text", 0, true},
	} {
		enc, mask, err := encodeChunk(tc.pipeline, data[tc.data])
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if mask != tc.mask {
			t.Errorf("%s: mask %#x, want %#x", tc.name, mask, tc.mask)
		}
		if tc.smaller && len(enc) >= len(data[tc.data])/2 {
			t.Errorf("%s: %d bytes encode to %d", tc.name, len(data[tc.data]), len(enc))
		}
	}
}

func TestEncodeChunkErrors(t *testing.T) {
	data := encodeTestData(64)["random"]
	for _, tc := range []struct {
		name     string
		pipeline []Filter
		error    string
	}{
		{"no encoder", []Filter{{ID: FilterSZIP, ClientData: []uint32{141, 32, 4, 16}}}, "cannot write a chunk filtered with 4 (szip)"},
		{"unknown filter", []Filter{{ID: 40000}}, "cannot write a chunk filtered with 40000"},
		{"unknown filter named by the file", []Filter{{ID: 40000, Name: "mine"}}, "cannot write a chunk filtered with 40000 (mine)"},
		{"required lzf declining", []Filter{{ID: FilterLZF}}, "filter 32000 (lzf): filter declined the chunk"},
		{"bad shuffle parameters", []Filter{{ID: FilterShuffle, ClientData: []uint32{0}}}, "filter 2 (shuffle): invalid shuffle parameters"},
		{"blosc unknown compressor", []Filter{{ID: FilterBlosc, ClientData: []uint32{2, 2, 4, 64, 5, 1, 9}}}, "filter 32001 (blosc): unknown blosc compressor 9"},
		{"too many filters", make([]Filter, 33), "33 filters"},
	} {
		_, _, err := encodeChunk(tc.pipeline, data)
		if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.error)
		}
		if strings.HasPrefix(tc.error, "cannot write") && !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v does not wrap ErrUnsupported", tc.name, err)
		}
	}
}

func TestFilterNames(t *testing.T) {
	for _, tc := range []struct {
		f       Filter
		display string
		label   string
	}{
		{Filter{ID: FilterDeflate}, "deflate", "1 (deflate)"},
		{Filter{ID: FilterScaleOffset}, "scaleoffset", "6 (scaleoffset)"},
		{Filter{ID: FilterLZF, Name: "lzf"}, "lzf", "32000 (lzf)"},
		{Filter{ID: FilterBlosc, Name: "blosc"}, "blosc", "32001 (blosc)"},
		{Filter{ID: 307}, "bzip2", "307 (bzip2)"},
		{Filter{ID: 32008, Name: "bitshuffle; see https://github.com/kiyo-masui/bitshuffle"}, "bitshuffle; see https://github.com/kiyo-masui/bitshuffle", "32008 (bitshuffle)"},
		{Filter{ID: 40000, Name: "mine"}, "mine", "40000 (mine)"},
		{Filter{ID: 40000}, "", "40000"},
	} {
		if got := tc.f.DisplayName(); got != tc.display {
			t.Errorf("filter %d: DisplayName %q, want %q", tc.f.ID, got, tc.display)
		}
		if got := filterLabel(&tc.f); got != tc.label {
			t.Errorf("filter %d: label %q, want %q", tc.f.ID, got, tc.label)
		}
	}
	for id, c := range filterRegistry {
		if c.id != id || c.name == "" || FilterName(id) != c.name {
			t.Errorf("registry entry %d: %+v", id, c)
		}
	}
}

// TestEncodeScaleOffset round-trips integer chunks through the
// scale-offset filter: every width, signedness and byte order, with and
// without a fill value, automatic and fixed bits, constant chunks and
// full-range ones (stored as they are).
func TestEncodeScaleOffset(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const n = 500
	for _, size := range []int{1, 2, 4, 8} {
		for _, signed := range []bool{false, true} {
			for _, order := range []ByteOrder{LittleEndian, BigEndian} {
				typ := &Datatype{Class: ClassFixedPoint, Size: size, Signed: signed, ByteOrder: order, Precision: 8 * size}
				sign, ord := uint32(0), uint32(0)
				if signed {
					sign = 1
				}
				if order == BigEndian {
					ord = 1
				}
				gen := map[string]func(i int) int64{
					"ramp":     func(i int) int64 { return int64(i%100) - 30 },
					"constant": func(int) int64 { return 7 },
					"random":   func(int) int64 { return int64(r.Uint64()) },
				}
				for gname, g := range gen {
					data := make([]byte, n*size)
					for i := range n {
						v := g(i)
						if !signed && v < 0 {
							v = -v
						}
						v = signExtend(uint64(v), 8*size)
						if !signed {
							v &= int64(uint64(1)<<(8*size) - 1)
						}
						if err := typ.PutInt(data[i*size:], v); err != nil && !(!signed && size == 8) {
							t.Fatal(err)
						}
					}
					fillElem := data[3*size : 4*size]
					var fill [3]uint32
					for k, c := range fillElem {
						fill[k/4] |= uint32(c) << (8 * (k % 4))
					}
					for _, fillAvail := range []uint32{0, 1} {
						cd := soParms(2, 0, n, 0, uint32(size), sign, ord, fillAvail, fill[:]...)
						name := fmt.Sprintf("%d-byte signed %v %s %s fill %d", size, signed, order, gname, fillAvail)
						checkEncodeRoundTrip(t, name, []Filter{{ID: FilterScaleOffset, ClientData: cd}}, data)
					}
				}
			}
		}
	}
	ramp := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(ramp[2*i:], uint16(i))
	}
	checkEncodeRoundTrip(t, "fixed 9 bits", []Filter{{ID: FilterScaleOffset, ClientData: soParms(2, 9, n, 0, 2, 0, 0, 0)}}, ramp)
	for _, tc := range []struct {
		name  string
		cd    []uint32
		data  []byte
		error string
	}{
		{"fixed bits too few", soParms(2, 8, n, 0, 2, 0, 0, 0), ramp, "element 256 (256) does not fit the scale-offset filter's 8 bits"},
		{"float", soParms(0, 3, n/2, 1, 4, 0, 0, 0), ramp, "lossy"},
		{"wrong length", soParms(2, 0, n+1, 0, 2, 0, 0, 0), ramp, "for 501 elements"},
		{"parameters", []uint32{2, 0}, ramp, "2 scale-offset parameters"},
	} {
		_, _, err := encodeChunk([]Filter{{ID: FilterScaleOffset, ClientData: tc.cd}}, tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.error)
		}
	}
}

// checkEncodeRoundTrip encodes data through p and decodes it back.
func checkEncodeRoundTrip(t *testing.T, name string, p []Filter, data []byte) {
	t.Helper()
	enc, mask, err := encodeChunk(p, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, err := decodeChunk(p, mask, enc, len(data))
	if err != nil {
		t.Fatalf("%s: decode: %v", name, err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("%s: round trip changed the data", name)
	}
}

func TestEncodeNBit(t *testing.T) {
	for _, tc := range []struct {
		name          string
		cd            []uint32
		elems, packed []byte
	}{
		// two 4-bit values at bit offset 2 of 1-byte items: 0b1010, 0b0101
		{"atomic", []uint32{8, 0, 2, nbitAtomic, 1, 0, 4, 2}, []byte{0x28, 0x14}, []byte{0xa5, 0}},
		// 12 bits at offset 4 of a big-endian 2-byte item: 0xabc
		{"atomic BE", []uint32{8, 0, 1, nbitAtomic, 2, 1, 12, 4}, []byte{0xab, 0xc0}, []byte{0xab, 0xc0}},
		// array of two 1-byte 3-bit items: 0b101, 0b011
		{"array", []uint32{10, 0, 1, nbitArray, 2, nbitAtomic, 1, 0, 3, 0}, []byte{5, 3}, []byte{0xac}},
		// compound {no-op byte at 1, 2-bit value at offset 0 of byte 0}
		{"compound", []uint32{15, 0, 1, nbitCompound, 2, 2, 1, nbitNoop, 1, 0, nbitAtomic, 1, 0, 2, 0},
			[]byte{0x01, 0x5a}, []byte{0x5a, 0x40}},
		{"padding dropped", []uint32{8, 0, 1, nbitAtomic, 1, 0, 3, 1}, []byte{0xff}, []byte{0xe0}},
		{"stored as is", []uint32{3, 1, 4}, []byte{1, 2, 3, 4}, []byte{1, 2, 3, 4}},
	} {
		p := []Filter{{ID: FilterNBit, ClientData: tc.cd}}
		enc, _, err := encodeChunk(p, tc.elems)
		if err != nil || !bytes.Equal(enc, tc.packed) {
			t.Errorf("%s: encoded % x, %v; want % x", tc.name, enc, err, tc.packed)
		}
	}
	// 1000 unsigned 12-bit values at bit offset 2 of big-endian 2-byte items
	r := rand.New(rand.NewSource(6))
	data := make([]byte, 2000)
	for i := 0; i < len(data); i += 2 {
		binary.BigEndian.PutUint16(data[i:], uint16(r.Intn(1<<12))<<2)
	}
	checkEncodeRoundTrip(t, "BE 12 bits at 2", []Filter{{ID: FilterNBit, ClientData: []uint32{8, 0, 1000, nbitAtomic, 2, 1, 12, 2}}}, data)
	if _, _, err := encodeChunk([]Filter{{ID: FilterNBit, ClientData: []uint32{8, 0, 1001, nbitAtomic, 2, 1, 12, 2}}}, data); err == nil || !strings.Contains(err.Error(), "2000 bytes for 1001 elements") {
		t.Errorf("wrong length: %v", err)
	}
}
