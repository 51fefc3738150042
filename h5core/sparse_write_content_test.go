package h5core

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergeSparse applies random rounds of edits through mergeSparse and
// checks every content against the chunk rebuilt from scratch: the same
// positions and values, the neighbour-pair count countPairs gives, and,
// when merged as a point list, exactly the bytes encodeChunkSelection
// and its checksum give (the encoding it chooses must be points).
func TestMergeSparse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shape   []uint64
		edits   int     // per round
		erase   float64 // share of erases
		density float64 // positions drawn from the first density share
	}{
		{"rows", []uint64{100, 1000}, 30, 0.1, 1},
		{"rank1", []uint64{5000}, 40, 0.2, 1},
		{"rank3", []uint64{6, 7, 8}, 10, 0.3, 1},
		{"crowded", []uint64{8, 8}, 12, 0.2, 1},       // blocks: the hyperslab way
		{"filling", []uint64{4, 4}, 6, 0.05, 1},       // every position defined: "all"
		{"corner", []uint64{50, 50}, 20, 0.5, 0.1},    // erases meet defines
		{"overwrite", []uint64{10, 10}, 15, 0, 0.3},   // the same positions again
		{"one", []uint64{1, 1}, 1, 0.5, 1},            // a chunk of one element
		{"column", []uint64{300, 1}, 25, 0.2, 1},      // neighbours along the first dimension only
		{"wide", []uint64{2, 1 << 20}, 50, 0.1, 0.01}, // neighbours rare
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(tc.name))))
			total := product(tc.shape)
			want := map[uint64][]byte{}
			c := &SparseContent{}
			for round := range 60 {
				var edits []SparseEdit
				for range tc.edits {
					e := SparseEdit{Pos: r.Uint64N(max(1, uint64(float64(total)*tc.density)))}
					if r.Float64() >= tc.erase {
						e.Val = binary.LittleEndian.AppendUint16(nil, uint16(r.IntN(3)))
					}
					edits = append(edits, e)
				}
				slices.SortStableFunc(edits, func(a, b SparseEdit) int { return int(a.Pos) - int(b.Pos) })
				edits = slices.CompactFunc(edits, func(a, b SparseEdit) bool { return a.Pos == b.Pos })
				before := len(want)
				changed := false
				for _, e := range edits {
					old, had := want[e.Pos]
					switch {
					case e.Val == nil:
						changed = changed || had
						delete(want, e.Pos)
					default:
						changed = changed || !had || !bytes.Equal(old, e.Val)
						want[e.Pos] = e.Val
					}
				}
				nc, gotChanged, err := mergeSparse(tc.shape, 2, c, edits)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if gotChanged != changed {
					t.Fatalf("round %d: changed %v, want %v (%d -> %d elements)", round, gotChanged, changed, before, len(want))
				}
				idx, vals := nc.Positions()
				wantIdx := slices.Sorted(func(yield func(uint64) bool) {
					for p := range want {
						if !yield(p) {
							return
						}
					}
				})
				var wantVals []byte
				for _, p := range wantIdx {
					wantVals = append(wantVals, want[p]...)
				}
				if !slices.Equal(idx, wantIdx) || !bytes.Equal(vals, wantVals) {
					t.Fatalf("round %d: positions %v values %v, want %v %v", round, idx, vals, wantIdx, wantVals)
				}
				if changed && nc.pairs != countPairs(tc.shape, idx) {
					t.Fatalf("round %d: %d neighbour pairs, counted %d", round, nc.pairs, countPairs(tc.shape, idx))
				}
				if nc.raw != nil {
					sel, kind, err := encodeChunkSelection(nil, tc.shape, idx)
					if err != nil {
						t.Fatal(err)
					}
					if kind != SelectPoints {
						t.Fatalf("round %d: merged as a point list where the encoding chooses %v", round, kind)
					}
					sel = binary.LittleEndian.AppendUint32(sel, lookup3(sel, 0))
					if !bytes.Equal(nc.raw, append(sel, vals...)) {
						t.Fatalf("round %d: point-list chunk differs from the encoding from scratch", round)
					}
				}
				c = nc
			}
		})
	}
}
