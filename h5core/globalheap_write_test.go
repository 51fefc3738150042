package h5core_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/internal/h5wasmtest"
)

// genVlen writes gen_vlen.py's files into a temporary directory.
func genVlen(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("/usr/bin/python3", "testdata/gen_vlen.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("gen_vlen.py (needs Debian's python3-h5py, installed by scripts/test.sh): %v\n%s", err, out)
	}
	return dir
}

// vlenStrings returns the strings appended to a dataset: short and long,
// empty, non-ASCII, and one larger than a collection can grow to.
func vlenStrings(n int) []string {
	var s []string
	for i := range n {
		switch {
		case i%17 == 3:
			s = append(s, "")
		case i%29 == 5:
			s = append(s, strings.Repeat("λ", 700+i))
		default:
			s = append(s, fmt.Sprintf("row %d", i))
		}
	}
	return append(s, strings.Repeat("z", 70000))
}

// datasetOf opens the dataset at path of f.
func datasetOf(t *testing.T, f *h5core.File, path string) *h5core.Dataset {
	t.Helper()
	o, err := f.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// appendVlen appends strs to the 1-D vlen string dataset at path in tx
// and returns its new extent.
func appendVlen(t *testing.T, rw *h5core.RW, tx *h5core.Tx, path string, strs []string, tail int) uint64 {
	t.Helper()
	ds := datasetOf(t, rw.File(), path)
	n := ds.Shape()[0]
	seqs := make([][]byte, len(strs))
	for i, s := range strs {
		seqs[i] = []byte(s)
	}
	elems, err := tx.NewVlen(ds.Type, seqs)
	if err != nil {
		t.Fatal(err)
	}
	ext := n + uint64(len(strs)+tail)
	if err := tx.SetExtent(path, []uint64{ext}); err != nil {
		t.Fatal(err)
	}
	if err := tx.WriteAt(path, elems, int64(n)*int64(ds.Type.Size)); err != nil {
		t.Fatal(err)
	}
	return ext
}

// TestNewVlenLibhdf5 appends variable-length strings to datasets h5py
// wrote in the earliest and the latest format (one filtered, with a fill
// value held in the global heap), in two transactions, and checks what
// h5core, libhdf5 1.10 (h5py, h5dump) and libhdf5 2.0 (h5wasm) read.
func TestNewVlenLibhdf5(t *testing.T) {
	dir := genVlen(t)
	for _, name := range []string{"earliest", "latest"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name+".h5")
			want := map[string][]any{
				"/s": {"alpha", "", "γάμμα", strings.Repeat("b", 100), "c", "dd"},
				"/n": {"x", "<NA>", "yz"},
			}
			rw, err := h5core.OpenRW(p)
			if err != nil {
				t.Fatal(err)
			}
			for round, k := range []int{40, 9} {
				tx, err := rw.Begin()
				if err != nil {
					t.Fatal(err)
				}
				strs := vlenStrings(k)
				for i := range strs {
					strs[i] = fmt.Sprint(round) + strs[i]
				}
				for _, path := range []string{"/s", "/n"} {
					appendVlen(t, rw, tx, path, strs, 0)
					for _, s := range strs {
						want[path] = append(want[path], s)
					}
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			// rows past the written ones in a written chunk are null
			// (""), not the fill: libhdf5 deletes the heap object of an
			// element it overwrites. (A chunk never written would read as
			// the fill, but libhdf5 1.10 cannot read one of a dataset with
			// a variable-length fill in a file open read-only.)
			tx, err := rw.Begin()
			if err != nil {
				t.Fatal(err)
			}
			n := uint64(len(want["/n"]))
			tail := int((n+1+3)/4*4 - n - 1)
			appendVlen(t, rw, tx, "/n", []string{"last"}, tail)
			want["/n"] = append(want["/n"], "last")
			for range tail {
				want["/n"] = append(want["/n"], "")
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			for path, w := range want {
				ds := datasetOf(t, rw.File(), path)
				got, err := ds.ReadValues(0, ds.Shape()[0])
				if err != nil {
					t.Fatal(err)
				}
				if d := firstDiff(got, w); d != "" {
					t.Errorf("h5core reads %s: %s", path, d)
				}
			}
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			d, err := crashtest.Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			if d[p].Error != "" {
				t.Fatalf("h5py: %s", d[p].Error)
			}
			for path, w := range want {
				if d := firstDiff(d[p].Datasets[path].Values, w); d != "" {
					t.Errorf("h5py reads %s: %s", path, d)
				}
			}
			if err := crashtest.H5dump(p); err != nil {
				t.Error(err)
			}
			wasm := h5wasmtest.Dump(t, p)
			for path, w := range want {
				var got []any
				if err := json.Unmarshal(wasm.Dataset(t, path).Values, &got); err != nil {
					t.Fatalf("h5wasm %s: %v", path, err)
				}
				if d := firstDiff(got, w); d != "" {
					t.Errorf("libhdf5 2.0 reads %s: %s", path, d)
				}
			}
		})
	}
}

// firstDiff describes the first difference between two lists of
// values, "" if none.
func firstDiff(got, want []any) string {
	for i := range min(len(got), len(want)) {
		if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
			return fmt.Sprintf("value %d is %.60q, want %.60q", i, fmt.Sprint(got[i]), fmt.Sprint(want[i]))
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%d values, want %d", len(got), len(want))
	}
	return ""
}

// collections returns the global heap collections of a file's bytes,
// found by signature, in file order.
func collections(t *testing.T, p string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for i := bytes.Index(b, []byte("GCOL")); i >= 0; {
		size := binary.LittleEndian.Uint64(b[i+8:])
		out = append(out, b[i:i+int(size)])
		j := bytes.Index(b[i+int(size):], []byte("GCOL"))
		if j < 0 {
			break
		}
		i += int(size) + j
	}
	return out
}

// TestNewVlenLayout checks that collections are sized and filled as
// libhdf5 does it: "", "abc" and 5000 "x" written one at a time, with
// the chunk written between (a new collection for the long string) and
// all at once (the collection, last in the file, grows), give the
// collections libhdf5 wrote for the same strings, byte for byte.
func TestNewVlenLayout(t *testing.T) {
	dir := genVlen(t)
	strs := [][]byte{{}, []byte("abc"), bytes.Repeat([]byte("x"), 5000)}
	for _, tc := range []struct {
		ref     string
		batches [][][]byte
	}{
		{"heap_libhdf5.h5", [][][]byte{strs[:1], strs[1:2], strs[2:]}},
		{"heap_grown.h5", [][][]byte{strs}},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "mine.h5")
			b, err := os.ReadFile(filepath.Join(dir, "heap_base.h5"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			rw, err := h5core.OpenRW(p)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := rw.Begin()
			if err != nil {
				t.Fatal(err)
			}
			ds := datasetOf(t, rw.File(), "/s")
			row := int64(0)
			for _, batch := range tc.batches {
				elems, err := tx.NewVlen(ds.Type, batch)
				if err != nil {
					t.Fatal(err)
				}
				if err := tx.WriteAt("/s", elems, row*int64(ds.Type.Size)); err != nil {
					t.Fatal(err)
				}
				row += int64(len(batch))
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			got, want := collections(t, p), collections(t, filepath.Join(dir, tc.ref))
			if len(got) != len(want) {
				t.Fatalf("%d collections, libhdf5 wrote %d", len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Errorf("collection %d: %d bytes differ from libhdf5's %d", i, len(got[i]), len(want[i]))
				}
			}
			d, err := crashtest.Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(d[p].Datasets["/s"].Values); got != fmt.Sprintf("[ abc %s ]", strs[2]) {
				t.Errorf("h5py reads %.40s…", got)
			}
		})
	}
}
