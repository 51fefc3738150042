package h5core

import (
	"fmt"
	"io"
)

// rawBlock is the number of bytes DumpPacked reads at a time (rounded to a
// whole number of elements and, for chunked data, to whole chunk rows).
const rawBlock = 8 << 20

// DumpPacked writes the dataset's full extent to w as packed little-endian
// elements in row-major order: numbers little-endian, compound fields
// packed in declaration order, fixed strings and opaque data as stored.
// Types that are not fixed-size (variable-length data, revised
// references) have no raw form.
func (ds *Dataset) DumpPacked(w io.Writer) error {
	t := ds.Type
	if !t.IsFixedSize() {
		return fmt.Errorf("%s: %s: %s elements are not fixed-size and have no raw form", ds.f.name, ds.Path, t)
	}
	es := int64(t.Size)
	if es == 0 {
		return nil
	}
	block := int64(rawBlock)
	if ds.geom != nil {
		// whole chunk rows along the first dimension keep each read
		// aligned with chunk boundaries
		rowBytes := es
		for _, d := range ds.geom.dims[1:] {
			rowBytes *= int64(d)
		}
		if cr := rowBytes * int64(ds.geom.chunk[0]); cr > 0 && cr < 1<<30 {
			block = max(cr, (block/cr)*cr)
		}
	}
	block = max(es, block/es*es)
	size := ds.Size()
	buf := make([]byte, min(block, size))
	packed := t.IsPackedLE()
	var conv []byte
	for off := int64(0); off < size; off += int64(len(buf)) {
		n := min(int64(len(buf)), size-off)
		p := buf[:n]
		if _, err := ds.ReadAt(p, off); err != nil && err != io.EOF {
			return err
		}
		out := p
		if !packed {
			conv = t.AppendPackedLE(conv[:0], p, int(n/es))
			out = conv
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}

// ReadValues decodes n elements starting at element start (row-major
// index) into Go values (see ElementValue).
func (ds *Dataset) ReadValues(start, n uint64) ([]any, error) {
	es := uint64(ds.Type.Size)
	total := ds.NumElements()
	if start > total || n > total-start {
		return nil, fmt.Errorf("%s: %s: elements [%d, %d) outside the %d elements", ds.f.name, ds.Path, start, start+n, total)
	}
	buf := make([]byte, n*es)
	if _, err := ds.ReadAt(buf, int64(start*es)); err != nil && err != io.EOF {
		return nil, err
	}
	vals := make([]any, n)
	for i := range vals {
		v, err := ds.f.elementValue(ds.Type, buf[uint64(i)*es:uint64(i+1)*es])
		if err != nil {
			return nil, ds.err(err)
		}
		vals[i] = v
	}
	return vals, nil
}

// ElementValue decodes one element of type t (Size bytes) into a Go
// value: int64 or uint64 for integers, float64 for floats, string for
// strings, []byte for opaque data, and the Compound, EnumValue and
// reference types for the other classes. Variable-length data is read
// from the file's global heap.
func (f *File) ElementValue(t *Datatype, elem []byte) (any, error) {
	return f.elementValue(t, elem)
}
