package arrowexport

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/internal/sparsetest"
)

// TestSparseCSRBuild checks the CSR arrays and the COO columns, built
// chunk row by chunk row, against the CSR form (rows in order, columns
// ascending within a row, as scipy's) of the elements they were written
// from: matrices of one full-width chunk per chunk row written as run
// blocks (internal/sparsetest, with an edge chunk row and empty rows),
// and matrices of several chunks per chunk row written by h5core (span
// tree hyperslabs, point and "all" selections, edge chunks, empty chunks,
// filtered sections). Arrays are read whole and in pieces that split
// elements.
func TestSparseCSRBuild(t *testing.T) {
	dir := t.TempDir()
	type csr struct {
		rows, cols uint64
		indptr     []int64
		indices    []int64
		data       []float64
	}
	cases := map[string]func(t *testing.T) (string, csr){}
	for _, c := range []struct {
		name              string
		rows, cols, chunk uint64
		density           float64
	}{
		{"runs", 203, 97, 16, 0.2},
		{"runs_one_chunk", 40, 1000, 64, 0.3},
		{"runs_sparse", 500, 30, 7, 0.02},
		{"runs_large", 2000, 700, 128, 0.1}, // reads split between cores, several COO units
	} {
		cases[c.name] = func(t *testing.T) (string, csr) {
			m := sparsetest.RandomMatrix(c.rows, c.cols, c.density, 5)
			p := filepath.Join(dir, c.name+".h5")
			if err := sparsetest.WriteFile(p, m, c.chunk); err != nil {
				t.Fatal(err)
			}
			return p, csr{m.Rows, m.Cols, m.Indptr, m.Indices, m.Data}
		}
	}
	deflate := []h5core.Filter{{ID: h5core.FilterDeflate, ClientData: []uint32{4}}}
	for _, c := range []struct {
		name        string
		dims, chunk []uint64
		filters     [][]h5core.Filter
	}{
		{"chunks", []uint64{61, 45}, []uint64{7, 10}, nil},
		{"chunks_filtered", []uint64{61, 45}, []uint64{7, 10}, [][]h5core.Filter{deflate, deflate}},
		{"chunks_values_filtered", []uint64{33, 50}, []uint64{4, 3}, [][]h5core.Filter{nil, deflate}},
		{"column_chunks", []uint64{20, 64}, []uint64{20, 1}, nil},
	} {
		cases[c.name] = func(t *testing.T) (string, csr) {
			p := filepath.Join(dir, c.name+".h5")
			return p, writeChunked(t, p, c.dims, c.chunk, c.filters, func(rows, cols []uint64, vals []float64) csr {
				m := csr{rows: c.dims[0], cols: c.dims[1], indptr: make([]int64, c.dims[0]+1)}
				order := make([]int, len(rows))
				for i := range order {
					order[i] = i
				}
				slices.SortFunc(order, func(a, b int) int {
					return int(rows[a]*c.dims[1]+cols[a]) - int(rows[b]*c.dims[1]+cols[b])
				})
				for _, i := range order {
					m.indptr[rows[i]+1]++
					m.indices = append(m.indices, int64(cols[i]))
					m.data = append(m.data, vals[i])
				}
				for r := 1; r < len(m.indptr); r++ {
					m.indptr[r] += m.indptr[r-1]
				}
				return m
			})
		}
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			path, want := build(t)
			_, m, done := openSparse(t, path, "/X")
			defer done()
			if m.NNZ() != uint64(len(want.data)) || len(want.data) == 0 {
				t.Fatalf("nnz %d, want %d (> 0)", m.NNZ(), len(want.data))
			}
			ints := func(v []int64) []byte {
				var b []byte
				for _, x := range v {
					b = binary.LittleEndian.AppendUint64(b, uint64(x))
				}
				return b
			}
			var data, rows []byte
			for _, v := range want.data {
				data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v))
			}
			for r := range want.rows {
				for range want.indptr[r+1] - want.indptr[r] {
					rows = binary.LittleEndian.AppendUint64(rows, r)
				}
			}
			p, i, d, err := SparseCSR(m)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range []struct {
				what string
				src  ArraySource
				want []byte
			}{{"indptr", p, ints(want.indptr)}, {"indices", i, ints(want.indices)}, {"data", d, data}} {
				for _, piece := range []int{len(a.want), 1 << 20, 4096, 13} {
					if got := readArray(t, a.src, piece); !bytes.Equal(got, a.want) {
						t.Fatalf("%s read in pieces of %d: %d bytes differ from the %d expected", a.what, piece, len(got), len(a.want))
					}
				}
			}
			tab, err := SparseCOOTable(m)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range [][]byte{rows, ints(want.indices), data} {
				c := tab.Columns[k].(RawSource)
				got := make([]byte, len(w))
				n := int64(len(want.data))
				for start := int64(0); start < n; start += 1000 {
					k := min(1000, n-start)
					if err := c.ReadRaw(start, k, got[start*8:(start+k)*8]); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(got, w) {
					t.Fatalf("COO column %d differs", k)
				}
				if err := c.ReadRaw(0, n, got); err != nil || !bytes.Equal(got, w) {
					t.Fatalf("COO column %d read whole differs (%v)", k, err)
				}
			}
			// coo.csv from columns read into reused buffers, and read
			// into new ones
			plain := &Table{Metadata: tab.Metadata}
			for _, c := range tab.Columns {
				plain.Columns = append(plain.Columns, unbuffered{c})
			}
			if a, b := csvBytes(t, tab), csvBytes(t, plain); !bytes.Equal(a, b) {
				t.Fatalf("coo.csv of %d bytes differs from the %d read unbuffered", len(a), len(b))
			}
		})
	}
}

// unbuffered hides every method of a column but ColumnSource's.
type unbuffered struct{ ColumnSource }

// csvBytes renders t as CSV.
func csvBytes(t *testing.T, tab *Table) []byte {
	t.Helper()
	v, err := NewCSVView(tab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Finalize(); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(io.NewSectionReader(v, 0, v.Size()))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readArray reads all of an ArraySource's bytes in pieces of piece bytes.
func readArray(t *testing.T, a ArraySource, piece int) []byte {
	t.Helper()
	size := int(a.Shape()[0]) * a.ElemSize()
	out := make([]byte, size)
	for off := 0; off < size; off += piece {
		n, err := a.ReadAt(out[off:min(off+piece, size)], int64(off))
		if n != min(piece, size-off) {
			t.Fatalf("read at %d: %d bytes, %v", off, n, err)
		}
	}
	return out
}

// writeChunked copies an empty HDF5 file to path and has h5core make a
// float64 sparse dataset /X of the given extent and chunks in it, each
// chunk randomly empty, full, holding isolated points or runs along its
// rows (so that its selection is stored as "all", points or hyperslab
// blocks). It returns what expect makes of the elements written.
func writeChunked[T any](t *testing.T, path string, dims, chunk []uint64, filters [][]h5core.Filter, expect func(rows, cols []uint64, vals []float64) T) T {
	t.Helper()
	b, err := os.ReadFile("../h5core/testdata/write/latest.h5")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rw, err := h5core.OpenRW(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	tx, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	typ, err := h5core.NumberType(true, true, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.CreateDataset("/", "X", h5core.DatasetSpec{Type: typ, Dims: dims, Chunk: chunk, Sparse: true, SectionFilters: filters}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(dims[0]*dims[1]), uint64(chunk[1])))
	var rows, cols []uint64
	var vals []float64
	for r0 := uint64(0); r0 < dims[0]; r0 += chunk[0] {
		for c0 := uint64(0); c0 < dims[1]; c0 += chunk[1] {
			mode := rng.IntN(4) // 0 empty, 1 full, 2 points, 3 runs
			var idx []uint64
			var v []byte
			for r := r0; r < min(r0+chunk[0], dims[0]); r++ {
				for c := c0; c < min(c0+chunk[1], dims[1]); c++ {
					keep := mode == 1 || mode == 2 && (r+c)%3 == 0 || mode == 3 && rng.IntN(3) > 0
					if !keep {
						continue
					}
					x := float64(r)*1000 + float64(c) + 0.5
					idx = append(idx, (r-r0)*chunk[1]+c-c0)
					v = binary.LittleEndian.AppendUint64(v, math.Float64bits(x))
					rows, cols, vals = append(rows, r), append(cols, c), append(vals, x)
				}
			}
			if len(idx) == 0 {
				continue
			}
			if err := tx.WriteSparseChunk("/X", []uint64{r0 / chunk[0], c0 / chunk[1]}, idx, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return expect(rows, cols, vals)
}
