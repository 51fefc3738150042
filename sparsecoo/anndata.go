package sparsecoo

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/h5fs/h5fs/h5core"
)

// anndataBlockElems is about how many elements one block of a CSR group
// holds (whole rows, at least one).
const anndataBlockElems = 1 << 20

// maxAnndataNNZ bounds the elements of a csc_matrix group, which is
// transposed in memory.
const maxAnndataNNZ = 1 << 28

// IsSparseGroup reports whether o is an anndata-style sparse group: a
// group whose attribute encoding-type is csr_matrix or csc_matrix.
func IsSparseGroup(o *h5core.Object) bool {
	_, err := sparseEncoding(o)
	return err == nil
}

// sparseEncoding returns the group's encoding-type, if it is a sparse one.
func sparseEncoding(o *h5core.Object) (string, error) {
	if o.Kind() != h5core.KindGroup {
		return "", fmt.Errorf("sparsecoo: %s is not a group", o.Path)
	}
	a, err := o.Attribute("encoding-type")
	if err != nil {
		return "", err
	}
	if a == nil {
		return "", fmt.Errorf("sparsecoo: %s has no encoding-type attribute", o.Path)
	}
	v, err := a.Value()
	if err != nil {
		return "", err
	}
	s, _ := v.(string)
	if s != "csr_matrix" && s != "csc_matrix" {
		return "", fmt.Errorf("sparsecoo: %s: encoding-type %q is not csr_matrix or csc_matrix", o.Path, s)
	}
	return s, nil
}

// OpenGroup opens an anndata-style sparse group (attribute encoding-type
// csr_matrix or csc_matrix, attribute shape, datasets data, indices and
// indptr). A CSR group is read block by block (whole rows); its indptr
// is read at once. A CSC group is transposed in memory when opened.
func OpenGroup(o *h5core.Object) (*Matrix, error) {
	enc, err := sparseEncoding(o)
	if err != nil {
		return nil, err
	}
	a, err := o.Attribute("shape")
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, fmt.Errorf("sparsecoo: %s has no shape attribute", o.Path)
	}
	sv, err := a.Value()
	if err != nil {
		return nil, err
	}
	list, _ := sv.([]any)
	shape := make([]uint64, 0, 2)
	for _, x := range list {
		switch n := x.(type) {
		case int64:
			if n >= 0 {
				shape = append(shape, uint64(n))
			}
		case uint64:
			shape = append(shape, n)
		}
	}
	if len(shape) != 2 || len(list) != 2 {
		return nil, fmt.Errorf("sparsecoo: %s: shape attribute %v is not two non-negative integers", o.Path, sv)
	}
	open := func(name string) (*h5core.Dataset, error) {
		c, err := o.File().Open(o.Child(name))
		if err != nil {
			return nil, err
		}
		ds, err := c.Dataset()
		if err != nil {
			return nil, err
		}
		if len(ds.Shape()) != 1 {
			return nil, fmt.Errorf("sparsecoo: %s: %s is not one-dimensional", o.Path, name)
		}
		return ds, nil
	}
	data, err := open("data")
	if err != nil {
		return nil, err
	}
	indices, err := open("indices")
	if err != nil {
		return nil, err
	}
	indptrDS, err := open("indptr")
	if err != nil {
		return nil, err
	}
	if !data.Type.IsFixedSize() {
		return nil, fmt.Errorf("sparsecoo: %s: data of type %s: %w", o.Path, data.Type, h5core.ErrUnsupported)
	}
	nnz := data.NumElements()
	major, minor := shape[0], shape[1]
	if enc == "csc_matrix" {
		major, minor = shape[1], shape[0]
	}
	indptr, err := readInts(indptrDS, 0, indptrDS.NumElements())
	if err != nil {
		return nil, err
	}
	if uint64(len(indptr)) != major+1 || indices.NumElements() != nnz {
		return nil, fmt.Errorf("sparsecoo: %s: indptr of %d, indices of %d, data of %d for shape %v", o.Path, len(indptr), indices.NumElements(), nnz, shape)
	}
	for i := range indptr {
		if indptr[i] > nnz || (i > 0 && indptr[i] < indptr[i-1]) || (i == 0 && indptr[0] != 0) || (i == len(indptr)-1 && indptr[i] != nnz) {
			return nil, fmt.Errorf("sparsecoo: %s: indptr is not a non-decreasing list from 0 to %d", o.Path, nnz)
		}
	}
	src := &groupSource{data: data, indices: indices, indptr: indptr, minor: minor, es: data.Type.PackedSize()}
	m := &Matrix{shape: shape, typ: data.Type, elemSize: src.es, src: src, nnz: nnz}
	if enc == "csc_matrix" {
		if nnz > maxAnndataNNZ {
			return nil, fmt.Errorf("sparsecoo: %s: csc_matrix of %d elements (at most %d): %w", o.Path, nnz, maxAnndataNNZ, h5core.ErrUnsupported)
		}
		if err := src.transpose(shape); err != nil {
			return nil, fmt.Errorf("sparsecoo: %s: %w", o.Path, err)
		}
		m.blocks = []blockMeta{{first: 0, nnz: nnz, r0: 0, r1: shape[0]}}
		return m, nil
	}
	for r0 := uint64(0); r0 < major; {
		r1 := r0 + 1
		for r1 < major && indptr[r1+1]-indptr[r0] <= anndataBlockElems {
			r1++
		}
		if n := indptr[r1] - indptr[r0]; n > 0 {
			m.blocks = append(m.blocks, blockMeta{first: indptr[r0], nnz: n, r0: r0, r1: r1})
			src.rowBlocks = append(src.rowBlocks, [2]uint64{r0, r1})
		}
		r0 = r1
	}
	return m, nil
}

// groupSource reads an anndata-style CSR group block by block, or serves
// a transposed CSC group from memory.
type groupSource struct {
	data, indices *h5core.Dataset
	indptr        []uint64
	minor         uint64 // columns (CSR)
	es            int
	rowBlocks     [][2]uint64
	whole         *block // a transposed CSC group
}

func (s *groupSource) valuesAt(i int, off uint64, dst []byte) (bool, error) {
	t := s.data.Type
	if s.whole != nil || !t.IsPackedLE() {
		return false, nil
	}
	at := s.indptr[s.rowBlocks[i][0]] + off
	if n, err := s.data.ReadAt(dst, int64(at)*int64(t.Size)); n < len(dst) {
		return false, fmt.Errorf("sparsecoo: %s: values [%d, %d): %w", s.data.Path, at, at+uint64(len(dst)/t.Size), cmp.Or(err, io.ErrUnexpectedEOF))
	}
	return true, nil
}

func (s *groupSource) decode(i int, want part) (*block, part, error) {
	b, err := s.decodeRows(i, want&partVals != 0)
	return b, want | partIdx, err
}

// decodeRows returns block i with its values if values is set.
func (s *groupSource) decodeRows(i int, values bool) (*block, error) {
	if s.whole != nil {
		return &block{starts: s.whole.starts, ends: s.whole.ends, vals: s.whole.vals}, nil
	}
	r0, r1 := s.rowBlocks[i][0], s.rowBlocks[i][1]
	e0, e1 := s.indptr[r0], s.indptr[r1]
	cols, err := readInts(s.indices, e0, e1-e0)
	if err != nil {
		return nil, err
	}
	idx := make([]uint64, e1-e0)
	for r := r0; r < r1; r++ {
		for k := s.indptr[r]; k < s.indptr[r+1]; k++ {
			c := cols[k-e0]
			if c >= s.minor {
				return nil, fmt.Errorf("sparsecoo: %s: column index %d outside %d columns", s.indices.Path, c, s.minor)
			}
			idx[k-e0] = r*s.minor + c
		}
	}
	var vals []byte
	if values {
		if vals, err = readPacked(s.data, e0, e1-e0); err != nil {
			return nil, err
		}
	}
	return newBlock(idx, vals, s.es, s.minor), nil
}

// transpose reads a CSC group (columns major) into one row-major block.
func (s *groupSource) transpose(shape []uint64) error {
	nnz := s.data.NumElements()
	rowsOf, err := readInts(s.indices, 0, nnz)
	if err != nil {
		return err
	}
	vals, err := readPacked(s.data, 0, nnz)
	if err != nil {
		return err
	}
	idx := make([]uint64, nnz)
	for c := uint64(0); c < shape[1]; c++ {
		for k := s.indptr[c]; k < s.indptr[c+1]; k++ {
			r := rowsOf[k]
			if r >= shape[0] {
				return fmt.Errorf("row index %d outside %d rows", r, shape[0])
			}
			idx[k] = r*shape[1] + c
		}
	}
	s.whole = newBlock(idx, vals, s.es, shape[1])
	return nil
}

// readPacked reads n elements from element start of a one-dimensional
// dataset as packed little-endian values.
func readPacked(ds *h5core.Dataset, start, n uint64) ([]byte, error) {
	size := uint64(ds.Type.Size)
	raw := make([]byte, n*size)
	if _, err := ds.ReadAt(raw, int64(start*size)); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if ds.Type.IsPackedLE() {
		return raw, nil
	}
	return ds.Type.AppendPackedLE(make([]byte, 0, n*uint64(ds.Type.PackedSize())), raw, int(n)), nil
}

// readInts reads n integer elements (any size, signed or not; negative
// values are errors) from element start of a one-dimensional dataset.
func readInts(ds *h5core.Dataset, start, n uint64) ([]uint64, error) {
	t := ds.Type
	if t.Class != h5core.ClassFixedPoint || t.Size < 1 || t.Size > 8 {
		return nil, fmt.Errorf("sparsecoo: %s: %s is not an integer type", ds.Path, t)
	}
	b, err := readPacked(ds, start, n)
	if err != nil {
		return nil, err
	}
	out := make([]uint64, n)
	size := t.Size
	var buf [8]byte
	for i := range out {
		buf = [8]byte{}
		copy(buf[:], b[i*size:(i+1)*size])
		v := binary.LittleEndian.Uint64(buf[:])
		if t.Signed && size < 8 && v>>(8*size-1)&1 == 1 || t.Signed && size == 8 && int64(v) < 0 {
			return nil, fmt.Errorf("sparsecoo: %s: negative index at element %d", ds.Path, start+uint64(i))
		}
		out[i] = v
	}
	return out, nil
}
