package h5core

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// corpusCase is one entry of testdata/filters/manifest.json, written by
// testdata/gen_filters.py from chunks libhdf5 (through h5py) stored.
type corpusCase struct {
	Name    string `json:"name"`
	Filters []struct {
		ID    uint16   `json:"id"`
		Flags uint16   `json:"flags"`
		CD    []uint32 `json:"cd"`
		Name  string   `json:"name"`
	} `json:"filters"`
	Mask        uint32 `json:"mask"`
	Size        int    `json:"size"`
	Expect      string `json:"expect"`
	PipelineMsg string `json:"pipeline_msg"`
	dir         string // under testdata
}

func (c *corpusCase) pipeline() []Filter {
	var p []Filter
	for _, f := range c.Filters {
		if len(f.CD) == 0 {
			f.CD = nil
		}
		p = append(p, Filter{ID: f.ID, Name: f.Name, Flags: f.Flags, ClientData: f.CD})
	}
	return p
}

func loadCorpus(t testing.TB) []corpusCase { return loadCorpusDir(t, "filters") }

// loadCorpusDir loads the manifest of a chunk corpus under testdata
// (filters, filters_plugins).
func loadCorpusDir(t testing.TB, dir string) []corpusCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		cases[i].dir = dir
	}
	return cases
}

// read returns a file of the case's corpus.
func (c *corpusCase) read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", c.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readCorpusFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "filters", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeChunkCorpus decodes every real chunk of the corpus (deflate at
// several levels, shuffle of 1-, 2-, 4-, 8- and 12-byte items, fletcher32 on
// even and odd lengths, scale-offset integers of every size and sign in both
// byte orders, with fill values and full-range data, scale-offset floats,
// n-bit atomic/array/compound/no-op types, LZF, LZ4 frames, Blosc with every
// codec, shuffle mode and block layout, SZIP of 8- to 64-bit integers and
// floats in both byte orders, EC and NN, 8, 16 and 32 pixels per block,
// padded and partial scanlines, 12- and 20-bit pixels) and compares with the
// values libhdf5 reads back.
func TestDecodeChunkCorpus(t *testing.T) {
	for _, c := range loadCorpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			chunk := readCorpusFile(t, c.Name+".chunk.bin")
			got, err := decodeChunk(c.pipeline(), c.Mask, chunk, c.Size)
			if err != nil {
				t.Fatal(err)
			}
			want := readCorpusFile(t, c.Expect)
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("decoded %d bytes differ from the expected %d at byte %d", len(got), len(want), i)
			}
		})
	}
}

// TestDecodeChunkCorpusDamaged checks that cut, padded or mis-sized chunks
// of the corpus fail cleanly.
func TestDecodeChunkCorpusDamaged(t *testing.T) {
	for _, c := range loadCorpus(t) {
		chunk := readCorpusFile(t, c.Name+".chunk.bin")
		p := c.pipeline()
		cuts := []int{0, 1, len(chunk) / 2, len(chunk) - 1}
		switch p[len(p)-1].ID {
		case FilterNBit, FilterScaleOffset:
			cuts = cuts[:3] // their packed data may end with a spare byte
		case FilterSZIP:
			cuts = cuts[:3] // the last byte may code only the padding of a partial last scanline
		}
		for _, cut := range cuts {
			if _, err := decodeChunk(p, c.Mask, chunk[:cut], c.Size); err == nil {
				t.Errorf("%s cut to %d bytes: no error", c.Name, cut)
			}
		}
		for _, size := range []int{0, c.Size - 1, c.Size + 1} {
			if _, err := decodeChunk(p, c.Mask, chunk, size); err == nil {
				t.Errorf("%s decoded to %d bytes instead of %d: no error", c.Name, size, c.Size)
			}
		}
	}
}

// TestParsePipelineCorpus parses the pipeline messages found in the object
// headers of the corpus files (version 1 from libver earliest, version 2
// from libver latest) and compares them with the generator's own decoding,
// which it checked against h5py's view of the pipeline.
func TestParsePipelineCorpus(t *testing.T) {
	n := 0
	for _, c := range loadCorpus(t) {
		if c.PipelineMsg == "" {
			continue
		}
		n++
		msg, err := hex.DecodeString(c.PipelineMsg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := parsePipeline(msg, 0x400)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if want := c.pipeline(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s (version %d):\n got %+v\nwant %+v", c.Name, msg[0], got, want)
		}
	}
	if n < 10 {
		t.Fatalf("only %d pipeline messages in the corpus", n)
	}
}

// TestFletcher32Corpus checks real checksums (even and odd lengths), a
// flipped byte, and the byte-swapped form old libhdf5 versions wrote.
func TestFletcher32Corpus(t *testing.T) {
	for _, name := range []string{"fletcher_i32", "fletcher_odd_u8", "shuffle_gzip_fletcher_f64"} {
		var c corpusCase
		for _, cc := range loadCorpus(t) {
			if cc.Name == name {
				c = cc
			}
		}
		chunk := readCorpusFile(t, name+".chunk.bin")
		for _, at := range []int{0, len(chunk) / 2, len(chunk) - 5, len(chunk) - 1} {
			bad := bytes.Clone(chunk)
			bad[at] ^= 0x10
			_, err := decodeChunk(c.pipeline(), c.Mask, bad, c.Size)
			if err == nil || !strings.Contains(err.Error(), "filter 3 (fletcher32): checksum mismatch") {
				t.Errorf("%s with byte %d flipped: got %v", name, at, err)
			}
		}
		swapped := bytes.Clone(chunk)
		s := swapped[len(swapped)-4:]
		s[0], s[1], s[2], s[3] = s[1], s[0], s[3], s[2]
		if _, err := decodeChunk(c.pipeline(), c.Mask, swapped, c.Size); err != nil {
			t.Errorf("%s with the pre-1.6.3 byte-swapped checksum: %v", name, err)
		}
	}
}

func TestChecksumFletcher32(t *testing.T) {
	// H5_checksum_fletcher32 worked by hand: words are big-endian, an odd
	// last byte is the high byte of a final word.
	for _, tc := range []struct {
		in   []byte
		want uint32
	}{
		{[]byte{}, 0},
		{[]byte{0x01, 0x02}, 0x0102_0102},
		{[]byte{0x01, 0x02, 0x03}, 0x0504_0402},
		{[]byte{0xff, 0xff, 0xff, 0xff}, 0xffff_ffff},
	} {
		if got := checksumFletcher32(tc.in); got != tc.want {
			t.Errorf("fletcher32(% x) = %#08x, want %#08x", tc.in, got, tc.want)
		}
	}
	// long inputs cross the 360-word blocks: compare with a direct modular
	// sum (the end-around-carry sums equal it except that 0xffff may stand
	// for 0)
	b := make([]byte, 100001)
	rand.New(rand.NewSource(1)).Read(b)
	var s1, s2 uint64
	for i := 0; i < len(b); i += 2 {
		w := uint64(b[i]) << 8
		if i+1 < len(b) {
			w |= uint64(b[i+1])
		}
		s1 = (s1 + w) % 0xffff
		s2 = (s2 + s1) % 0xffff
	}
	got := checksumFletcher32(b)
	if uint64(got&0xffff)%0xffff != s1 || uint64(got>>16)%0xffff != s2 {
		t.Errorf("fletcher32 of 100001 bytes = %#08x, want sums %#04x %#04x", got, s1, s2)
	}
}

// shuffled is data through the shuffle filter with es-byte elements.
func shuffled(src []byte, es int) []byte {
	out, err := encodeShuffle([]uint32{uint32(es)}, src)
	if err != nil {
		panic(err)
	}
	return out
}

func TestShuffleRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, es := range []int{2, 3, 4, 5, 8, 12, 16} {
		for _, n := range []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 1003} {
			for _, tail := range []int{0, 1, es - 1} {
				src := make([]byte, n*es+tail)
				r.Read(src)
				got, err := decodeChunk([]Filter{{ID: FilterShuffle, ClientData: []uint32{uint32(es)}}}, 0, shuffled(src, es), len(src))
				if err != nil {
					t.Fatalf("es %d n %d tail %d: %v", es, n, tail, err)
				}
				if !bytes.Equal(got, src) {
					t.Fatalf("es %d n %d tail %d: wrong bytes", es, n, tail)
				}
				if es == 8 && n > 0 { // the Go reference of the assembly
					ref := make([]byte, n*es)
					unshuffle8Go(ref, shuffled(src, es)[:n*es], n, 0)
					if !bytes.Equal(ref, src[:n*es]) {
						t.Fatalf("n %d: unshuffle8Go gives wrong bytes", n)
					}
				}
			}
		}
	}
	for _, cd := range [][]uint32{nil, {0}, {4, 1}} {
		if _, err := decodeChunk([]Filter{{ID: FilterShuffle, ClientData: cd}}, 0, make([]byte, 8), 8); err == nil {
			t.Errorf("shuffle parameters %v: no error", cd)
		}
	}
}

func TestDeflate(t *testing.T) {
	data := bytes.Repeat([]byte("hdf5 chunk "), 1000)
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, 6)
	w.Write(data)
	w.Close()
	stream := z.Bytes()
	p := []Filter{{ID: FilterDeflate, ClientData: []uint32{6}}}
	for _, tc := range []struct {
		name  string
		in    []byte
		size  int
		error string
	}{
		{"ok", stream, len(data), ""},
		{"trailing bytes ignored", append(bytes.Clone(stream), 1, 2, 3), len(data), ""},
		{"larger than expected", stream, len(data) - 1, "more than the expected"},
		{"smaller than expected", stream, len(data) + 1, "decoded chunk is 11000 bytes, expected 11001"},
		{"bad adler32", append(bytes.Clone(stream[:len(stream)-1]), stream[len(stream)-1]^1), len(data), "checksum"},
		{"truncated", stream[:len(stream)/2], len(data), "unexpected EOF"},
		{"not zlib", []byte("plain text"), len(data), "zlib"},
		{"empty", nil, len(data), "zlib"},
	} {
		got, err := decodeChunk(p, 0, tc.in, tc.size)
		if tc.error == "" {
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: %v", tc.name, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got error %v, want %q", tc.name, err, tc.error)
		}
	}
}

func TestLZF(t *testing.T) {
	p := []Filter{{ID: FilterLZF, ClientData: []uint32{4, 261, 0}}}
	for _, tc := range []struct {
		name  string
		in    []byte
		want  string
		error string
	}{
		{"literal", []byte{2, 'a', 'b', 'c'}, "abc", ""},
		// literal "ab", then a 3+2=5-byte match at distance 2 (overlapping)
		{"overlap", []byte{1, 'a', 'b', 3 << 5, 1}, "abababa", ""},
		// extended length: 7+1+2 = 10 bytes at distance 1
		{"extended", []byte{0, 'x', 7 << 5, 1, 0}, "xxxxxxxxxxx", ""},
		{"match before start", []byte{0, 'x', 1 << 5, 5}, "xxxx", "before the start"},
		{"truncated literal", []byte{5, 'a'}, "aaaaaa", "truncated"},
		{"truncated match", []byte{0, 'x', 7 << 5}, "x", "truncated"},
		{"too long", []byte{2, 'a', 'b', 'c'}, "ab", "more than the expected"},
		{"empty", nil, "", "empty"},
	} {
		got, err := decodeChunk(p, 0, tc.in, len(tc.want))
		if tc.error == "" {
			if err != nil || string(got) != tc.want {
				t.Errorf("%s: got %q, %v", tc.name, got, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got error %v, want %q", tc.name, err, tc.error)
		}
	}
}

// lz4Frame is data through the LZ4 filter with blocks of block bytes.
func lz4Frame(t testing.TB, data []byte, block int) []byte {
	out, err := encodeLZ4([]uint32{uint32(block)}, data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLZ4(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	data := bytes.Repeat([]byte("0123456789abcdef"), 1000)
	r.Read(data[5000:7000]) // an incompressible stretch: a block stored as is
	p := []Filter{{ID: FilterLZ4}}
	for _, block := range []int{1000, 4096, 1 << 30} {
		got, err := decodeChunk(p, 0, lz4Frame(t, data, block), len(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("block size %d: %v", block, err)
		}
	}
	frame := lz4Frame(t, data, 4096)
	huge := bytes.Clone(frame)
	binary.BigEndian.PutUint64(huge, 1<<40)
	zeroBlock := bytes.Clone(frame)
	binary.BigEndian.PutUint32(zeroBlock[8:], 0)
	badSize := bytes.Clone(frame)
	binary.BigEndian.PutUint32(badSize[12:], 1<<31)
	for _, tc := range []struct {
		name, error string
		in          []byte
	}{
		{"header", "header truncated", frame[:11]},
		{"truncated", "LZ4 block", frame[:len(frame)-100]},
		{"huge", "more than the", huge},
		{"zero block", "block size is 0", zeroBlock},
		{"block size", "claims", badSize},
		{"corrupt", "LZ4 block", append(frame[:40:40], bytes.Repeat([]byte{0xff}, len(frame))...)},
	} {
		if _, err := decodeChunk(p, 0, tc.in, len(data)); err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.error)
		}
	}
}

func TestZstd(t *testing.T) {
	data := bytes.Repeat([]byte("zstd chunk data "), 4000)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(data, nil)
	two := append(enc.EncodeAll(data[:100], nil), enc.EncodeAll(data[100:], nil)...)
	p := []Filter{{ID: FilterZstd, ClientData: []uint32{3}}}
	for _, in := range [][]byte{frame, two} {
		got, err := decodeChunk(p, 0, in, len(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("zstd: %v", err)
		}
	}
	for _, tc := range []struct {
		name, error string
		in          []byte
		size        int
	}{
		{"too large", "more than the", frame, len(data) - 1},
		{"corrupt", "zstd", append(frame[:20:20], bytes.Repeat([]byte{0x55}, 100)...), len(data)},
		{"not zstd", "zstd", []byte("not a zstd frame"), len(data)},
		{"empty", "empty", nil, len(data)},
	} {
		if _, err := decodeChunk(p, 0, tc.in, tc.size); err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.error)
		}
	}
}

// soChunk builds a scale-offset chunk header.
func soChunk(minbits uint32, minval uint64, payload ...byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, minbits)
	b = append(b, 8)
	b = binary.LittleEndian.AppendUint64(b, minval)
	b = append(b, make([]byte, 8)...)
	return append(b, payload...)
}

// soParms returns scale-offset client data for n elements.
func soParms(scaleType, factor, n, class, size, sign, order, fillAvail uint32, fill ...uint32) []uint32 {
	cd := make([]uint32, soNParms)
	copy(cd, []uint32{scaleType, factor, n, class, size, sign, order, fillAvail})
	copy(cd[soFillValue:], fill)
	return cd
}

func TestScaleOffset(t *testing.T) {
	le16 := func(v ...uint16) []byte {
		var b []byte
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, x)
		}
		return b
	}
	for _, tc := range []struct {
		name  string
		cd    []uint32
		in    []byte
		want  []byte
		error string
	}{
		// minbits 0: no fill value and all values equal minval
		{"minbits 0", soParms(2, 0, 3, 0, 2, 1, 0, 0), soChunk(0, 0xfffe), le16(0xfffe, 0xfffe, 0xfffe), ""},
		{"minbits 0 BE", soParms(2, 0, 2, 0, 2, 0, 1, 0), soChunk(0, 0x1234), []byte{0x12, 0x34, 0x12, 0x34}, ""},
		// 4-bit values 1, 15 (fill), 2 with minval 10, fill 7
		{"fill", soParms(2, 0, 3, 0, 2, 0, 0, 1, 7), soChunk(4, 10, 0x1f, 0x20), le16(11, 7, 12), ""},
		{"no fill: all-ones is a value", soParms(2, 0, 3, 0, 2, 0, 0, 0, 7), soChunk(4, 10, 0x1f, 0x20), le16(11, 25, 12), ""},
		{"full precision", soParms(2, 0, 2, 0, 2, 0, 1, 0), soChunk(16, 0, 0x01, 0x02, 0x03, 0x04), []byte{2, 1, 4, 3}, ""},
		{"left alone by the writer", soParms(2, 16, 2, 0, 2, 0, 0, 0), []byte{1, 2, 3, 4}, []byte{1, 2, 3, 4}, ""},
		{"float minbits 0", soParms(0, 2, 2, 1, 4, 0, 0, 0), soChunk(0, uint64(math.Float32bits(1.5))),
			binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, math.Float32bits(1.5)), math.Float32bits(1.5)), ""},
		{"E-scale", soParms(1, 8, 1, 1, 4, 0, 0, 0), soChunk(3, 0, 0), nil, "E-scaling not supported"},
		{"minbits too large", soParms(2, 0, 1, 0, 2, 0, 0, 0), soChunk(17, 0, 0, 0, 0), nil, "exceed"},
		{"truncated header", soParms(2, 0, 1, 0, 2, 0, 0, 0), soChunk(4, 0)[:20], nil, "header truncated"},
		{"truncated data", soParms(2, 0, 5, 0, 2, 0, 0, 0), soChunk(4, 0, 0xff), nil, "truncated"},
		{"truncated full precision", soParms(2, 0, 2, 0, 2, 0, 0, 0), soChunk(16, 0, 1, 2, 3), nil, "truncated"},
		{"bad size", soParms(2, 0, 1, 0, 3, 0, 0, 0), soChunk(4, 0, 0), nil, "size 3 not supported"},
		{"bad scale type", soParms(0, 0, 1, 0, 2, 0, 0, 0), soChunk(4, 0, 0), nil, "scale type"},
		{"bad parameter count", soParms(2, 0, 1, 0, 2, 0, 0, 0)[:19], soChunk(4, 0, 0), nil, "parameters"},
		{"too many elements", soParms(2, 0, 1<<31, 0, 2, 0, 0, 0), soChunk(4, 0, 0), nil, "more than the"},
	} {
		size := len(tc.want)
		if tc.error != "" {
			size = 1 << 16 // room for what the parameters describe
		}
		got, err := decodeChunk([]Filter{{ID: FilterScaleOffset, ClientData: tc.cd}}, 0, tc.in, size)
		if tc.error == "" {
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Errorf("%s: got % x, %v; want % x", tc.name, got, err, tc.want)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.error)
		}
	}
}

func TestNBit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cd    []uint32
		in    []byte
		want  []byte
		error string
	}{
		// two 4-bit values at bit offset 2 of 1-byte items: 0b1010, 0b0101
		{"atomic", []uint32{8, 0, 2, nbitAtomic, 1, 0, 4, 2}, []byte{0xa5}, []byte{0x28, 0x14}, ""},
		// 12 bits at offset 4 of a big-endian 2-byte item: 0xabc
		{"atomic BE", []uint32{8, 0, 1, nbitAtomic, 2, 1, 12, 4}, []byte{0xab, 0xc0}, []byte{0xab, 0xc0}, ""},
		// array of two 1-byte 3-bit items: 0b101, 0b011
		{"array", []uint32{10, 0, 1, nbitArray, 2, nbitAtomic, 1, 0, 3, 0}, []byte{0xac}, []byte{5, 3}, ""},
		// compound {no-op byte at 1, 2-bit value at offset 0 of byte 0}
		{"compound", []uint32{15, 0, 1, nbitCompound, 2, 2, 1, nbitNoop, 1, 0, nbitAtomic, 1, 0, 2, 0},
			[]byte{0x5a, 0x40}, []byte{0x01, 0x5a}, ""},
		{"stored as is", []uint32{3, 1, 4}, []byte{1, 2, 3, 4}, []byte{1, 2, 3, 4}, ""},
		{"truncated", []uint32{8, 0, 4, nbitAtomic, 1, 0, 4, 2}, []byte{0xa5}, nil, "truncated"},
		{"precision", []uint32{8, 0, 1, nbitAtomic, 1, 0, 7, 2}, []byte{0xff}, nil, "invalid n-bit atomic"},
		{"count", []uint32{9, 0, 1, nbitAtomic, 1, 0, 4, 2}, []byte{0xff}, nil, "parameters"},
		{"short", []uint32{7, 0, 1, nbitAtomic, 1, 0, 4}, []byte{0xff}, nil, "parameters"},
		{"class", []uint32{8, 0, 1, 9, 1, 0, 4, 2}, []byte{0xff}, nil, "class 9"},
		{"array of 0-byte items", []uint32{10, 0, 1, nbitArray, 2, nbitAtomic, 0, 0, 0, 0}, []byte{0xff}, nil, "0-byte"},
		{"member overflow", []uint32{13, 0, 1, nbitCompound, 2, 1, 1, nbitAtomic, 2, 0, 8, 0, 0}, []byte{0xff, 0xff}, nil, "overflows"},
		{"elements", []uint32{8, 0, 1 << 30, nbitAtomic, 4, 0, 4, 2}, []byte{0xff}, nil, "more than the"},
	} {
		size := len(tc.want)
		if tc.error != "" {
			size = 1 << 16 // room for what the parameters describe
		}
		got, err := decodeChunk([]Filter{{ID: FilterNBit, ClientData: tc.cd}}, 0, tc.in, size)
		if tc.error == "" {
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Errorf("%s: got % x, %v; want % x", tc.name, got, err, tc.want)
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.error)
		}
	}
	// arrays nested deeper than any real datatype
	cd := []uint32{0, 0, 1}
	for i := 0; i < 100; i++ {
		cd = append(cd, nbitArray, 1)
	}
	cd = append(cd, nbitAtomic, 1, 0, 8, 0)
	cd[0] = uint32(len(cd))
	if _, err := decodeChunk([]Filter{{ID: FilterNBit, ClientData: cd}}, 0, []byte{1}, 1); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("deep nesting: got %v", err)
	}
}

func TestBlosc(t *testing.T) {
	data := []byte("a blosc frame stored as is, 16-byte header first")
	frame := []byte{2, 1, bloscMemcpyed | bloscShuffle, 8}
	frame = binary.LittleEndian.AppendUint32(frame, uint32(len(data)))
	frame = binary.LittleEndian.AppendUint32(frame, uint32(len(data)))
	frame = binary.LittleEndian.AppendUint32(frame, uint32(len(data)+16))
	frame = append(frame, data...)
	p := []Filter{{ID: FilterBlosc, ClientData: []uint32{2, 2, 8, uint32(len(data))}}}
	if got, err := decodeChunk(p, 0, frame, len(data)); err != nil || !bytes.Equal(got, data) {
		t.Errorf("memcpyed frame: %q, %v", got, err)
	}
	v3 := bytes.Clone(frame)
	v3[0] = 3
	noBlocks := bytes.Clone(frame)
	noBlocks[2] = 0
	binary.LittleEndian.PutUint32(noBlocks[8:], 1)
	for _, tc := range []struct {
		name, error string
		in          []byte
	}{
		{"header", "header truncated", frame[:15]},
		{"memcpyed truncated", "truncated", frame[:30]},
		{"version 3", "version 3 not supported", v3},
		{"block table", "block table", noBlocks},
	} {
		if _, err := decodeChunk(p, 0, tc.in, len(data)); err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.error)
		}
	}
	if _, err := decodeChunk(p, 0, v3, len(data)); !errors.Is(err, ErrUnsupported) {
		t.Errorf("version 3: %v does not wrap ErrUnsupported", err)
	}
}

func TestBlosclzFarMatch(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	want := make([]byte, 9000)
	r.Read(want)
	var src []byte
	for i := 0; i < len(want); i += 25 {
		src = append(src, 24)
		src = append(src, want[i:i+25]...)
	}
	src[0] |= 1 << 5 // the format marker in the first byte
	// a 3-byte match at distance 8500 = 8192 + 308, then a literal byte
	src = append(src, 1<<5|31, 255, 308>>8, 308&0xff, 0, 'z')
	want = append(want, want[500:503]...)
	want = append(want, 'z')
	got := make([]byte, len(want))
	n, err := blosclzDecode(got, src)
	if err != nil || n != len(want) || !bytes.Equal(got, want) {
		t.Fatalf("far match: n %d, %v", n, err)
	}
}

func TestTransposeBits8x8(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for i := 0; i < 1000; i++ {
		x := r.Uint64()
		var want uint64
		for row := 0; row < 8; row++ {
			for col := 0; col < 8; col++ {
				if x>>(8*row+col)&1 != 0 {
					want |= 1 << (8*col + row)
				}
			}
		}
		if got := transposeBits8x8(x); got != want {
			t.Fatalf("transpose(%#x) = %#x, want %#x", x, got, want)
		}
	}
}

func TestBitUnshuffle(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for _, es := range []int{1, 2, 4, 8, 3} {
		for _, n := range []int{8, 16, 64, 9} {
			want := make([]byte, n*es+es/2)
			r.Read(want)
			shuffled := bytes.Clone(want)
			if n%8 == 0 { // bit (8j+k)*n+i holds bit k of byte j of item i
				clear(shuffled[:n*es])
				for i := 0; i < n; i++ {
					for j := 0; j < es; j++ {
						for k := 0; k < 8; k++ {
							if want[i*es+j]>>k&1 != 0 {
								bit := (8*j+k)*n + i
								shuffled[bit/8] |= 1 << (bit % 8)
							}
						}
					}
				}
			}
			got := make([]byte, len(want))
			bitUnshuffle(got, shuffled, es)
			if !bytes.Equal(got, want) {
				t.Fatalf("es %d n %d: wrong bytes", es, n)
			}
		}
	}
}

func TestDecodeChunkPipeline(t *testing.T) {
	data := []byte("0123456789abcdef")
	swapped := shuffled(data, 4)
	sum := binary.LittleEndian.AppendUint32(bytes.Clone(swapped), checksumFletcher32(swapped))
	shuffle := Filter{ID: FilterShuffle, ClientData: []uint32{4}}
	fletcher := Filter{ID: FilterFletcher32}
	for _, tc := range []struct {
		name     string
		pipeline []Filter
		mask     uint32
		in       []byte
		size     int
		want     []byte
		error    string
	}{
		{"no filters", nil, 0, data, 16, data, ""},
		{"two filters", []Filter{shuffle, fletcher}, 0, sum, 16, data, ""},
		{"checksum skipped by the mask", []Filter{shuffle, fletcher}, 2, swapped, 16, data, ""},
		{"all skipped", []Filter{shuffle, fletcher}, 3, data, 16, data, ""},
		{"unknown filter", []Filter{{ID: 32017, Name: "sz"}}, 0, data, 16, nil, "filter 32017 (sz) not supported"},
		{"unknown unnamed filter", []Filter{{ID: 40000}}, 0, data, 16, nil, "filter 40000 not supported"},
		{"named by the file", []Filter{{ID: 40000, Name: "mine"}}, 0, data, 16, nil, "filter 40000 (mine) not supported"},
		{"szip without parameters", []Filter{{ID: FilterSZIP}}, 0, data, 16, nil, "filter 4 (szip): szip needs 4 parameters, found 0"},
		{"size", nil, 0, data, 15, nil, "decoded chunk is 16 bytes, expected 15"},
		{"negative size", nil, 0, data, -1, nil, "invalid"},
		{"too many filters", make([]Filter, 33), 0, data, 16, nil, "33 filters"},
	} {
		got, err := decodeChunk(tc.pipeline, tc.mask, tc.in, tc.size)
		if tc.error == "" {
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Errorf("%s: got %q, %v", tc.name, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.error)
		}
		if strings.Contains(tc.error, "not supported") && !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v does not wrap ErrUnsupported", tc.name, err)
		}
	}
}

// TestDecodeChunkConcurrent decodes the corpus from several goroutines at
// once, plus pipelines whose intermediate or last stage works in place on a
// pooled buffer, so that a buffer reused too early shows as wrong bytes.
func TestDecodeChunkConcurrent(t *testing.T) {
	type job struct {
		pipeline []Filter
		mask     uint32
		in, want []byte
	}
	var jobs []job
	for _, c := range loadCorpus(t) {
		jobs = append(jobs, job{c.pipeline(), c.Mask, readCorpusFile(t, c.Name+".chunk.bin"), readCorpusFile(t, c.Expect)})
	}
	data := bytes.Repeat([]byte("pooled buffers "), 500)
	// write order shuffle, fletcher32, deflate: inflating gives a pooled
	// buffer that the checksum filter then trims in place
	sum := shuffled(data, 8)
	sum = binary.LittleEndian.AppendUint32(sum, checksumFletcher32(sum))
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, 1)
	w.Write(sum)
	w.Close()
	jobs = append(jobs, job{[]Filter{{ID: FilterShuffle, ClientData: []uint32{8}}, {ID: FilterFletcher32}, {ID: FilterDeflate}}, 0, bytes.Clone(z.Bytes()), data})
	// and a last stage that passes its pooled input through
	z.Reset()
	w.Reset(&z)
	w.Write(data)
	w.Close()
	jobs = append(jobs, job{[]Filter{{ID: FilterShuffle, ClientData: []uint32{1}}, {ID: FilterDeflate}}, 0, bytes.Clone(z.Bytes()), data})
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for k := 0; k < 20; k++ {
				for i := range jobs {
					j := jobs[(i+g*7)%len(jobs)]
					got, err := decodeChunk(j.pipeline, j.mask, j.in, len(j.want))
					if err != nil || !bytes.Equal(got, j.want) {
						errs <- fmt.Errorf("job %d: wrong result (%v)", (i+g*7)%len(jobs), err)
						return
					}
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestDecodeChunkBoundedMemory feeds streams that claim or expand to far
// more than the chunk size and checks that decoding fails without
// allocating for them.
func TestDecodeChunkBoundedMemory(t *testing.T) {
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, 9)
	w.Write(make([]byte, 16<<20))
	w.Close()
	enc, _ := zstd.NewWriter(nil)
	zst := enc.EncodeAll(make([]byte, 16<<20), nil)
	lz := binary.BigEndian.AppendUint64(nil, 1<<40)
	lz = binary.BigEndian.AppendUint32(lz, 1<<30)
	bl := []byte{2, 1, 0, 8, 0xff, 0xff, 0xff, 0x7f, 0, 0, 1, 0, 0, 0, 0, 0}
	lzf := []byte{0, 0}
	for i := 0; i < 10000; i++ {
		lzf = append(lzf, 7<<5, 255, 0)
	}
	cases := []struct {
		name     string
		pipeline []Filter
		in       []byte
	}{
		{"deflate", []Filter{{ID: FilterDeflate}}, z.Bytes()},
		{"zstd", []Filter{{ID: FilterZstd}}, zst},
		{"lz4", []Filter{{ID: FilterLZ4}}, lz},
		{"blosc", []Filter{{ID: FilterBlosc}}, bl},
		{"lzf", []Filter{{ID: FilterLZF}}, lzf},
		{"scaleoffset", []Filter{{ID: FilterScaleOffset, ClientData: soParms(2, 0, 1<<31, 0, 8, 0, 0, 0)}}, soChunk(3, 0)},
		{"nbit", []Filter{{ID: FilterNBit, ClientData: []uint32{8, 0, 1 << 31, nbitAtomic, 8, 0, 3, 0}}}, []byte{0}},
		{"deflate under shuffle", []Filter{{ID: FilterShuffle, ClientData: []uint32{8}}, {ID: FilterDeflate}}, z.Bytes()},
	}
	for _, c := range cases { // warm up pools and the shared zstd decoder
		decodeChunk(c.pipeline, 0, c.in, 4096)
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := decodeChunk(c.pipeline, 0, c.in, 4096)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: allocated %d bytes for a 4096-byte chunk", c.name, n)
		}
	}
}

// pipelineMessage encodes filters as a version 1 or 2 pipeline message.
func pipelineMessage(version byte, filters []Filter) []byte {
	b := []byte{version, byte(len(filters))}
	if version == 1 {
		b = append(b, 0, 0, 0, 0, 0, 0)
	}
	for _, f := range filters {
		b = binary.LittleEndian.AppendUint16(b, f.ID)
		var name []byte
		if f.Name != "" {
			name = append([]byte(f.Name), 0)
		}
		if version == 1 {
			for len(name)%8 != 0 {
				name = append(name, 0)
			}
		}
		if version == 1 || f.ID >= 256 {
			b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
		}
		b = binary.LittleEndian.AppendUint16(b, f.Flags)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(f.ClientData)))
		if version == 1 || f.ID >= 256 {
			b = append(b, name...)
		}
		for _, v := range f.ClientData {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
		if version == 1 && len(f.ClientData)%2 == 1 {
			b = append(b, 0, 0, 0, 0)
		}
	}
	return b
}

func TestParsePipeline(t *testing.T) {
	filters := []Filter{
		{ID: FilterShuffle, Name: "shuffle", Flags: 1, ClientData: []uint32{8}},
		{ID: FilterDeflate, Name: "deflate", Flags: 1, ClientData: []uint32{6}},
		{ID: FilterFletcher32, Name: "fletcher32"},
		{ID: FilterLZF, Name: "lzf", Flags: 1, ClientData: []uint32{4, 261, 80000}},
		{ID: 40000, Flags: 0, ClientData: []uint32{1, 2}},
	}
	for _, version := range []byte{1, 2} {
		msg := pipelineMessage(version, filters)
		got, err := parsePipeline(append(msg, 0, 0, 0, 0), 0)
		if err != nil {
			t.Fatalf("version %d: %v", version, err)
		}
		exp := make([]Filter, len(filters))
		copy(exp, filters)
		for i := range exp {
			if version == 2 && exp[i].ID < 256 {
				exp[i].Name = ""
			}
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("version %d:\n got %+v\nwant %+v", version, got, exp)
		}
		for cut := 0; cut < len(msg); cut++ {
			if _, err := parsePipeline(msg[:cut], 0x100); err == nil {
				t.Errorf("version %d cut to %d bytes: no error", version, cut)
			}
		}
	}
	v1 := pipelineMessage(1, filters[:1])
	binary.LittleEndian.PutUint16(v1[10:], 12) // name length not a multiple of 8
	many := pipelineMessage(2, make([]Filter, 33))
	bigCD := pipelineMessage(2, filters[:1])
	binary.LittleEndian.PutUint16(bigCD[6:], 0xffff)
	for _, tc := range []struct {
		name, error string
		in          []byte
	}{
		{"name length", "multiple of 8", v1},
		{"too many", "33 filters", many},
		{"client data", "truncated", bigCD},
		{"version 3", "version 3 not supported", []byte{3, 0, 0, 0}},
		{"version 0", "version 0 not supported", []byte{0, 0}},
		{"empty", "truncated", nil},
	} {
		_, err := parsePipeline(tc.in, 0x200)
		if err == nil || !strings.Contains(err.Error(), tc.error) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.error)
		}
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Offset < 0x200 {
			t.Errorf("%s: %v is not a FormatError with the message address", tc.name, err)
		}
	}
}

// BenchmarkDecodeDeflateShuffle decodes a chunk of 1e6 float64 stored with
// shuffle and deflate level 4, the most common HDF5 pipeline.
func BenchmarkDecodeDeflateShuffle(b *testing.B) {
	const n = 1_000_000
	raw := make([]byte, 8*n)
	r := rand.New(rand.NewSource(7))
	for i := 0; i < n; i++ {
		v := math.Sin(float64(i)/1000)*100 + r.NormFloat64()*0.01
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	var z bytes.Buffer
	w, _ := zlib.NewWriterLevel(&z, 4)
	w.Write(shuffled(raw, 8))
	w.Close()
	p := []Filter{{ID: FilterShuffle, ClientData: []uint32{8}}, {ID: FilterDeflate, ClientData: []uint32{4}}}
	got, err := decodeChunk(p, 0, z.Bytes(), len(raw))
	if err != nil || !bytes.Equal(got, raw) {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := decodeChunk(p, 0, z.Bytes(), len(raw)); err != nil {
			b.Fatal(err)
		}
	}
}
