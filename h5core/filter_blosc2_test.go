package h5core

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// blosc2TestHeader returns a 32-byte Blosc2 chunk header, followed by
// zeros up to cbytes.
func blosc2TestHeader(flags, typesize byte, nbytes, blocksize, cbytes int, filters [6]byte, udcodec, b2flags byte) []byte {
	h := make([]byte, 32)
	h[0], h[1], h[2], h[3] = 5, 1, flags|blosc2Extended, typesize
	binary.LittleEndian.PutUint32(h[4:], uint32(nbytes))
	binary.LittleEndian.PutUint32(h[8:], uint32(blocksize))
	binary.LittleEndian.PutUint32(h[12:], uint32(cbytes))
	copy(h[16:], filters[:])
	h[22] = udcodec
	h[31] = b2flags
	return append(h, make([]byte, max(0, cbytes-len(h)))...) // padded to its stored size
}

// TestBlosc2Chunks decodes hand-made chunks of the forms the plugin's
// corpus lacks: special-value chunks, stored chunks, a Blosc1 header, and
// the features h5core refuses by name.
func TestBlosc2Chunks(t *testing.T) {
	var none [6]byte
	f4 := func(v float32, n int) []byte {
		var b []byte
		for range n {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		return b
	}
	nan8 := binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN()))
	value := append(blosc2TestHeader(0, 4, 40, 40, 32, none, 0, blosc2SpecialValue<<4), f4(2.5, 1)...)
	binary.LittleEndian.PutUint32(value[12:], 36)
	stored := append(blosc2TestHeader(bloscMemcpyed, 1, 5, 5, 32, none, 0, 0), "hello"...)
	binary.LittleEndian.PutUint32(stored[12:], 37)
	// one unsplit block of a byte run (negative size, token) and a zero stream
	runs := blosc2TestHeader(bloscDontSplit, 1, 8, 4, 32, none, 0, 0)
	binary.LittleEndian.PutUint32(runs[12:], 32+8+5+4)
	runs = binary.LittleEndian.AppendUint32(runs, 40)
	runs = binary.LittleEndian.AppendUint32(runs, 45)
	runs = append(binary.LittleEndian.AppendUint32(runs, uint32(0x100000000-7)), 1)
	runs = binary.LittleEndian.AppendUint32(runs, 0)
	blosc1 := bloscFrameHeader(bloscMemcpyed, 1, 3, 3, 19)
	blosc1 = append(blosc1, "abc"...)
	tests := []struct {
		name  string
		chunk []byte
		size  int
		want  []byte
		err   string
	}{
		{"zeros", blosc2TestHeader(0, 4, 40, 40, 32, none, 0, blosc2SpecialZero<<4), 40, make([]byte, 40), ""},
		{"uninitialized", blosc2TestHeader(0, 4, 8, 8, 32, none, 0, blosc2SpecialUninit<<4), 8, make([]byte, 8), ""},
		{"NaN f8", blosc2TestHeader(0, 8, 16, 16, 32, none, 0, blosc2SpecialNaN<<4), 16, append(nan8, nan8...), ""},
		{"NaN f4", blosc2TestHeader(0, 4, 8, 8, 32, none, 0, blosc2SpecialNaN<<4), 8, f4(float32(math.NaN()), 2), ""},
		{"repeated value", value, 40, f4(2.5, 10), ""},
		{"stored", stored, 5, []byte("hello"), ""},
		{"runs", runs, 8, []byte{7, 7, 7, 7, 0, 0, 0, 0}, ""},
		{"blosc1 header", blosc1, 3, []byte("abc"), ""},
		{"NaN of 2-byte items", blosc2TestHeader(0, 2, 8, 8, 32, none, 0, blosc2SpecialNaN<<4), 8, nil, "NaN chunk of 2-byte items"},
		{"unknown special", blosc2TestHeader(0, 4, 8, 8, 32, none, 0, 6<<4), 8, nil, "unknown special value kind 6"},
		{"value truncated", value[:34], 40, nil, "truncated"},
		{"stored size mismatch", stored[:36], 4, nil, "truncated"},
		{"plugin codec", blosc2TestHeader(blosc2UDCodec<<5, 4, 8, 8, 36, none, 32, 0), 8, nil, "blosc2 codec 32 (a plugin codec) not supported"},
		{"dictionary", blosc2TestHeader(0, 4, 8, 8, 36, none, 0, blosc2UseDict), 8, nil, "dictionary"},
		{"lazy", blosc2TestHeader(0, 4, 8, 8, 36, none, 0, blosc2Lazy), 8, nil, "lazy chunk"},
		{"plugin filter", blosc2TestHeader(0, 4, 8, 8, 40, [6]byte{0, 0, 0, 0, 0, 35}, 0, 0), 8, nil, "blosc2 filter 35 not supported"},
		{"delta before shuffle", blosc2TestHeader(0, 4, 8, 8, 40, [6]byte{0, 0, 0, 0, blosc2Shuffle, blosc2DeltaCode}, 0, 0), 8, nil, "shuffle after the delta"},
		{"larger than the chunk", blosc2TestHeader(0, 4, 80, 80, 32, none, 0, blosc2SpecialZero<<4), 40, nil, "more than the 40 expected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeChunk([]Filter{{ID: FilterBlosc2}}, 0, tc.chunk, tc.size)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("got %x, want %x", got, tc.want)
			}
		})
	}
}

// TestBlosc2BareZlibChunk decodes a bare Blosc2 chunk (no frame, as older
// PyTables plugins stored them) with the zlib codec, which the plugin build
// that wrote the corpus lacks: two blocks of byte-shuffled int32s, the first
// split into one zlib stream per byte of the item, the last (short) block
// one stream.
func TestBlosc2BareZlibChunk(t *testing.T) {
	const n, blockItems = 300, 200
	want := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(want[4*i:], uint32(i*i))
	}
	deflate := func(b []byte) []byte {
		var buf bytes.Buffer
		w := zlib.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	var blocks [][]byte
	for start := 0; start < len(want); start += 4 * blockItems {
		block := want[start:min(len(want), start+4*blockItems)]
		shuffled, err := encodeShuffle([]uint32{4}, block)
		if err != nil {
			t.Fatal(err)
		}
		nstreams := 4
		if len(block) < 4*blockItems {
			nstreams = 1
		}
		var b []byte
		part := len(block) / nstreams
		for s := range nstreams {
			z := deflate(shuffled[s*part : (s+1)*part])
			b = append(binary.LittleEndian.AppendUint32(b, uint32(len(z))), z...)
		}
		blocks = append(blocks, b)
	}
	var filters [6]byte
	filters[5] = blosc2Shuffle
	body := make([]byte, 4*len(blocks))
	for i, b := range blocks {
		binary.LittleEndian.PutUint32(body[4*i:], uint32(32+len(body)))
		body = append(body, b...)
	}
	chunk := append(blosc2TestHeader(bloscZlib<<5, 4, len(want), 4*blockItems, 32, filters, 0, 0), body...)
	binary.LittleEndian.PutUint32(chunk[12:], uint32(len(chunk)))
	got, err := decodeChunk([]Filter{{ID: FilterBlosc2}}, 0, chunk, len(want))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("decoded values differ")
	}
}

// TestBlosc2FrameDamage damages the frames of the plugin corpus where the
// decoder must notice: header fields, chunk offsets, the B2ND metalayer.
func TestBlosc2FrameDamage(t *testing.T) {
	for _, name := range []string{"blosc2_lz4_f8", "blosc2_3d_i2"} {
		c := corpusCaseIn(t, "filters_blosc2", name)
		chunk := c.read(t, c.Name+".chunk.bin")
		for _, tc := range []struct {
			what string
			at   int
			val  byte
		}{
			{"header length", b2frameHeaderLen, 0x7f},
			{"frame length", b2frameLen, 0x7f},
			{"decoded size", b2frameNBytes, 0x7f},
			{"stored size", b2frameCBytes, 0x7f},
			{"frame type", b2frameType, 1},
			{"offset width", b2frameFlags, 0x22},
			{"metalayer marker", b2frameMetalayers, 0},
			{"chunk size", b2frameChunksize + 2, 0},
		} {
			bad := bytes.Clone(chunk)
			bad[tc.at] = tc.val
			if _, err := decodeChunk(c.pipeline(), 0, bad, c.Size); err == nil {
				t.Errorf("%s: %s damaged: no error", name, tc.what)
			}
		}
	}
}

// corpusCaseIn returns the named case of a testdata corpus folder.
func corpusCaseIn(t *testing.T, dir, name string) corpusCase {
	t.Helper()
	for _, c := range loadCorpusDir(t, dir) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no case %s in testdata/%s", name, dir)
	return corpusCase{}
}

// FuzzDecodeBlosc2 decodes arbitrary bytes as Blosc2 filter output (frames
// and bare chunks): no input may panic or decode to more than asked.
func FuzzDecodeBlosc2(f *testing.F) {
	for _, c := range loadCorpusDir(f, "filters_blosc2") {
		f.Add(c.read(f, c.Name+".chunk.bin"), uint32(c.Size))
	}
	f.Add(blosc2TestHeader(0, 4, 40, 40, 32, [6]byte{}, 0, blosc2SpecialZero<<4), uint32(40))
	f.Fuzz(func(t *testing.T, chunk []byte, size uint32) {
		size %= 1 << 20
		out, err := decodeBlosc2(nil, chunk, make([]byte, 0, size))
		if err == nil && len(out) > int(size) {
			t.Fatalf("decoded %d bytes into %d", len(out), size)
		}
	})
}
