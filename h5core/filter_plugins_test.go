package h5core

import (
	"bytes"
	"encoding/binary"
	"hash/adler32"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// TestDecodeChunkPluginCorpus decodes the chunks third-party filters wrote
// (gen_filters_plugins.py: bitshuffle alone and with LZ4, block sizes
// default/64/16 with partial last blocks and leftover elements, 1- to
// 12-byte elements; PyTables' LZO on CArrays and a Table, with shuffle,
// incompressible data stored raw by mask; PyTables' bzip2; gen_filters_zfp.py:
// H5Z-ZFP's fixed rate, precision, accuracy, expert and reversible modes
// for float32, float64, int32 and int64 in 1-3-D with partial blocks, and
// tiny, huge and subnormal floats; gen_filters_blosc2.py: the HDF Group's
// Blosc2 plugin in every codec but zlib, with shuffles, delta, stored,
// special-value and run chunks, set block sizes and 2-4-D B2ND chunks) and
// compares them byte for byte with what libhdf5 read back through the same
// filters (for zfp's lossy modes, libzfp's own decoding; for Blosc2,
// libhdf5 2.0 through the plugin).
func TestDecodeChunkPluginCorpus(t *testing.T) {
	zfp := loadCorpusDir(t, "filters_zfp")
	if len(zfp) < 60 {
		t.Fatalf("only %d zfp cases", len(zfp))
	}
	blosc2 := loadCorpusDir(t, "filters_blosc2")
	if len(blosc2) < 20 {
		t.Fatalf("only %d blosc2 cases", len(blosc2))
	}
	for _, c := range append(append(loadCorpusDir(t, "filters_plugins"), zfp...), blosc2...) {
		t.Run(c.Name, func(t *testing.T) {
			chunk := c.read(t, c.Name+".chunk.bin")
			got, err := decodeChunk(c.pipeline(), c.Mask, chunk, c.Size)
			if err != nil {
				t.Fatal(err)
			}
			if want := c.read(t, c.Expect); !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("decoded %d bytes differ from the expected %d at byte %d", len(got), len(want), i)
			}
			// damaged: cut or mis-sized chunks fail cleanly
			if c.Mask != 0 {
				return
			}
			for _, cut := range []int{0, 1, len(chunk) / 2, len(chunk) - 1} {
				if _, err := decodeChunk(c.pipeline(), c.Mask, chunk[:cut], c.Size); err == nil {
					t.Errorf("cut to %d bytes: no error", cut)
				}
			}
			for _, size := range []int{0, c.Size - 1, c.Size + 1} {
				if _, err := decodeChunk(c.pipeline(), c.Mask, chunk, size); err == nil {
					t.Errorf("decoded to %d bytes instead of %d: no error", size, c.Size)
				}
			}
		})
	}
}

// pluginCase returns the named case of testdata/filters_plugins.
func pluginCase(t *testing.T, name string) corpusCase {
	t.Helper()
	for _, c := range loadCorpusDir(t, "filters_plugins") {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %s in testdata/filters_plugins", name)
	return corpusCase{}
}

// TestLZOChecksumForm reads the form of PyTables' LZO chunks that older
// versions wrote: the stream, its Adler-32 and decoded size.
func TestLZOChecksumForm(t *testing.T) {
	c := pluginCase(t, "lzo_f64")
	chunk, want := c.read(t, c.Name+".chunk.bin"), c.read(t, c.Expect)
	tail := binary.LittleEndian.AppendUint32(nil, adler32.Checksum(want))
	tail = binary.LittleEndian.AppendUint32(tail, uint32(len(want)))
	badSum := bytes.Clone(tail)
	badSum[0] ^= 1
	badSize := bytes.Clone(tail)
	badSize[4] ^= 1
	tests := []struct {
		name string
		tail []byte
		ok   bool
	}{
		{"checksum and size", tail, true},
		{"wrong checksum", badSum, false},
		{"wrong size", badSize, false},
		{"4 stray bytes", tail[:4], false},
	}
	for _, tc := range tests {
		got, err := decodeChunk(c.pipeline(), 0, append(bytes.Clone(chunk), tc.tail...), c.Size)
		if tc.ok && (err != nil || !bytes.Equal(got, want)) {
			t.Errorf("%s: %v", tc.name, err)
		}
		if !tc.ok && err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestBitshuffleZstd checks bitshuffle's zstd mode (3), which Debian's
// bitshuffle 0.3.5 cannot write: the LZ4 chunks of the corpus, each block
// recompressed with zstd, must decode to the same values.
func TestBitshuffleZstd(t *testing.T) {
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range loadCorpusDir(t, "filters_plugins") {
		p := c.pipeline()
		if !strings.HasPrefix(c.Name, "bshuf_lz4") || len(p) != 1 {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			chunk, want := c.read(t, c.Name+".chunk.bin"), c.read(t, c.Expect)
			es := int(p[0].ClientData[2])
			total := int(binary.BigEndian.Uint64(chunk))
			block := int(binary.BigEndian.Uint32(chunk[8:]))
			out := bytes.Clone(chunk[:12])
			in := chunk[12:]
			for left := total / es; left >= 8; {
				m := min(block/es, left/8*8)
				cs := int(binary.BigEndian.Uint32(in))
				raw := make([]byte, m*es)
				if _, err := lz4.UncompressBlock(in[4:4+cs], raw); err != nil {
					t.Fatal(err)
				}
				z := enc.EncodeAll(raw, nil)
				out = binary.BigEndian.AppendUint32(out, uint32(len(z)))
				out = append(out, z...)
				in = in[4+cs:]
				left -= m
			}
			out = append(out, in...) // leftover elements
			p[0].ClientData = append(p[0].ClientData[:4:4], bshufZstd)
			got, err := decodeChunk(p, 0, out, c.Size)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatal("zstd mode decodes differently from LZ4 mode")
			}
		})
	}
}

func TestFilterDecodable(t *testing.T) {
	for _, tc := range []struct {
		id   uint16
		want bool
	}{
		{FilterDeflate, true}, {FilterBzip2, true}, {FilterLZO, true}, {FilterBitshuffle, true},
		{FilterZFP, true}, {FilterBlosc2, true}, {32017, false}, {40000, false},
	} {
		if got := FilterDecodable(tc.id); got != tc.want {
			t.Errorf("FilterDecodable(%d) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
