package arrowexport

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

var h5Datasets = []string{"f8_2d", "i4_chunked", "u1_3d_chunked", "be_i2", "be_f8_chunked", "gz_f4", "str5",
	"scalar", "compound_padded", "arr2", "enum"}

// TestDatasetViews renders every dataset of testdata/datasets.h5 (written
// by testdata/gen.py with h5py) as .raw and .npy, checks the views, and
// has numpy compare them with h5py's values.
func TestDatasetViews(t *testing.T) {
	f, err := h5core.Open("testdata/datasets.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	for _, name := range h5Datasets {
		o, err := f.Open("/" + name)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := o.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		src, err := DatasetArray(ds)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		raw, err := NewRawView(src)
		if err != nil {
			t.Fatal(err)
		}
		npy, err := NewNpyView(src)
		if err != nil {
			t.Fatal(err)
		}
		rb, nb := checkView(t, raw), checkView(t, npy)
		if string(nb[len(nb)-len(rb):]) != string(rb) {
			t.Fatalf("%s: npy data differs from raw", name)
		}
		switch name {
		case "i4_chunked":
			for i := range 10007 {
				if v := int32(binary.LittleEndian.Uint32(rb[4*i:])); v != int32(-3*i) {
					t.Fatalf("%s[%d] = %d", name, i, v)
				}
			}
		case "be_i2":
			for i := range 100 {
				if v := int16(binary.LittleEndian.Uint16(rb[2*i:])); v != int16(i-50) {
					t.Fatalf("%s[%d] = %d", name, i, v)
				}
			}
		case "compound_padded":
			if src.ElemSize() != 15 || len(rb) != 150 {
				t.Fatalf("%s: packed element %d bytes, raw %d", name, src.ElemSize(), len(rb))
			}
		}
		for _, v := range []struct {
			ext string
			b   []byte
		}{{"raw", rb}, {"npy", nb}} {
			if err := os.WriteFile(filepath.Join(dir, name+"."+v.ext), v.b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	needPython(t, "numpy", "h5py")
	out, err := exec.Command(debianPython, "testdata/check_npy.py", "testdata/datasets.h5", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("check_npy.py: %v\n%s", err, out)
	}
	if got := strings.Count(string(out), "ok "); got != len(h5Datasets) {
		t.Fatalf("check_npy.py checked %d datasets:\n%s", got, out)
	}
	t.Logf("numpy:\n%s", out)
}
