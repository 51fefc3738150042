package h5core

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/h5fs/h5fs/internal/h5wasmtest"
)

// v2Dataset is one dataset of the HDF5 2.0 corpus and the chunk index
// libhdf5 is expected to choose for it (for file format 1.8 and later).
type v2Dataset struct {
	op    h5wasmtest.Op
	index ChunkIndexKind // for chunked datasets
	// after the dataset is made: grow it to this shape and write rows
	// [grow[0]-2, grow[0]) (leaving never-written chunks between)
	grow []int64
}

// v2Values returns n little-endian elements of a numeric dtype.
func v2Values(dtype string, n int, seed int) []byte {
	var b []byte
	for i := range n {
		x := float64((i*7919+seed*104729)%10007) - 5000
		switch dtype {
		case "<u1":
			b = append(b, byte(i*31+seed))
		case "<u2":
			b = binary.LittleEndian.AppendUint16(b, uint16(i*131+seed))
		case "<i4":
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(x)*1000+int32(i)))
		case "<i8":
			b = binary.LittleEndian.AppendUint64(b, uint64(int64(x)<<33+int64(i)))
		case "<f4":
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)/7))
		case "<f8":
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(math.Sin(x)*1e6))
		default:
			panic(dtype)
		}
	}
	return b
}

func v2Corpus() []v2Dataset {
	num := func(path, dtype string, shape, maxshape, chunks []int64, gzip bool) h5wasmtest.Op {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		op := h5wasmtest.Op{Kind: "dataset", Path: path, Dtype: dtype, Shape: shape, Maxshape: maxshape,
			Chunks: chunks, Raw: v2Values(dtype, int(n), len(path))}
		if gzip {
			op.Compression, op.CompressionOpts = "gzip", 4
		}
		return op
	}
	s := func(d ...int64) []int64 { return d }
	// blosc2 through h5wasm-plugins' build of the HDF Group plugin: cd
	// [_, block size, _, _, level, shuffle (0, 1 byte, 2 bit, 3 delta), codec]
	blosc2 := func(op h5wasmtest.Op, cd ...int) h5wasmtest.Op {
		op.Compression, op.CompressionOpts = FilterBlosc2, cd
		return op
	}
	return []v2Dataset{
		{op: blosc2(num("/fixed_blosc2_f4", "<f4", s(50, 40), nil, s(7, 9), false), 0, 0, 0, 0, 5, 1, 5), index: IndexFixedArray},
		{op: blosc2(num("/fixed_blosc2_3d_i8", "<i8", s(5, 6, 7), nil, s(2, 3, 4), false), 0, 32, 0, 0, 5, 2, 1), index: IndexFixedArray},
		{op: blosc2(num("/earray_blosc2_u2", "<u2", s(250), s(-1), s(40), false), 0, 16, 0, 0, 5, 3, 0), index: IndexExtensibleArr, grow: s(300)},
		{op: blosc2(num("/btree2_blosc2_f8", "<f8", s(9, 11), s(-1, -1), s(4, 3), false), 0, 0, 0, 0, 9, 1, 2), index: IndexBtreeV2, grow: s(15, 11)},
		{op: num("/contiguous_f8", "<f8", s(100), nil, nil, false)},
		{op: num("/contiguous_2d_u1", "<u1", s(7, 9), nil, nil, false)},
		{op: num("/single_i4", "<i4", s(6, 7), nil, s(6, 7), false), index: IndexSingleChunk},
		{op: num("/single_gzip_i4", "<i4", s(6, 7), nil, s(6, 7), true), index: IndexSingleChunk},
		{op: num("/fixed_f4", "<f4", s(50, 40), nil, s(7, 9), false), index: IndexFixedArray},
		{op: num("/fixed_gzip_f4", "<f4", s(50, 40), nil, s(7, 9), true), index: IndexFixedArray},
		{op: num("/fixed_paged_u2", "<u2", s(2100), nil, s(2), false), index: IndexFixedArray},
		{op: num("/fixed_paged_gzip_u2", "<u2", s(2100), nil, s(2), true), index: IndexFixedArray},
		{op: num("/fixed_3d_i8", "<i8", s(5, 6, 7), nil, s(2, 3, 4), true), index: IndexFixedArray},
		{op: num("/earray_i8", "<i8", s(25), s(-1), s(4), false), index: IndexExtensibleArr, grow: s(60)},
		{op: num("/earray_gzip_i8", "<i8", s(25), s(-1), s(4), true), index: IndexExtensibleArr, grow: s(60)},
		{op: num("/earray_2d_f8", "<f8", s(30, 5), s(-1, 5), s(3, 5), true), index: IndexExtensibleArr, grow: s(40, 5)},
		{op: num("/earray_many_u1", "<u1", s(5000), s(-1), s(3), true), index: IndexExtensibleArr},
		{op: num("/btree2_f8", "<f8", s(9, 11), s(-1, -1), s(2, 3), false), index: IndexBtreeV2, grow: s(15, 11)},
		{op: num("/btree2_gzip_f8", "<f8", s(9, 11), s(-1, -1), s(2, 3), true), index: IndexBtreeV2, grow: s(15, 11)},
		{op: num("/btree2_many_i4", "<i4", s(60, 70), s(-1, -1), s(2, 3), true), index: IndexBtreeV2},
		{op: h5wasmtest.Op{Kind: "dataset", Path: "/strings", Data: []string{"", "a", "héllo", "a longer string of text"}}},
	}
}

// writeV2Corpus writes the corpus with libhdf5 2.0 at the given libver.
func writeV2Corpus(t *testing.T, file string, libver any) {
	var ops []h5wasmtest.Op
	for _, d := range v2Corpus() {
		ops = append(ops, d.op)
		if d.grow != nil {
			ops = append(ops, h5wasmtest.Op{Kind: "resize", Path: d.op.Path, Shape: d.grow})
			row := int64(1)
			for _, x := range d.grow[1:] {
				row *= x
			}
			ranges := [][]int64{{d.grow[0] - 2, d.grow[0]}}
			for range d.grow[1:] {
				ranges = append(ranges, []int64{})
			}
			ops = append(ops, h5wasmtest.Op{Kind: "write_slice", Path: d.op.Path, Ranges: ranges,
				Dtype: d.op.Dtype, Raw: v2Values(d.op.Dtype.(string), int(2*row), 99)})
		}
	}
	ops = append(ops,
		h5wasmtest.Op{Kind: "attribute", Path: "/", Name: "title", Data: "HDF5 2.0 corpus"},
		h5wasmtest.Op{Kind: "attribute", Path: "/fixed_f4", Name: "scale", Dtype: "<f8", Data: []any{0.5, "NaN", -2}},
	)
	h5wasmtest.Write(t, h5wasmtest.Spec{File: file, Libver: libver, Objects: ops})
}

// TestHDF5V2Corpus writes every chunk index kind, filtered and not, with
// libhdf5 2.0 (h5wasm) at file format 2.0 ("v200", "latest") and at older
// low bounds, and checks that h5core reads every dataset and attribute
// exactly as libhdf5 2.0 reads it back.
func TestHDF5V2Corpus(t *testing.T) {
	libvers := []struct {
		name   string
		libver any
		old    bool // v1 B-tree chunk indexes
	}{
		{"v200", "v200", false},
		{"latest", "latest", false},
		{"v110-v200", []string{"v110", "v200"}, false},
		{"earliest-v200", []string{"earliest", "v200"}, true},
	}
	dir := t.TempDir()
	for _, lv := range libvers {
		t.Run(lv.name, func(t *testing.T) {
			file := filepath.Join(dir, lv.name+".h5")
			writeV2Corpus(t, file, lv.libver)
			want := h5wasmtest.Dump(t, file)
			f, err := Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, d := range v2Corpus() {
				t.Run(d.op.Path[1:], func(t *testing.T) {
					w := want.Dataset(t, d.op.Path)
					o, err := f.Open(d.op.Path)
					if err != nil {
						t.Fatal(err)
					}
					ds, err := o.Dataset()
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("layout v%d %s %v", ds.layout.version, ds.Layout(), ds.ChunkIndexKind())
					if d.op.Compression == FilterBlosc2 && (len(w.Filters) != 1 || w.Filters[0].ID != FilterBlosc2) {
						t.Fatalf("libhdf5 2.0 sees filters %v, not blosc2", w.Filters)
					}
					if got := ds.Shape(); fmt.Sprint(got) != fmt.Sprint(w.Shape) {
						t.Fatalf("shape %v, libhdf5 2.0 %v", got, w.Shape)
					}
					if d.op.Chunks != nil {
						wantIndex := d.index
						if lv.old {
							wantIndex = IndexBtreeV1
						}
						if ds.ChunkIndexKind() != wantIndex {
							t.Errorf("chunk index %v, want %v", ds.ChunkIndexKind(), wantIndex)
						}
					}
					if w.Raw != nil {
						if got := readAll(t, ds); !bytes.Equal(got, w.Raw) {
							t.Errorf("data differs from libhdf5 2.0's (%d vs %d bytes)", len(got), len(w.Raw))
						}
						return
					}
					vals, err := ds.ReadValues(0, ds.NumElements())
					if err != nil {
						t.Fatal(err)
					}
					got, _ := json.Marshal(vals)
					var wv any
					json.Unmarshal(w.Values, &wv)
					wb, _ := json.Marshal(wv)
					if !bytes.Equal(got, wb) {
						t.Errorf("values %s, libhdf5 2.0 %s", got, wb)
					}
				})
			}
			for path, attr := range map[string]string{"/": "title", "/fixed_f4": "scale"} {
				o, err := f.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				a, err := o.Attribute(attr)
				if err != nil {
					t.Fatal(err)
				}
				w := want.Objects[path].Attrs[attr]
				if w.Raw != nil {
					if !bytes.Equal(a.Raw(), w.Raw) {
						t.Errorf("%s %s: attribute bytes %x, libhdf5 2.0 %x", path, attr, a.Raw(), w.Raw)
					}
					continue
				}
				v, err := a.Value()
				if err != nil {
					t.Fatal(err)
				}
				var wv any
				json.Unmarshal(w.Values, &wv)
				if !reflect.DeepEqual(v, wv) {
					t.Errorf("%s %s: attribute %#v, libhdf5 2.0 %#v", path, attr, v, wv)
				}
			}
		})
	}
}
