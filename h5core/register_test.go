package h5core

import (
	"bytes"
	"encoding/binary"
	"errors"
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
