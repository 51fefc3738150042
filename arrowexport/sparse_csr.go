package arrowexport

import (
	"encoding/binary"
	"fmt"

	"github.com/h5fs/h5fs/sparsecoo"
)

// SparseCSR returns the three arrays of a two-dimensional sparse matrix
// in compressed sparse row form, for npy views (csr/indptr.npy,
// csr/indices.npy, csr/data.npy): indptr (int64, rows+1), indices (int64
// column of each value) and data (the values' type). They are read on
// demand from the chunk rows that hold the bytes asked for.
func SparseCSR(m *sparsecoo.Matrix) (indptr, indices, data ArraySource, err error) {
	if len(m.Shape()) != 2 {
		return nil, nil, nil, fmt.Errorf("arrowexport: CSR needs two dimensions, the array has %d: %w", len(m.Shape()), ErrUnsupported)
	}
	dtype, err := npyDescr(m.Type())
	if err != nil {
		return nil, nil, nil, err
	}
	nnz := int64(m.NNZ())
	indptr = &csrArray{m: m, kind: 'p', shape: []int64{int64(m.Shape()[0]) + 1}, dtype: "<i8", es: 8}
	indices = &csrArray{m: m, kind: 'i', shape: []int64{nnz}, dtype: "<i8", es: 8}
	data = &csrArray{m: m, kind: 'd', shape: []int64{nnz}, dtype: dtype, es: m.ElemSize()}
	return indptr, indices, data, nil
}

// csrArray is one of the CSR arrays: kind 'p' (indptr), 'i' (indices) or
// 'd' (data).
type csrArray struct {
	m     *sparsecoo.Matrix
	kind  byte
	shape []int64
	dtype string
	es    int
}

func (a *csrArray) Shape() []int64 { return a.shape }
func (a *csrArray) Dtype() string  { return a.dtype }
func (a *csrArray) ElemSize() int  { return a.es }

// ReadAt reads the packed elements that cover [off, off+len(p)),
// straight into p when they are whole elements.
func (a *csrArray) ReadAt(p []byte, off int64) (int, error) {
	es := int64(a.es)
	n, eof := clip(p, off, a.shape[0]*es)
	if n == 0 {
		return 0, eof
	}
	first, last := off/es, (off+int64(n)-1)/es
	cnt := last - first + 1
	whole := off%es == 0 && int64(n)%es == 0
	buf := p[:n]
	if !whole {
		buf = make([]byte, cnt*es)
	}
	switch a.kind {
	case 'p':
		for i := int64(0); i < cnt; i++ {
			v, err := a.m.RowPtr(uint64(first + i))
			if err != nil {
				return 0, err
			}
			binary.LittleEndian.PutUint64(buf[8*i:], v)
		}
	case 'i':
		if err := a.m.PutCoords(uint64(first), 1, buf); err != nil {
			return 0, err
		}
	default:
		if err := a.m.ReadValues(uint64(first), buf); err != nil {
			return 0, err
		}
	}
	if !whole {
		copy(p[:n], buf[off-first*es:])
	}
	return n, eof
}
