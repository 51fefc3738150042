package arrowexport

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// MatrixMarketView is a two-dimensional sparse matrix as a Matrix Market
// coordinate file (matrix.mtx): a banner naming the field (integer or
// real), a size line "rows cols nnz", then one "row col value" line per
// defined element in row-major order, coordinates 1-based.
//
// Its exact size needs a data pass (Finalize) that renders every block of
// lines once and records its offset; ReadAt then renders only the blocks
// around the bytes asked for. Before Finalize, Size is an upper bound.
type MatrixMarketView struct {
	m      *sparsecoo.Matrix
	header []byte
	est    int64
	value  func(dst, b []byte) []byte

	fin     sync.Mutex
	mu      sync.Mutex
	starts  []int64 // byte offset of each block, then the size; nil until final
	blocks  unitCache
	scratch sync.Pool // *mtxScratch, reused block after block
}

// mtxScratch holds the elements of a block being rendered.
type mtxScratch struct {
	idx  []uint64
	vals []byte
}

// NewMatrixMarketView returns m as a Matrix Market coordinate file.
func NewMatrixMarketView(m *sparsecoo.Matrix) (*MatrixMarketView, error) {
	shape := m.Shape()
	if len(shape) != 2 {
		return nil, fmt.Errorf("arrowexport: Matrix Market needs two dimensions, the array has %d: %w", len(shape), ErrUnsupported)
	}
	t := m.Type()
	vt, err := sparseValueType(t)
	if err != nil {
		return nil, err
	}
	v := &MatrixMarketView{m: m}
	field, width := "integer", int64(20)
	switch vt.ID().String() {
	case "FLOAT32":
		field, width = "real", 16
		v.value = func(d, b []byte) []byte {
			return appendFloat(d, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 32)
		}
	case "FLOAT64":
		field, width = "real", 24
		v.value = func(d, b []byte) []byte {
			return appendFloat(d, math.Float64frombits(binary.LittleEndian.Uint64(b)), 64)
		}
	default:
		v.value = intAppender(t)
	}
	v.header = fmt.Appendf(nil, "%%%%MatrixMarket matrix coordinate %s general\n%d %d %d\n", field, shape[0], shape[1], m.NNZ())
	v.est = int64(len(v.header)) + int64(m.NNZ())*(width+2*20+3)
	return v, nil
}

// intAppender formats a packed little-endian integer of type t.
func intAppender(t *h5core.Datatype) func(dst, b []byte) []byte {
	size, signed := t.Size, t.Signed
	return func(d, b []byte) []byte {
		var u uint64
		for i := size - 1; i >= 0; i-- {
			u = u<<8 | uint64(b[i])
		}
		if signed {
			shift := uint(64 - 8*size)
			return strconv.AppendInt(d, int64(u<<shift)>>shift, 10)
		}
		return strconv.AppendUint(d, u, 10)
	}
}

// Ext returns "mtx".
func (v *MatrixMarketView) Ext() string { return "mtx" }

// Size returns the exact size after Finalize, else an upper bound.
func (v *MatrixMarketView) Size() int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.starts != nil {
		return v.starts[len(v.starts)-1]
	}
	return v.est
}

// Exact reports whether the size is exact.
func (v *MatrixMarketView) Exact() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.starts != nil
}

// Finalize renders every block once to measure it.
func (v *MatrixMarketView) Finalize() error {
	v.fin.Lock()
	defer v.fin.Unlock()
	if v.Exact() {
		return nil
	}
	nb := numUnits(int64(v.m.NNZ()), sparseUnit)
	h := int64(len(v.header))
	starts, err := measureBlocks(h, nb, (v.est-h)/int64(max(nb, 1))+1, func(i int, scratch []byte) (int64, []byte, error) {
		b, err := v.renderBlock(i, scratch[:0])
		return int64(len(b)), b, err
	})
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.starts = starts
	v.mu.Unlock()
	return nil
}

// ReadAt reads the file at off, rendering only the blocks it overlaps.
func (v *MatrixMarketView) ReadAt(p []byte, off int64) (int, error) {
	if err := v.Finalize(); err != nil {
		return 0, err
	}
	v.mu.Lock()
	starts := v.starts
	v.mu.Unlock()
	return readText(p, off, v.header, starts, &v.blocks, "mtx", v.renderBlock)
}

// renderBlock appends the lines of elements [i*sparseUnit, ...) to dst.
func (v *MatrixMarketView) renderBlock(i int, dst []byte) ([]byte, error) {
	start, n := unitRange(i, sparseUnit, int64(v.m.NNZ()))
	es := v.m.ElemSize()
	sc, _ := v.scratch.Get().(*mtxScratch)
	if sc == nil || len(sc.idx) < int(n) {
		sc = &mtxScratch{idx: make([]uint64, n), vals: make([]byte, int(n)*es)}
	}
	defer v.scratch.Put(sc)
	idx, vals := sc.idx[:n], sc.vals[:int(n)*es]
	if err := v.m.Read(uint64(start), idx, vals); err != nil {
		return nil, err
	}
	cols := v.m.Shape()[1]
	for k, x := range idx {
		dst = strconv.AppendUint(dst, x/cols+1, 10)
		dst = append(dst, ' ')
		dst = strconv.AppendUint(dst, x%cols+1, 10)
		dst = append(dst, ' ')
		dst = v.value(dst, vals[k*es:(k+1)*es])
		dst = append(dst, '\n')
	}
	return dst, nil
}
