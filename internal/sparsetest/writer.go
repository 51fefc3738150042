// Package sparsetest writes small structured-chunk sparse HDF5 files and
// random sparse matrices for tests and benchmarks.
package sparsetest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/h5fs/h5fs/h5core"
)

// Matrix is a two-dimensional float64 sparse matrix in CSR form.
type Matrix struct {
	Rows, Cols uint64
	Indptr     []int64
	Indices    []int64
	Data       []float64
}

// RandomMatrix makes a rows x cols matrix whose defined elements come in
// runs along each row (about density of all elements), reproducibly.
func RandomMatrix(rows, cols uint64, density float64, seed uint64) *Matrix {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := &Matrix{Rows: rows, Cols: cols, Indptr: make([]int64, 0, rows+1)}
	m.Indptr = append(m.Indptr, 0)
	meanRun := 5.0
	gap := meanRun * (1 - density) / density
	for r := uint64(0); r < rows; r++ {
		c := uint64(rng.Float64() * 2 * gap)
		for c < cols {
			n := 1 + uint64(rng.IntN(int(2*meanRun-1)))
			for k := uint64(0); k < n && c < cols; k++ {
				m.Indices = append(m.Indices, int64(c))
				m.Data = append(m.Data, float64(r)+float64(c)/1e4)
				c++
			}
			c += 1 + uint64(rng.Float64()*2*gap)
		}
		m.Indptr = append(m.Indptr, int64(len(m.Indices)))
	}
	return m
}

// WriteFile writes m as an HDF5 file holding one structured-chunk
// sparse dataset "/X" (float64, chunks of chunkRows full rows, fixed
// array index, one hyperslab v1 block per run of defined elements): a
// small writer following the format document, for benchmarks and tests.
func WriteFile(path string, m *Matrix, chunkRows uint64) error {
	le := binary.LittleEndian
	var b []byte
	pad8 := func() {
		for len(b)%8 != 0 {
			b = append(b, 0)
		}
	}
	b = make([]byte, 48) // superblock v2, filled in last
	// root group: v1 object header with one link message
	root := uint64(len(b))
	b = append(b, 1, 0)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint32(b, 1)
	b = le.AppendUint32(b, 8+16)
	b = append(b, 0, 0, 0, 0)
	b = le.AppendUint16(b, 0x0006)
	b = le.AppendUint16(b, 16)
	b = append(b, 0, 0, 0, 0)
	b = append(b, 1, 0, 1, 'X')
	linkAt := len(b)
	b = append(b, make([]byte, 8+4)...)

	// chunks
	nchunks := (m.Rows + chunkRows - 1) / chunkRows
	type rec struct{ addr, size, off1 uint64 }
	recs := make([]rec, nchunks)
	for ci := uint64(0); ci < nchunks; ci++ {
		r0, r1 := ci*chunkRows, min((ci+1)*chunkRows, m.Rows)
		if m.Indptr[r1] == m.Indptr[r0] {
			recs[ci] = rec{addr: math.MaxUint64}
			continue
		}
		var blocks []uint32
		for r := r0; r < r1; r++ {
			for k := m.Indptr[r]; k < m.Indptr[r+1]; {
				e := k
				for e+1 < m.Indptr[r+1] && m.Indices[e+1] == m.Indices[e]+1 {
					e++
				}
				blocks = append(blocks, uint32(r-r0), uint32(m.Indices[k]), uint32(r-r0), uint32(m.Indices[e]))
				k = e + 1
			}
		}
		sel := []byte{1, 0, 8}
		sel = le.AppendUint32(sel, 40)
		sel = append(sel, 1, 2, 1, 0, 0, 0, 0, 0)
		for range 2 {
			sel = le.AppendUint64(sel, chunkRows)
			sel = le.AppendUint64(sel, m.Cols)
		}
		sel = le.AppendUint32(sel, 2)
		sel = le.AppendUint32(sel, 1)
		sel = le.AppendUint32(sel, 0)
		sel = le.AppendUint32(sel, uint32(8+4*len(blocks)))
		sel = le.AppendUint32(sel, 2)
		sel = le.AppendUint32(sel, uint32(len(blocks)/4))
		for _, v := range blocks {
			sel = le.AppendUint32(sel, v)
		}
		sel = le.AppendUint32(sel, h5core.Checksum(sel))
		addr := uint64(len(b))
		b = append(b, sel...)
		for _, v := range m.Data[m.Indptr[r0]:m.Indptr[r1]] {
			b = le.AppendUint64(b, math.Float64bits(v))
		}
		recs[ci] = rec{addr, uint64(len(b)) - addr, uint64(len(sel))}
	}
	pad8()

	// fixed array: header then data block
	dense := chunkRows * m.Cols * 8
	csl := min(8, 1+(bitsLen(dense)-1+8)/8)
	esize := 8 + csl + 8
	fahd := uint64(len(b))
	fadb := fahd + 28
	b = append(b, "FAHD"...)
	b = append(b, 1, 2, byte(esize), 10)
	b = le.AppendUint64(b, nchunks)
	b = le.AppendUint64(b, fadb)
	b = le.AppendUint32(b, h5core.Checksum(b[fahd:]))
	b = append(b, "FADB"...)
	b = append(b, 1, 2)
	b = le.AppendUint64(b, fahd)
	for _, r := range recs {
		b = le.AppendUint64(b, r.addr)
		for i := 0; i < csl; i++ {
			b = append(b, byte(r.size>>(8*i)))
		}
		b = le.AppendUint64(b, r.off1)
	}
	b = le.AppendUint32(b, h5core.Checksum(b[fadb:]))
	pad8()

	// the dataset: v1 object header with dataspace, datatype, layout
	ds := uint64(len(b))
	le.PutUint64(b[linkAt:], ds)
	var msgs []byte
	msg := func(typ uint16, body []byte) {
		for len(body)%8 != 0 {
			body = append(body, 0)
		}
		msgs = le.AppendUint16(msgs, typ)
		msgs = le.AppendUint16(msgs, uint16(len(body)))
		msgs = append(msgs, 0, 0, 0, 0)
		msgs = append(msgs, body...)
	}
	space := []byte{1, 2, 0, 0, 0, 0, 0, 0}
	space = le.AppendUint64(space, m.Rows)
	space = le.AppendUint64(space, m.Cols)
	msg(0x0001, space)
	dt := []byte{0x11, 0x20, 63, 0}
	dt = le.AppendUint32(dt, 8)
	dt = append(dt, 0, 0, 64, 0, 52, 11, 0, 52)
	dt = le.AppendUint32(dt, 1023)
	msg(0x0003, dt)
	e := bytesFor(max(chunkRows, m.Cols, 8))
	lay := []byte{5, 4, 0, 1, 0, 0, 3, byte(e)}
	for _, v := range []uint64{chunkRows, m.Cols, 8} {
		for i := 0; i < e; i++ {
			lay = append(lay, byte(v>>(8*i)))
		}
	}
	lay = append(lay, 8, 2, 1, 0, 3, 10)
	lay = le.AppendUint64(lay, fahd)
	msg(0x0008, lay)
	b = append(b, 1, 0)
	b = le.AppendUint16(b, 3)
	b = le.AppendUint32(b, 1)
	b = le.AppendUint32(b, uint32(len(msgs)))
	b = append(b, 0, 0, 0, 0)
	b = append(b, msgs...)

	copy(b, "\x89HDF\r\n\x1a\n")
	copy(b[8:], []byte{2, 8, 8, 0})
	le.PutUint64(b[12:], 0)
	le.PutUint64(b[20:], math.MaxUint64)
	le.PutUint64(b[28:], uint64(len(b)))
	le.PutUint64(b[36:], root)
	le.PutUint32(b[44:], h5core.Checksum(b[:44]))
	return os.WriteFile(path, b, 0o644)
}

// bitsLen is the bit length of v.
func bitsLen(v uint64) int {
	n := 0
	for ; v != 0; v >>= 1 {
		n++
	}
	return n
}

// bytesFor is the number of bytes that hold v.
func bytesFor(v uint64) int {
	n := 1
	for v >>= 8; v != 0; v >>= 8 {
		n++
	}
	return n
}

// WriteNpy writes the CSR arrays of m as indptr.npy, indices.npy and
// data.npy in dir (for tools that build reference files from them).
func WriteNpy(dir string, m *Matrix) error {
	le := binary.LittleEndian
	write := func(name, descr string, n int, put func(b []byte) []byte) error {
		dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }", descr, n)
		total := (10 + len(dict) + 1 + 63) / 64 * 64
		h := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
		le.PutUint16(h[8:], uint16(total-10))
		h = append(h, dict...)
		for len(h) < total-1 {
			h = append(h, ' ')
		}
		h = append(h, '\n')
		return os.WriteFile(filepath.Join(dir, name), put(h), 0o644)
	}
	err := write("indptr.npy", "<i8", len(m.Indptr), func(b []byte) []byte {
		for _, v := range m.Indptr {
			b = le.AppendUint64(b, uint64(v))
		}
		return b
	})
	if err == nil {
		err = write("indices.npy", "<i8", len(m.Indices), func(b []byte) []byte {
			for _, v := range m.Indices {
				b = le.AppendUint64(b, uint64(v))
			}
			return b
		})
	}
	if err == nil {
		err = write("data.npy", "<f8", len(m.Data), func(b []byte) []byte {
			for _, v := range m.Data {
				b = le.AppendUint64(b, math.Float64bits(v))
			}
			return b
		})
	}
	return err
}

// RandomElements returns n distinct random positions of a rows x cols
// matrix (rows[i], cols[i]) with float64 values, reproducibly.
func RandomElements(n int, nrows, ncols uint64, seed uint64) (rows, cols []uint64, vals []float64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	seen := make(map[[2]uint64]bool, n)
	for len(rows) < n {
		p := [2]uint64{rng.Uint64N(nrows), rng.Uint64N(ncols)}
		if seen[p] {
			continue
		}
		seen[p] = true
		rows, cols = append(rows, p[0]), append(cols, p[1])
		vals = append(vals, float64(1+rng.IntN(1e6))/8)
	}
	return rows, cols, vals
}
