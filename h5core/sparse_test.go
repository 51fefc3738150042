package h5core

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// envelope returns the H5Sencode envelope with a version-1 extent (max
// dims present) of the given chunk shape, followed by sel.
func envelope(chunk []uint64, sel string) []byte {
	ext := []byte{1, byte(len(chunk)), 1, 0, 0, 0, 0, 0}
	for range 2 {
		for _, c := range chunk {
			ext = binary.LittleEndian.AppendUint64(ext, c)
		}
	}
	b := []byte{1, 0, 8}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(ext)))
	b = append(b, ext...)
	s, err := hex.DecodeString(strings.ReplaceAll(sel, " ", ""))
	if err != nil {
		panic(err)
	}
	return append(b, s...)
}

// positions lists a selection's chunk-relative positions in value order.
func positions(t *testing.T, s *Selection) [][]uint64 {
	t.Helper()
	var out [][]uint64
	err := s.Runs(func(start []uint64, n uint64) error {
		for k := uint64(0); k < n; k++ {
			p := append([]uint64(nil), start...)
			p[len(p)-1] += k
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSelectionEncodings decodes the encodings of the format document's
// worked examples (chunk 4x5).
func TestSelectionEncodings(t *testing.T) {
	chunk := []uint64{4, 5}
	for _, c := range []struct {
		name, sel string
		kind      SelectionKind
		version   int
		regular   bool
		want      [][]uint64
	}{
		{"points v1", "01000000 01000000 00000000 18000000 02000000 02000000 00000000 01000000 02000000 03000000",
			SelectPoints, 1, false, [][]uint64{{0, 1}, {2, 3}}},
		{"points v2 unsorted", "01000000 02000000 02 02000000 0200 0200 0300 0000 0100",
			SelectPoints, 2, false, [][]uint64{{2, 3}, {0, 1}}},
		{"hyper v3 regular", "02000000 03000000 01 02 02000000 0000 0200 0200 0100 0100 0100 0100 0200",
			SelectHyperslab, 3, true, [][]uint64{{0, 1}, {0, 2}, {2, 1}, {2, 2}}},
		{"hyper v1 overlapping blocks", "02000000 01000000 00000000 28000000 02000000 02000000 00000000 00000000 01000000 01000000 01000000 01000000 02000000 02000000",
			SelectHyperslab, 1, false, [][]uint64{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {1, 2}, {2, 1}, {2, 2}}},
		{"hyper v2 irregular", "02000000 02000000 00 00000000 02000000 0100000000000000 0300000000000000 0000000000000000 0300000000000000 0400000000000000",
			SelectHyperslab, 2, false, [][]uint64{{3, 0}, {3, 1}, {3, 2}, {3, 3}, {3, 4}}},
		{"all", "03000000 01000000 00000000 00000000", SelectAll, 1, false, nil},
		{"none", "00000000 01000000 00000000 00000000", SelectNone, 1, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := decodeSelection(envelope(chunk, c.sel), 0, chunk)
			if err != nil {
				t.Fatal(err)
			}
			if s.Kind != c.kind || s.Version != c.version || s.Regular != c.regular {
				t.Fatalf("%s v%d regular %v", s.Kind, s.Version, s.Regular)
			}
			got := positions(t, s)
			if c.kind == SelectAll {
				if len(got) != 20 || s.Len() != 20 {
					t.Fatalf("all: %d positions", len(got))
				}
				return
			}
			if len(got) != len(c.want) || s.Len() != uint64(len(c.want)) {
				t.Fatalf("positions %v (len %d), want %v", got, s.Len(), c.want)
			}
			for i := range got {
				if got[i][0] != c.want[i][0] || got[i][1] != c.want[i][1] {
					t.Fatalf("positions %v, want %v", got, c.want)
				}
			}
			if n := s.CountWithin([]uint64{3, 5}); c.name == "hyper v2 irregular" && n != 0 {
				t.Fatalf("CountWithin = %d, want 0", n)
			}
		})
	}
}

// TestSelectionErrors checks that malformed or out-of-chunk selections
// are errors.
func TestSelectionErrors(t *testing.T) {
	chunk := []uint64{4, 5}
	for name, sel := range map[string]string{
		"point outside":       "01000000 01000000 00000000 18000000 02000000 02000000 00000000 01000000 04000000 03000000",
		"block outside":       "02000000 01000000 00000000 18000000 02000000 01000000 00000000 00000000 01000000 05000000",
		"block reversed":      "02000000 01000000 00000000 18000000 02000000 01000000 02000000 00000000 01000000 01000000",
		"regular outside":     "02000000 03000000 01 02 02000000 0000 0200 0300 0100 0100 0100 0100 0200",
		"rank mismatch":       "01000000 01000000 00000000 18000000 03000000 01000000 00000000 01000000 02000000",
		"truncated points":    "01000000 01000000 00000000 18000000 02000000 09000000 00000000",
		"unknown version":     "02000000 07000000",
		"unknown type":        "09000000 01000000 00000000 00000000",
		"bad encoding size":   "01000000 02000000 03 02000000 020000",
		"stride 0, count > 1": "02000000 03000000 01 02 02000000 0000 0000 0200 0100 0100 0100 0100 0200",
	} {
		if _, err := decodeSelection(envelope(chunk, sel), 0, chunk); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := decodeSelection(envelope([]uint64{4, 6}, "03000000 01000000 00000000 00000000"), 0, chunk); err == nil {
		t.Error("extent differing from the chunk shape: no error")
	}
}

// corrupt returns a copy of the 1-D fixture (format document §11) with
// the changes applied, opened.
func corrupt(t *testing.T, change func(b []byte) []byte) *File {
	t.Helper()
	b, err := os.ReadFile("../sparsecoo/testdata/sparse_1d_int32_fa.h5")
	if err != nil {
		t.Fatal(err)
	}
	b = change(b)
	f, err := NewFile(bytes.NewReader(b), int64(len(b)), "corrupt.h5", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// reseal recomputes the trailing checksum of the n bytes at off.
func reseal(b []byte, off, n int) {
	binary.LittleEndian.PutUint32(b[off+n-4:], lookup3(b[off:off+n-4], 0))
}

// TestSparseCorruption checks that a damaged chunk is a clear error on
// its dataset only: bad section-0 checksum, truncated section 1, chunk
// beyond the end of the file, selection outside its chunk.
func TestSparseCorruption(t *testing.T) {
	const chunk0, fadb = 48, 226 // example_1d: chunk 0, fixed array data block
	for _, c := range []struct {
		name   string
		change func([]byte) []byte
		want   string
	}{
		{"checksum", func(b []byte) []byte { b[chunk0+20] ^= 1; return b }, "section 0 checksum mismatch"},
		{"short section 1", func(b []byte) []byte {
			b[fadb+14+18+8] = 70 // chunk 1: 70 bytes instead of 71
			reseal(b, fadb, 54)
			return b
		}, "section 1 holds 3 bytes"},
		{"chunk past the end", func(b []byte) []byte {
			binary.LittleEndian.PutUint16(b[fadb+14+18+8:], 0xffff)
			reseal(b, fadb, 54)
			return b
		}, "beyond the end of the file"},
		{"selection outside", func(b []byte) []byte {
			b[chunk0+59] = 5 // block end 5 in a chunk of 5
			reseal(b, chunk0, 67)
			return b
		}, "outside its chunk"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := corrupt(t, c.change)
			o, err := f.Open("/example_1d")
			if err != nil {
				t.Fatal(err)
			}
			ds, err := o.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			_, err = ds.NNZ()
			if c.name == "short section 1" {
				if err != nil {
					t.Fatalf("NNZ reads section 0 only, got %v", err)
				}
				_, err = ds.ReadAt(make([]byte, 40), 0)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "/example_1d") || !strings.Contains(err.Error(), "structured chunk [") {
				t.Fatalf("error %v, want one naming the dataset, the chunk and %q", err, c.want)
			}
			if _, err := ds.ReadAt(make([]byte, 40), 0); err == nil {
				t.Fatal("dense read of the damaged dataset succeeded")
			}
			// the other datasets of the file are unaffected
			o, err = f.Open("/int32_fa")
			if err != nil {
				t.Fatal(err)
			}
			other, err := o.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			if n, err := other.NNZ(); err != nil || n != 16 {
				t.Fatalf("other dataset: nnz %d, %v", n, err)
			}
			if _, err := other.ReadAt(make([]byte, 53*4), 0); err != nil {
				t.Fatalf("other dataset: %v", err)
			}
		})
	}
}

// TestLayoutV5Example decodes the layout messages of the format document
// §11 (fixed array; filtered single chunk).
func TestLayoutV5Example(t *testing.T) {
	f := &File{so: 8, sl: 8}
	b, _ := hex.DecodeString("0504000100000201050408020100030ac600000000000000")
	l, err := f.parseLayout(b, 0)
	if err != nil {
		t.Fatal(err)
	}
	if l.class != layoutStructured || l.index != IndexFixedArray || l.addr != 198 || l.pageBits != 10 ||
		l.chunk[0] != 5 || l.stc.elemSize != 4 || l.stc.sections != 2 || l.stc.csl != 2 {
		t.Fatalf("%+v %+v", l, l.stc)
	}
	b, _ = hex.DecodeString("05040001000202010a040802010001" + "3a00" + "2c00000000000000" + "4b00000000000000" + "1000000000000000" + "0000000000000000" + "3000000000000000")
	if l, err = f.parseLayout(b, 0); err != nil {
		t.Fatal(err)
	}
	s := l.stc.single
	if l.index != IndexSingleChunk || s.addr != 48 || s.size != 58 || s.stc.offsets[1] != 44 || s.stc.unfiltered[0] != 75 || s.stc.unfiltered[1] != 16 {
		t.Fatalf("%+v %+v", s, s.stc)
	}
	for _, bad := range []string{
		"0504010100000201050408020100030ac600000000000000", // property version 1
		"0504000100040201050408020100030ac600000000000000", // unknown flag
		"0504000100000201000408020100030ac600000000000000", // chunk dimension 0
		"0504000100000201050404020100030ac600000000000000", // offset size 4
		"0504000100000201050408040100030ac600000000000000", // 4 sections
		"0504000100000201050408020100000ac600000000000000", // v1 B-tree index
		"0404000100000201050408020100030ac600000000000000", // layout v4
	} {
		b, _ := hex.DecodeString(bad)
		if _, err := f.parseLayout(b, 0); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestBuildRunsMatchesSweep compares the linear span-tree builder with
// the general one on random row-major runs of rank 1 to 3.
func TestBuildRunsMatchesSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 500; iter++ {
		rank := 1 + rng.IntN(3)
		var start, end []uint64
		pos := make([]uint64, rank)
		for range rng.IntN(40) {
			// advance to a later row or further along the last dimension
			if rank > 1 && rng.IntN(3) == 0 {
				d := rng.IntN(rank - 1)
				pos[d] += 1 + uint64(rng.IntN(2))
				for k := d + 1; k < rank; k++ {
					pos[k] = uint64(rng.IntN(2))
				}
			}
			lo := pos[rank-1] + uint64(rng.IntN(3))
			hi := lo + uint64(rng.IntN(4))
			start = append(start, pos[:rank-1]...)
			start = append(start, lo)
			end = append(end, pos[:rank-1]...)
			end = append(end, hi)
			pos[rank-1] = hi + 1
		}
		fast := buildRuns(start, end, rank)
		idx := make([]int32, len(start)/rank)
		for i := range idx {
			idx[i] = int32(i)
		}
		slow := buildSpans(start, end, rank, idx, 0)
		if !sameSpans(fast, slow) {
			t.Fatalf("rank %d blocks %v-%v: trees differ", rank, start, end)
		}
	}
}

// TestExpandRunsMatchesSweep compares the span trees of random
// overlapping blocks built through expandRuns with the general builder.
func TestExpandRunsMatchesSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 500; iter++ {
		rank := 1 + rng.IntN(3)
		var start, end []uint64
		for range 1 + rng.IntN(12) {
			for d := 0; d < rank; d++ {
				a := uint64(rng.IntN(6))
				start = append(start, a)
			}
			for d := 0; d < rank; d++ {
				end = append(end, start[len(end)]+uint64(rng.IntN(4)))
			}
		}
		rs, re, ok := expandRuns(start, end, rank)
		if !ok {
			t.Fatal("expandRuns refused a small selection")
		}
		fast := buildRuns(rs, re, rank)
		idx := make([]int32, len(start)/rank)
		for i := range idx {
			idx[i] = int32(i)
		}
		if slow := buildSpans(start, end, rank, idx, 0); !sameSpans(fast, slow) {
			t.Fatalf("rank %d blocks %v-%v: trees differ", rank, start, end)
		}
	}
}

// TestRunBlocksMatchTree checks that a hyperslab of row-major runs, kept
// as its encoded blocks, answers Runs, CountWithin, CountRows, Blocks and
// Encode as the span tree of the same blocks does, for random runs of
// rank 1 to 3 and random limits (edge chunks).
func TestRunBlocksMatchTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 300; iter++ {
		rank := 1 + rng.IntN(3)
		shape := make([]uint64, rank)
		for d := range shape {
			shape[d] = 200
		}
		var start, end []uint64
		pos := make([]uint64, rank)
		for range 1 + rng.IntN(40) {
			if rank > 1 && rng.IntN(3) == 0 {
				d := rng.IntN(rank - 1)
				pos[d] += 1 + uint64(rng.IntN(2))
				for k := d + 1; k < rank; k++ {
					pos[k] = uint64(rng.IntN(2))
				}
			}
			lo := pos[rank-1] + uint64(rng.IntN(2)) // 0: touches the run before
			hi := lo + uint64(rng.IntN(4))
			start = append(append(start, pos[:rank-1]...), lo)
			end = append(append(end, pos[:rank-1]...), hi)
			pos[rank-1] = hi + 1
		}
		n := len(start) / rank
		sel := "02000000 01000000 00000000"
		body := binary.LittleEndian.AppendUint32(nil, uint32(8+8*rank*n))
		body = binary.LittleEndian.AppendUint32(body, uint32(rank))
		body = binary.LittleEndian.AppendUint32(body, uint32(n))
		for i := 0; i < n; i++ {
			for _, v := range start[i*rank : (i+1)*rank] {
				body = binary.LittleEndian.AppendUint32(body, uint32(v))
			}
			for _, v := range end[i*rank : (i+1)*rank] {
				body = binary.LittleEndian.AppendUint32(body, uint32(v))
			}
		}
		got, err := decodeSelection(envelope(shape, sel+hex.EncodeToString(body)), 0, shape)
		if err != nil {
			t.Fatal(err)
		}
		if got.runs == nil {
			t.Fatalf("rank %d runs %v-%v: not kept as runs", rank, start, end)
		}
		spans := buildRuns(start, end, rank)
		want := &Selection{Kind: SelectHyperslab, Version: 1, shape: shape, spans: spans, n: spans.n}
		if got.Len() != want.Len() || !slices.EqualFunc(positions(t, got), positions(t, want), slices.Equal[[]uint64]) {
			t.Fatalf("rank %d runs %v-%v: positions differ", rank, start, end)
		}
		limit := make([]uint64, rank)
		for d := range limit {
			limit[d] = uint64(rng.IntN(8))
			if rng.IntN(2) == 0 {
				limit[d] = shape[d]
			}
		}
		if a, b := got.CountWithin(limit), want.CountWithin(limit); a != b {
			t.Fatalf("rank %d runs %v-%v: CountWithin(%v) = %d, tree %d", rank, start, end, limit, a, b)
		}
		ca, cb := make([]uint64, 210), make([]uint64, 210)
		got.CountRows(limit, 3, ca)
		want.CountRows(limit, 3, cb)
		if !slices.Equal(ca, cb) {
			t.Fatalf("rank %d runs %v-%v: CountRows(%v) differ", rank, start, end, limit)
		}
		ea, err1 := got.Encode()
		eb, err2 := want.Encode()
		if err1 != nil || err2 != nil || !bytes.Equal(ea, eb) {
			t.Fatalf("rank %d runs %v-%v: encodings differ (%v, %v)", rank, start, end, err1, err2)
		}
	}
}
