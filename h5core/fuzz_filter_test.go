package h5core

import (
	"encoding/hex"
	"math/rand"
	"reflect"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzDecodeChunk decodes arbitrary chunks through arbitrary pipeline
// messages: no input may panic, and a success must give size bytes. The
// seeds are the real chunks of testdata/filters and filters_plugins with
// their pipelines, and a few made here.
func FuzzDecodeChunk(f *testing.F) {
	for _, c := range append(loadCorpus(f), loadCorpusDir(f, "filters_plugins")...) {
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
