package fuse_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/internal/h5wasmtest"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestHDF5V2Mount writes files with libhdf5 2.0 (h5wasm) at file format
// 2.0 ("v200") and "latest" (contiguous data, every chunk index kind,
// gzip, datasets grown after writing, an external link into a second 2.0
// file), mounts each through the kernel as `h5fs mount FILE` does, and
// compares every dataset's .raw view, its size and the data of its .npy
// view with what libhdf5 2.0 reads; the external link reads as its target.
func TestHDF5V2Mount(t *testing.T) {
	dir := t.TempDir()
	f64 := func(n int, seed float64) []byte {
		var b []byte
		for i := range n {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(math.Sin(float64(i)*0.37+seed)*1e3))
		}
		return b
	}
	i32 := func(n int, seed int32) []byte {
		var b []byte
		for i := range n {
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(i)*7919-seed))
		}
		return b
	}
	s := func(d ...int64) []int64 { return d }
	h5wasmtest.Write(t, h5wasmtest.Spec{File: filepath.Join(dir, "target.h5"), Objects: []h5wasmtest.Op{
		{Kind: "group", Path: "/g"},
		{Kind: "dataset", Path: "/g/frames", Dtype: "<i4", Shape: s(6, 10), Chunks: s(2, 10), Compression: "gzip", CompressionOpts: 4, Raw: i32(60, 5)},
	}})
	ops := []h5wasmtest.Op{
		{Kind: "dataset", Path: "/contiguous", Dtype: "<f8", Shape: s(300), Raw: f64(300, 1)},
		{Kind: "dataset", Path: "/single", Dtype: "<i4", Shape: s(6, 7), Chunks: s(6, 7), Compression: "gzip", CompressionOpts: 4, Raw: i32(42, 2)},
		{Kind: "dataset", Path: "/fixed", Dtype: "<f8", Shape: s(50, 40), Chunks: s(7, 9), Compression: "gzip", CompressionOpts: 4, Raw: f64(2000, 3)},
		{Kind: "dataset", Path: "/earray", Dtype: "<i4", Shape: s(25), Maxshape: s(-1), Chunks: s(4), Raw: i32(25, 4)},
		{Kind: "resize", Path: "/earray", Shape: s(60)},
		{Kind: "write_slice", Path: "/earray", Ranges: [][]int64{{58, 60}}, Dtype: "<i4", Raw: i32(2, 9)},
		{Kind: "group", Path: "/g"},
		{Kind: "dataset", Path: "/g/btree2", Dtype: "<f8", Shape: s(9, 11), Maxshape: s(-1, -1), Chunks: s(2, 3), Compression: "gzip", CompressionOpts: 4, Raw: f64(99, 6)},
		{Kind: "external", Path: "/ext", Filename: "target.h5", Target: "/g/frames"},
	}
	paths := []string{"/contiguous", "/single", "/fixed", "/earray", "/g/btree2", "/ext"}
	for _, libver := range []string{"v200", "latest"} {
		t.Run(libver, func(t *testing.T) {
			name := filepath.Join(dir, libver+".h5")
			h5wasmtest.Write(t, h5wasmtest.Spec{File: name, Libver: libver, Objects: ops})
			want := h5wasmtest.Dump(t, name)
			mp := fusetest.MountFile(t, name, nil)
			for _, p := range paths {
				t.Run(p[1:], func(t *testing.T) {
					w := want.Dataset(t, p)
					if len(w.Raw) == 0 {
						t.Fatalf("libhdf5 2.0 returned no raw bytes for %s", p)
					}
					view := fusetest.MountPath(mp, p)
					got, err := os.ReadFile(view + ".raw")
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, w.Raw) {
						t.Fatalf("%s.raw: %d bytes differ from libhdf5 2.0's %d", p, len(got), len(w.Raw))
					}
					if st, err := os.Stat(view + ".raw"); err != nil || st.Size() != int64(len(w.Raw)) {
						t.Fatalf("%s.raw: stat %v, %v; want size %d", p, st, err, len(w.Raw))
					}
					npy, err := os.ReadFile(view + ".npy")
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.HasSuffix(npy, w.Raw) || !bytes.HasPrefix(npy, []byte("\x93NUMPY")) {
						t.Fatalf("%s.npy (%d bytes) does not end with the data", p, len(npy))
					}
				})
			}
		})
	}
}

// TestZFPMount writes zfp-compressed datasets with Debian's H5Z-ZFP plugin
// through h5py (several chunks, partial at the edges, lossy and reversible
// modes), mounts the file through the kernel and compares each .raw view
// with what libhdf5 reads through the plugin.
func TestZFPMount(t *testing.T) {
	dir := t.TempDir()
	plugins := pluginPath(t, "libh5zzfp.so") // hdf5-filter-plugin-zfp-serial
	name := filepath.Join(dir, "zfp.h5")
	py := `import h5py, numpy as np, struct, sys
rate = list(struct.unpack("<2I", struct.pack("<d", 9.0)))
x = np.linspace(0, 20, 101 * 37 * 9).reshape(101, 37, 9)
with h5py.File(sys.argv[1], "w") as f:
    f.create_dataset("rate", data=np.sin(x) * 100, chunks=(16, 16, 4), compression=32013, compression_opts=(1, 0) + tuple(rate))
    f.create_dataset("g/rev", data=(np.cos(x) * 1e5).astype("<i4"), chunks=(50, 10, 9), compression=32013, compression_opts=(5, 0))
    f.create_dataset("prec", data=np.sin(x[:, :, 0]).astype("<f4"), chunks=(30, 20), compression=32013, compression_opts=(2, 0, 14))
with h5py.File(sys.argv[1], "r") as f:
    for p in ("rate", "g/rev", "prec"):
        f[p][...].tofile(sys.argv[1] + "." + p.replace("/", "_"))
`
	cmd := exec.Command("/usr/bin/python3", "-c", py, name)
	cmd.Env = append(os.Environ(), "HDF5_PLUGIN_PATH="+plugins)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("h5py with H5Z-ZFP (python3-h5py and hdf5-filter-plugin-zfp-serial, from scripts/test.sh): %v\n%s", err, out)
	}
	mp := fusetest.MountFile(t, name, nil)
	for _, p := range []string{"rate", "g/rev", "prec"} {
		want, err := os.ReadFile(name + "." + strings.ReplaceAll(p, "/", "_"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(fusetest.MountPath(mp, "/"+p) + ".raw")
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s.raw: %d bytes differ from libhdf5's %d", p, len(got), len(want))
		}
	}
}
