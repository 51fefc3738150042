package h5core

import (
	"bytes"
	"encoding/hex"
	"math/rand"
	"reflect"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzDecodeChunk decodes arbitrary chunks through arbitrary pipeline
// messages: no input may panic, and a success must give size bytes. The
// seeds are the real chunks of testdata/filters, filters_plugins and
// filters_blosc2 with
// their pipelines, and a few made here.
func FuzzDecodeChunk(f *testing.F) {
	for _, c := range append(append(loadCorpus(f), loadCorpusDir(f, "filters_plugins")...), loadCorpusDir(f, "filters_blosc2")...) {
		msg, err := hex.DecodeString(c.PipelineMsg)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(msg, c.Mask, c.read(f, c.Name+".chunk.bin"), uint32(c.Size))
	}
	f.Add(pipelineMessage(2, []Filter{{ID: FilterNBit, ClientData: []uint32{15, 0, 1, nbitCompound, 2, 2, 1, nbitNoop, 1, 0, nbitAtomic, 1, 0, 2, 0}}}),
		uint32(0), []byte{0x5a, 0x40}, uint32(2))
	f.Add(pipelineMessage(2, []Filter{{ID: FilterScaleOffset, ClientData: soParms(2, 0, 3, 0, 2, 0, 0, 1, 7)}}),
		uint32(0), soChunk(4, 10, 0x1f, 0x20), uint32(6))
	small := []byte("a small chunk, a small chunk, a small chunk")
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pipelineMessage(2, []Filter{{ID: FilterZstd}}), uint32(0), enc.EncodeAll(small, nil), uint32(len(small)))
	f.Add(pipelineMessage(2, []Filter{{ID: FilterLZ4}}), uint32(0), lz4Frame(f, small, 16), uint32(len(small)))
	// SZIP with every coding option, references and a padded scanline
	sz := szipParams{szipNN | szipMSB, 8, 12, 20}
	szData := szipTestData(rand.New(rand.NewSource(1)), "walk", 50, 2, 12, true)
	f.Add(pipelineMessage(2, []Filter{sz.filter()}), uint32(0),
		szipEncode(sz, szData, szipRandomPick(rand.New(rand.NewSource(2)))), uint32(len(szData)))
	f.Fuzz(func(t *testing.T, msg []byte, mask uint32, chunk []byte, size uint32) {
		pipeline, err := parsePipeline(msg, 0)
		if err != nil {
			return
		}
		size %= 1 << 17
		out, err := decodeChunk(pipeline, mask, chunk, int(size))
		if err == nil && len(out) != int(size) {
			t.Fatalf("decoded %d bytes, want %d", len(out), size)
		}
	})
}

// FuzzParsePipeline parses arbitrary messages: no input may panic, and a
// parsed pipeline must encode back to a message that parses the same.
func FuzzParsePipeline(f *testing.F) {
	for _, c := range loadCorpus(f) {
		msg, err := hex.DecodeString(c.PipelineMsg)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(msg)
	}
	named := []Filter{{ID: 40000, Name: "a name of many bytes", Flags: 1, ClientData: []uint32{1, 2, 3}}}
	f.Add(pipelineMessage(1, named))
	f.Add(pipelineMessage(2, named))
	f.Fuzz(func(t *testing.T, msg []byte) {
		filters, err := parsePipeline(msg, 0)
		if err != nil {
			return
		}
		if len(filters) > maxFilters {
			t.Fatalf("%d filters", len(filters))
		}
		again, err := parsePipeline(pipelineMessage(msg[0], filters), 0)
		if err != nil || !reflect.DeepEqual(again, filters) {
			t.Fatalf("re-encoded pipeline parses as %+v, %v; want %+v", again, err, filters)
		}
	})
}

// FuzzEncodeChunk runs arbitrary data through pipelines of the filters
// h5core can write, chosen and parameterized by the fuzzer: encodeChunk
// must not fail on valid parameters, and decodeChunk must give the data
// back (skipped optional filters included, by the mask).
func FuzzEncodeChunk(f *testing.F) {
	f.Add([]byte{0, 6}, []byte("an HDF5 chunk, an HDF5 chunk, an HDF5 chunk"))
	f.Add([]byte{1, 4, 0, 9, 2, 0}, bytes.Repeat([]byte{1, 0, 0, 0, 2, 0, 0, 0}, 100))
	f.Add([]byte{3, 0, 1, 0}, bytes.Repeat([]byte("lzf "), 500))
	f.Add([]byte{4, 16, 5, 3}, bytes.Repeat([]byte("lz4 and zstd"), 300))
	f.Add([]byte{6, 0}, []byte{})
	f.Add([]byte{7, 0, 0, 6}, bytes.Repeat([]byte{1, 2, 3, 250}, 50))
	f.Add([]byte{8, 5, 2, 0}, bytes.Repeat([]byte{9, 10, 11, 5}, 50))
	f.Fuzz(func(t *testing.T, spec, data []byte) {
		var p []Filter
		for i := 0; i+1 < len(spec) && len(p) < 6; i += 2 {
			arg := uint32(spec[i+1])
			switch spec[i] % 9 {
			case 0:
				p = append(p, Filter{ID: FilterDeflate, ClientData: []uint32{arg % 10}})
			case 1:
				p = append(p, Filter{ID: FilterShuffle, ClientData: []uint32{arg%16 + 1}})
			case 2:
				p = append(p, Filter{ID: FilterFletcher32})
			case 3:
				p = append(p, Filter{ID: FilterLZF, Flags: 1})
			case 4:
				p = append(p, Filter{ID: FilterLZ4, ClientData: []uint32{arg * 64}})
			case 5:
				p = append(p, Filter{ID: FilterZstd, ClientData: []uint32{arg % 23}})
			case 6:
				p = append(p, Filter{ID: 40000 + uint16(arg), Flags: 1}) // no encoder: skipped
			case 7: // the packing filters see the chunk's elements, so come first: bytes here
				if len(p) == 0 {
					p = append(p, Filter{ID: FilterNBit, ClientData: []uint32{8, 0, uint32(len(data)), nbitAtomic, 1, 0, 8, 0}})
				}
			case 8:
				if len(p) == 0 {
					p = append(p, Filter{ID: FilterScaleOffset, ClientData: soParms(2, 0, uint32(len(data)), 0, 1, arg&1, 0, arg>>1&1, arg>>2)})
				}
			}
		}
		enc, mask, err := encodeChunk(p, data)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		got, err := decodeChunk(p, mask, enc, len(data))
		if err != nil {
			t.Fatalf("%+v (mask %#x): %v", p, mask, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%+v (mask %#x): round trip changed the data", p, mask)
		}
	})
}
