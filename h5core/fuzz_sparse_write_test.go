package h5core

import (
	"bytes"
	"slices"
	"testing"
)

// FuzzSparseChunkRoundTrip encodes a structured chunk from a fuzzed set
// of defined positions (a bitmap over a chunk of fuzzed shape, rank 1-3)
// and decodes it with the reader: the same positions in row-major order
// with the same values, and an encoding no larger than the point list.
func FuzzSparseChunkRoundTrip(f *testing.F) {
	f.Add([]byte{1, 5, 0b01110}, []byte{1, 2, 3})
	f.Add([]byte{2, 4, 5, 0b00000111, 0b11000001, 0b1100}, []byte{9})
	f.Add([]byte{3, 2, 3, 4, 0xff, 0xff, 0xff}, []byte{0})
	f.Add([]byte{2, 3, 3, 0b10101010, 0b1}, []byte{7, 7})
	f.Fuzz(func(t *testing.T, spec, seed []byte) {
		if len(spec) < 2 {
			return
		}
		rank := int(spec[0])%3 + 1
		if len(spec) < 1+rank {
			return
		}
		shape := make([]uint64, rank)
		for i := range shape {
			shape[i] = uint64(spec[1+i])%9 + 1
		}
		bitmap := spec[1+rank:]
		var idx []uint64
		for p := uint64(0); p < product(shape); p++ {
			if int(p/8) < len(bitmap) && bitmap[p/8]&(1<<(p%8)) != 0 {
				idx = append(idx, p)
			}
		}
		if len(idx) == 0 {
			return
		}
		const es = 2
		vals := make([]byte, len(idx)*es)
		for i := range vals {
			if len(seed) > 0 {
				vals[i] = seed[i%len(seed)] + byte(i)
			}
		}
		ds := testSparseDataset(shape, es)
		scaled := make([]uint64, rank)
		enc, rec, err := ds.encodeSparseChunk(scaled, shape, idx, vals)
		if err != nil {
			t.Fatal(err)
		}
		loc := chunkLoc{scaled: scaled, size: uint64(len(enc)), stc: rec}
		sel, got, err := ds.decodeStructuredBytes(loc, enc, true)
		if err != nil {
			t.Fatalf("encoded %x: %v", enc, err)
		}
		if pos := selIndices(t, sel); !slices.Equal(pos, idx) || !bytes.Equal(got, vals) {
			t.Fatalf("shape %v: wrote %v %x, read %v %x", shape, idx, vals, pos, got)
		}
		if limit := 7 + 8 + 16*rank + 16 + 8 + 4*rank*len(idx) + 4; int(rec.offsets[1]) > limit {
			t.Fatalf("section 0 of %d bytes, the point list takes %d", rec.offsets[1], limit)
		}
	})
}

// testSparseDataset is an unfiltered sparse dataset without a file, for
// encoding chunks: extent = one chunk of the given shape.
func testSparseDataset(shape []uint64, es uint64) *Dataset {
	return &Dataset{
		Object: &Object{f: &File{name: "test.h5"}, Path: "/sparse"},
		geom:   &chunkGeom{dims: shape, maxDims: shape, chunk: shape, elemSize: es},
		layout: &layout{chunk: shape, stc: &stcLayout{typ: stcSparse, elemSize: es, sections: 2, meta: []uint8{0}, csl: 8}},
	}
}
