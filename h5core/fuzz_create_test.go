package h5core

import (
	"slices"
	"testing"
)

// FuzzCreateHeader encodes the object header of a dataset CreateDataset
// would make from fuzzed dimensions, chunk shape, fill value and
// filters, and decodes it back through the reader: every message must
// parse to what was encoded.
func FuzzCreateHeader(f *testing.F) {
	f.Add([]byte{2, 10, 20, 4, 5}, uint8(8), true, uint16(1), uint32(6), false)
	f.Add([]byte{1, 255, 16}, uint8(4), false, uint16(2), uint32(0), true)
	f.Fuzz(func(t *testing.T, shape []byte, size uint8, float bool, filter uint16, level uint32, sparse bool) {
		if len(shape) == 0 || int(shape[0]) == 0 || int(shape[0]) > 4 || len(shape) < 1+2*int(shape[0]) {
			return
		}
		rank := int(shape[0])
		dims, chunk := make([]uint64, rank), make([]uint64, rank)
		for i := range rank {
			dims[i], chunk[i] = uint64(shape[1+i]), uint64(max(shape[1+rank+i], 1))
		}
		typ, err := NumberType(float, true, int(size))
		if err != nil {
			return
		}
		h := rawFile(nil)
		dt, err := encodeDatatype(typ)
		if err != nil {
			t.Fatal(err)
		}
		fill := make([]byte, size)
		fill[0] = byte(level)
		l := &layout{version: 3, class: layoutChunked, index: IndexBtreeV1, chunk: chunk, addr: undefAddr}
		if sparse {
			l = &layout{version: 5, class: layoutStructured, index: IndexFixedArray, pageBits: 10, chunk: chunk, addr: undefAddr,
				stc: &stcLayout{typ: stcSparse, elemSize: uint64(size), sections: 2, meta: []uint8{0}, csl: 8}}
		}
		lb, err := encodeLayout(l, h.so, h.sl, uint64(size))
		if err != nil {
			t.Fatal(err)
		}
		filters := []Filter{{ID: filter, Name: "x", ClientData: []uint32{level}}}
		p, err := encodePipeline(filters)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := encodeSectionPipeline([][]Filter{nil, filters})
		if err != nil {
			t.Fatal(err)
		}
		oh := encodeObjectHeader([]headerMessage{
			{msgDataspace, 0, encodeDataspace(h.sl, dims, dims)},
			{msgDatatype, msgFlagConstant, dt},
			{msgFillValue, msgFlagConstant, encodeFillValue(3, 2, fill)},
			{msgLayout, 0, lb},
			{msgPipeline, 0, p},
			{msgSectionPipeline, 0, sp},
		})
		h = rawFile(oh)
		got, err := h.readObjectHeader(0)
		if err != nil {
			t.Fatalf("created header does not parse: %v", err)
		}
		m := func(typ uint16) *message {
			m := got.find(typ)
			if m == nil {
				t.Fatalf("message %#x lost", typ)
			}
			return m
		}
		ds, err := h.parseDataspace(m(msgDataspace).data, 0)
		if err != nil || !slices.Equal(ds.dims, dims) || !slices.Equal(ds.maxDims, dims) {
			t.Fatalf("dataspace %+v, %v; want %v", ds, err, dims)
		}
		gt, _, err := parseDatatype(m(msgDatatype).data, 0)
		if err != nil || gt.Class != typ.Class || gt.Size != typ.Size || gt.Float != typ.Float || gt.Signed != typ.Signed {
			t.Fatalf("datatype %+v, %v; want %+v", gt, err, typ)
		}
		fv, err := h.parseFillValue(m(msgFillValue).data, 0)
		if err != nil || !fv.defined || !slices.Equal(fv.value, fill) {
			t.Fatalf("fill value %+v, %v", fv, err)
		}
		gl, err := h.parseLayout(m(msgLayout).data, 0)
		if err != nil || !slices.Equal(gl.chunk, chunk) || gl.addr != undefAddr || gl.index != l.index {
			t.Fatalf("layout %+v, %v; want chunk %v", gl, err, chunk)
		}
		gp, err := parsePipeline(m(msgPipeline).data, 0)
		if err != nil || len(gp) != 1 || gp[0].ID != filter || !slices.Equal(gp[0].ClientData, filters[0].ClientData) {
			t.Fatalf("pipeline %+v, %v", gp, err)
		}
		gs, err := parseSectionPipeline(m(msgSectionPipeline).data, 0, 2)
		if err != nil || gs[0] != nil || len(gs[1]) != 1 || gs[1][0].ID != filter {
			t.Fatalf("section pipeline %+v, %v", gs, err)
		}
	})
}
