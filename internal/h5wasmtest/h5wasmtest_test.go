package h5wasmtest

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"testing"
)

// TestWriteDump writes a libver v200 file and reads it back: values,
// shapes, filters, attributes and links survive exactly.
func TestWriteDump(t *testing.T) {
	file := filepath.Join(t.TempDir(), "v200.h5")
	raw := make([]byte, 8*3)
	for i, v := range []float64{1.5, math.Inf(-1), math.NaN()} {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	Write(t, Spec{File: file, Objects: []Op{
		{Kind: "group", Path: "/g"},
		{Kind: "dataset", Path: "/g/f4", Dtype: "<f4", Shape: []int64{2, 3}, Maxshape: []int64{-1, 3},
			Chunks: []int64{1, 3}, Compression: "gzip", CompressionOpts: 4, Data: []any{1, 2, 3, 4, 5, "NaN"}},
		{Kind: "dataset", Path: "/g/i8", Dtype: "<i8", Data: []any{"9007199254740993", -1}},
		{Kind: "dataset", Path: "/f8", Dtype: "<f8", Raw: raw},
		{Kind: "dataset", Path: "/s", Data: []string{"x", "yy"}},
		{Kind: "attribute", Path: "/g/f4", Name: "units", Data: "m"},
		{Kind: "resize", Path: "/g/f4", Shape: []int64{3, 3}},
		{Kind: "write_slice", Path: "/g/f4", Ranges: [][]int64{{2, 3}, {}}, Dtype: "<f4", Data: []any{7, 8, 9}},
		{Kind: "softlink", Path: "/soft", Target: "/g/i8"},
		{Kind: "external", Path: "/ext", Filename: "missing.h5", Target: "/x"},
	}})
	f := Dump(t, file)
	f4 := f.Dataset(t, "/g/f4")
	tests := []struct {
		name      string
		got, want any
	}{
		{"f4 shape", f4.Shape, []int64{3, 3}},
		{"f4 maxshape", f4.Maxshape, []int64{-1, 3}},
		{"f4 chunks", f4.Chunks, []int64{1, 3}},
		{"f4 filters", f4.Filters, []Filter{{ID: 1, Name: "deflate", CDValues: []uint32{4}}}},
		{"f4 values", string(f4.Values), `[1,2,3,4,5,"NaN",7,8,9]`},
		{"f4 units", string(f4.Attrs["units"].Values), `"m"`},
		{"i8 values", string(f.Dataset(t, "/g/i8").Values), `["9007199254740993","-1"]`},
		{"f8 raw", f.Dataset(t, "/f8").Raw, raw},
		{"s values", string(f.Dataset(t, "/s").Values), `["x","yy"]`},
		{"soft link", string(f.Dataset(t, "/soft").Values), `["9007199254740993","-1"]`},
		{"external link", f.Objects["/ext"], &Object{Kind: "external", Filename: "missing.h5", ObjPath: "/x"}},
	}
	for _, tc := range tests {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	only := Dump(t, file, "/s")
	if len(only.Objects) != 1 || only.Objects["/s"] == nil {
		b, _ := json.Marshal(only.Objects)
		t.Errorf("dump of /s only: %s", b)
	}
}
