package h5core

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestOldFormatMessages reads the data layout (versions 1 and 2) and fill
// value (version 1 with an undefined fill and the 0xFFFFFFFF size of HDF5
// 1.6, version 2 without a size) messages of testdata/oldformat, written by
// gen_oldformat.py, and compares every dataset with what libhdf5 read back.
func TestOldFormatMessages(t *testing.T) {
	dir := filepath.Join("testdata", "oldformat")
	b, err := os.ReadFile(filepath.Join(dir, "oldformat.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]struct {
		Shape         []uint64 `json:"shape"`
		Raw           string   `json:"raw"`
		LayoutVersion uint8    `json:"layout_version"`
		FillVersion   uint8    `json:"fill_version"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	f, err := Open(filepath.Join(dir, "oldformat.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for path, w := range want {
		t.Run(path, func(t *testing.T) {
			ds := openDataset(t, f, path)
			if ds.layout.version != w.LayoutVersion {
				t.Errorf("layout message version %d, want %d", ds.layout.version, w.LayoutVersion)
			}
			if !reflect.DeepEqual(ds.Shape(), w.Shape) {
				t.Errorf("shape %v, want %v", ds.Shape(), w.Shape)
			}
			if got := hex.EncodeToString(readAll(t, ds)); got != w.Raw {
				t.Errorf("data %s\nwant %s", got, w.Raw)
			}
			fill, set := ds.FillValue()
			if wantSet := path == "/fill_defined_v1"; set != wantSet || set && hex.EncodeToString(fill) != "07000000" {
				t.Errorf("fill value %x (defined %v), want defined=%v", fill, set, wantSet)
			}
		})
	}
}

// TestFillValueMessageOld decodes fill value messages of versions 1 and 2
// as libhdf5 does: size and value only when the fill is defined.
func TestFillValueMessageOld(t *testing.T) {
	f := &File{so: 8, sl: 8}
	tests := []struct {
		name    string
		msg     []byte
		defined bool
		value   []byte
		wantErr bool
	}{
		{"v1 undefined, size -1", []byte{1, 1, 2, 0, 0xff, 0xff, 0xff, 0xff}, false, nil, false},
		{"v1 undefined, no size", []byte{1, 1, 2, 0}, false, nil, false},
		{"v2 undefined, no size", []byte{2, 2, 2, 0}, false, nil, false},
		{"v2 undefined, padding", []byte{2, 2, 2, 0, 0, 0, 0, 0}, false, nil, false},
		{"v1 defined", []byte{1, 1, 2, 1, 2, 0, 0, 0, 7, 0}, true, []byte{7, 0}, false},
		{"v2 defined, default", []byte{2, 1, 2, 1, 0, 0, 0, 0}, false, []byte{}, false},
		{"v2 defined, size -1", []byte{2, 1, 2, 1, 0xff, 0xff, 0xff, 0xff}, false, nil, false},
		{"v2 defined, size past end", []byte{2, 1, 2, 1, 9, 0, 0, 0, 7}, false, nil, true},
		{"v2 defined, size cut", []byte{2, 1, 2, 1, 9}, false, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fv, err := f.parseFillValue(tc.msg, 0)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error, got %+v", fv)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fv.defined != tc.defined || !bytes.Equal(fv.value, tc.value) {
				t.Errorf("defined %v value %v, want %v %v", fv.defined, fv.value, tc.defined, tc.value)
			}
		})
	}
}
