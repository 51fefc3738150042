package h5core

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/internal/h5wasmtest"
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
	v1 := encodeVDSBlockV1([]vdsMapping{{file: "src.h5", dset: "/d", src: all, virt: reg}, {file: "src.h5", dset: "/d", src: reg, virt: reg},
		{file: ".", dset: "/e", src: all, virt: all}})
	f.Add(v1[:len(v1)-4])
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

// encodeVDSBlockV1 encodes mappings as a version 1 mapping block (with its
// checksum), sharing every repeated name and flagging same-file sources,
// as libhdf5 2.0 does.
func encodeVDSBlockV1(maps []vdsMapping) []byte {
	b := binary.LittleEndian.AppendUint64([]byte{1}, uint64(len(maps)))
	firstFile, firstDset := map[string]int{}, map[string]int{}
	for i, m := range maps {
		flags := byte(0)
		fi, fileShared := firstFile[m.file]
		di, dsetShared := firstDset[m.dset]
		switch {
		case m.file == ".":
			flags |= vdsSameFile
		case fileShared:
			flags |= vdsFileShared
		default:
			firstFile[m.file] = i
		}
		if dsetShared {
			flags |= vdsDsetShared
		} else {
			firstDset[m.dset] = i
		}
		b = append(b, flags)
		switch {
		case flags&vdsSameFile != 0:
		case fileShared:
			b = binary.LittleEndian.AppendUint64(b, uint64(fi))
		default:
			b = append(append(b, m.file...), 0)
		}
		if dsetShared {
			b = binary.LittleEndian.AppendUint64(b, uint64(di))
		} else {
			b = append(append(b, m.dset...), 0)
		}
		b = append(append(b, m.src...), m.virt...)
	}
	return binary.LittleEndian.AppendUint32(b, lookup3(b, 0))
}

// rewriteVDSBlockV1 rewrites the one virtual dataset mapping block of an
// HDF5 file (object 1 of its only global heap collection) in version 1
// encoding: the shorter object is followed by the collection's free space.
func rewriteVDSBlockV1(t *testing.T, file []byte) []byte {
	t.Helper()
	col := bytes.Index(file, []byte("GCOL"))
	if col < 0 || bytes.Contains(file[col+4:], []byte("GCOL")) {
		t.Fatal("want exactly one global heap collection")
	}
	end := col + int(binary.LittleEndian.Uint64(file[col+8:]))
	obj := col + 16
	if binary.LittleEndian.Uint16(file[obj:]) != 1 {
		t.Fatalf("first heap object has index %d", binary.LittleEndian.Uint16(file[obj:]))
	}
	size := int(binary.LittleEndian.Uint64(file[obj+8:]))
	h := &File{so: 8, sl: 8, name: "test"}
	maps, err := h.parseVDSBlock(file[obj+16:obj+16+size-4], 0)
	if err != nil {
		t.Fatal(err)
	}
	v1 := encodeVDSBlockV1(maps)
	if len(v1) >= size {
		t.Fatalf("version 1 block of %d bytes, not shorter than version 0's %d", len(v1), size)
	}
	out := bytes.Clone(file)
	binary.LittleEndian.PutUint64(out[obj+8:], uint64(len(v1)))
	copy(out[obj+16:], v1)
	free := obj + 16 + (len(v1)+7)/8*8
	clear(out[obj+16+len(v1) : end])
	binary.LittleEndian.PutUint64(out[free+8:], uint64(end-free)) // object 0: the free space, header included
	return out
}

// TestVDSMappingVersion1 reads a virtual dataset whose mapping block is in
// version 1 encoding (libhdf5 2.0's, for repeated source names): the block
// libhdf5 1.10 wrote for gen_vds_shared.py's mappings, re-encoded. h5core
// and libhdf5 2.0 (h5wasm) must both read what libhdf5 1.10 read from the
// version 0 original.
func TestVDSMappingVersion1(t *testing.T) {
	dir := t.TempDir()
	var want map[string]struct {
		Shape []uint64 `json:"shape"`
		Raw   string   `json:"raw"`
	}
	runH5pyGen(t, "gen_vds_shared.py", dir, &want)
	orig, err := os.ReadFile(filepath.Join(dir, "shared.h5"))
	if err != nil {
		t.Fatal(err)
	}
	v1 := filepath.Join(dir, "shared_v1.h5")
	if err := os.WriteFile(v1, rewriteVDSBlockV1(t, orig), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(v1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds := openDataset(t, f, "/shared")
	maps, err := f.parseVDSMappings(ds.layout)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range maps {
		names = append(names, m.file+":"+m.dset)
	}
	if got := strings.Join(names, " "); got != "frames_000001.h5:/entry/data/frames frames_000001.h5:/entry/data/frames .:/entry/local "+
		"frames_000002.h5:/entry/data/frames frames_000002.h5:/entry/data/more" {
		t.Errorf("mappings %s", got)
	}
	if got := hex.EncodeToString(readAll(t, ds)); got != want["/shared"].Raw {
		t.Errorf("h5core reads %s\nlibhdf5 1.10 %s", got, want["/shared"].Raw)
	}
	w := h5wasmtest.Dump(t, v1, "/shared").Dataset(t, "/shared")
	if got := hex.EncodeToString(w.Raw); got != want["/shared"].Raw {
		t.Errorf("libhdf5 2.0 reads %s\nlibhdf5 1.10  %s", got, want["/shared"].Raw)
	}
}

// TestVDSBlockV1Errors checks the version 1 forms h5core refuses.
func TestVDSBlockV1Errors(t *testing.T) {
	all := []byte{3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	entry := func(flags byte, names ...byte) []byte {
		return append(append([]byte{flags}, names...), append(all, all...)...)
	}
	block := func(entries ...[]byte) []byte {
		b := binary.LittleEndian.AppendUint64([]byte{1}, uint64(len(entries)))
		for _, e := range entries {
			b = append(b, e...)
		}
		return b
	}
	idx := func(i uint64) []byte { return binary.LittleEndian.AppendUint64(nil, i) }
	first := entry(0, []byte("a.h5\x00d\x00")...)
	h := &File{so: 8, sl: 8, name: "test"}
	for _, tc := range []struct {
		name  string
		block []byte
		err   string
	}{
		{"valid", block(first, entry(vdsFileShared|vdsDsetShared, append(idx(0), idx(0)...)...), entry(vdsSameFile, []byte("e\x00")...)), ""},
		{"unknown flags", block(entry(0x08, []byte("a\x00d\x00")...)), "unknown flags 0x8"},
		{"shared with itself", block(entry(vdsFileShared, append(idx(0), "d\x00"...)...)), "not an earlier one"},
		{"shared with a later one", block(first, entry(vdsDsetShared, append([]byte("f\x00"), idx(5)...)...)), "not an earlier one"},
		{"version 2", append([]byte{2}, block(first)[1:]...), "version 2 not supported"},
		{"truncated index", block(first, []byte{vdsFileShared, 0, 0}), "truncated"},
	} {
		_, err := h.parseVDSBlock(tc.block, 0)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
}
