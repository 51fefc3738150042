package h5core

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"
)

// TestVirtualDatasets reads gen_vds.py's virtual datasets (a stack of
// frames from several files with one file missing, strided, partial and
// irregular same-file mappings, a source in a subfolder, an unlimited
// mapping over a source grown later, printf-style %b source file and
// dataset names up to the first missing source, "%%" in a name) and
// compares shape and values with what libhdf5 (h5py) reads.
func TestVirtualDatasets(t *testing.T) {
	dir := t.TempDir()
	var want map[string]struct {
		Shape []uint64 `json:"shape"`
		Raw   string   `json:"raw"`
	}
	runH5pyGen(t, "gen_vds.py", dir, &want)
	f, err := Open(filepath.Join(dir, "vds.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for path, w := range want {
		t.Run(path, func(t *testing.T) {
			ds := openDataset(t, f, path)
			if ds.Layout() != "virtual" {
				t.Fatalf("layout %s", ds.Layout())
			}
			if fmt.Sprint(ds.Shape()) != fmt.Sprint(w.Shape) {
				t.Fatalf("shape %v, libhdf5 %v", ds.Shape(), w.Shape)
			}
			all := readAll(t, ds)
			if got := hex.EncodeToString(all); got != w.Raw {
				t.Fatalf("data %s\nlibhdf5   %s", got, w.Raw)
			}
			// every sub-range, including ones starting and ending inside elements
			for off := 0; off < len(all); off += 3 {
				for _, n := range []int{1, 5, 17, len(all) - off} {
					n = min(n, len(all)-off)
					p := make([]byte, n)
					if _, err := ds.ReadAt(p, int64(off)); err != nil {
						t.Fatalf("ReadAt(%d, %d): %v", n, off, err)
					}
					if string(p) != string(all[off:off+n]) {
						t.Fatalf("ReadAt(%d, %d) differs from the whole read", n, off)
					}
				}
			}
		})
	}
}

// FuzzVDSMapping decodes arbitrary mapping blocks and their selections
// (over a fixed extent, with unlimited counts replaced as for a source of
// 3 rows): nothing may panic, and equal-sized pairs must zip.
func FuzzVDSMapping(f *testing.F) {
	all := []byte{3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	reg := []byte{2, 0, 0, 0, 3, 0, 0, 0, 1, 8, 2, 0, 0, 0}
	for _, v := range []uint64{0, 1, ^uint64(0), 1, 0, 1, 1, 5} {
		reg = binary.LittleEndian.AppendUint64(reg, v)
	}
	block := append([]byte{0}, binary.LittleEndian.AppendUint64(nil, 1)...)
	block = append(block, "src.h5\x00/d\x00"...)
	f.Add(append(append(block, all...), reg...))
	f.Add(append(append(block, reg...), reg...))
	h := &File{so: 8, sl: 8, name: "fuzz"}
	dims := []uint64{4, 5}
	f.Fuzz(func(t *testing.T, b []byte) {
		maps, err := h.parseVDSBlock(b, 0)
		if err != nil {
			return
		}
		for _, m := range maps {
			ssel, vsel := m.src, m.virt
			if _, at, w, ok := regularUnlimited(ssel); ok {
				ssel = withCount(ssel, at, w, fullBlocks(regularField(ssel, at, w, 0), regularField(ssel, at, w, 1), regularField(ssel, at, w, 3), 3))
			}
			if _, at, w, ok := regularUnlimited(vsel); ok {
				vsel = withCount(vsel, at, w, 2)
			}
			vs, err1 := decodeSelectionBody(h.decoder(vsel, 0), 0, dims)
			ss, err2 := decodeSelectionBody(h.decoder(ssel, 0), 0, dims)
			if err1 != nil || err2 != nil || vs.Len() != ss.Len() {
				continue
			}
			if _, err := appendPairs(nil, vs, ss, dims, &Dataset{space: &dataspace{kind: spaceSimple, dims: dims}}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestVDSSourceName expands printf-style source names as libhdf5 does.
func TestVDSSourceName(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		printf     bool
	}{
		{"data_%b.h5", "data_12.h5", true},
		{"/f/f%b_%b", "/f/f12_12", true},
		{"100%%.h5", "100%.h5", false},
		{"%%b", "%b", false},
		{"plain.h5", "plain.h5", false},
		{"bad%d.h5", "", false},
		{"lone%", "", false},
	} {
		got, err := vdsSourceName(tc.name, 12)
		if (err != nil) != (tc.want == "") || got != tc.want || printfName(tc.name) != tc.printf {
			t.Errorf("%q: got %q, %v, printf %v; want %q, printf %v", tc.name, got, err, printfName(tc.name), tc.want, tc.printf)
		}
	}
}
