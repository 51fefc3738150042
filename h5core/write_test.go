package h5core_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/h5core/crashtest"
	"github.com/h5fs/h5fs/internal/h5wasmtest"
)

// copyFixture copies testdata/write/NAME.h5 (made by testdata/gen_write.py)
// to a temporary file and returns its path.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "write", name+".h5"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name+".h5")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// le encodes values as little-endian elements of size bytes (integers,
// or float64 when size is 8 and float is set).
func le(size int, float bool, vals ...float64) []byte {
	out := make([]byte, size*len(vals))
	for i, v := range vals {
		b := out[i*size:]
		switch {
		case float:
			binary.LittleEndian.PutUint64(b, math.Float64bits(v))
		case size == 2:
			binary.LittleEndian.PutUint16(b, uint16(int16(v)))
		case size == 4:
			binary.LittleEndian.PutUint32(b, uint32(int32(v)))
		default:
			binary.LittleEndian.PutUint64(b, uint64(int64(v)))
		}
	}
	return out
}

// appendCase appends rows to one dataset; want is what h5py must then
// show, computed from what it showed before.
type appendCase struct {
	path  string
	size  int  // element size
	float bool // float64 elements
	width int  // elements per row (1 for 1-D)
	rows  int  // rows to append
	err   bool // the append must fail, changing nothing
}

var appendCases = map[string][]appendCase{
	"earliest": {
		{path: "/t/a", size: 8, width: 1, rows: 7},
		{path: "/t/b", size: 8, float: true, width: 1, rows: 9},
		{path: "/t/c", size: 4, width: 3, rows: 5},
		{path: "/t/many", size: 8, width: 1, rows: 700},
		{path: "/fixed", size: 4, width: 1, rows: 10},
		{path: "/fixed", size: 4, width: 1, rows: 11, err: true},
		{path: "/contig", size: 4, width: 1, rows: 1, err: true},
		{path: "/t/empty", size: 8, width: 1, rows: 9},
		{path: "/fixed_empty", size: 4, width: 1, rows: 3},
	},
	"latest": {
		{path: "/t/a", size: 8, width: 1, rows: 7},
		{path: "/t/b", size: 8, float: true, width: 1, rows: 9},
		{path: "/t/c", size: 4, width: 3, rows: 5},
		{path: "/t/many", size: 8, width: 1, rows: 700},
		{path: "/fixed", size: 4, width: 1, rows: 10},
		{path: "/fixed", size: 4, width: 1, rows: 11, err: true},
		{path: "/contig", size: 4, width: 1, rows: 1, err: true},
		{path: "/paged", size: 2, width: 1, rows: 1500},
		{path: "/implicit", size: 4, width: 1, rows: 10},
		{path: "/t/empty", size: 8, width: 1, rows: 9},
		{path: "/fixed_empty", size: 4, width: 1, rows: 3},
		{path: "/ea_big", size: 4, width: 1, rows: 5000},
		{path: "/bt2", size: 4, width: 3, rows: 400},
		{path: "/bt2_gzip", size: 4, width: 3, rows: 7},
		{path: "/single", size: 4, width: 1, rows: 1, err: true},
		{path: "/single_empty", size: 4, width: 1, rows: 0},
	},
}

// The user-block fixtures hold the common part of their libver's file.
func init() {
	for _, libver := range []string{"earliest", "latest"} {
		var cases []appendCase
		for _, c := range appendCases[libver] {
			if strings.HasPrefix(c.path, "/t/") || c.path == "/fixed" || c.path == "/fixed_empty" || c.path == "/contig" {
				cases = append(cases, c)
			}
		}
		appendCases[libver+"_ub"] = cases
	}
}

// checkUserBlock fails unless the file at p starts with the same user
// block as the fixture it was copied from.
func checkUserBlock(t *testing.T, fixture, p string) {
	t.Helper()
	f, err := h5core.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	n := f.UserBlockSize()
	f.Close()
	want, err := os.ReadFile(filepath.Join("testdata", "write", fixture+".h5"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(fixture, "_ub") && n != 512 {
		t.Errorf("user block of %d bytes, want 512", n)
	}
	if !bytes.Equal(got[:n], want[:n]) {
		t.Errorf("the %d-byte user block changed", n)
	}
}

func rowsValues(c appendCase, start int) []float64 {
	var v []float64
	for r := range c.rows {
		for k := range c.width {
			v = append(v, float64(((start+r)*100+k+7)%30000))
		}
	}
	return v
}

// appendRows appends c's rows (rowsValues) to its dataset in tx, or
// checks that growing it fails when c.err is set, and updates want (what
// libhdf5 must then see).
func appendRows(t *testing.T, tx *h5core.Tx, want crashtest.FileDigest, c appendCase) {
	t.Helper()
	d := want.Datasets[c.path]
	n := int(d.Shape[0])
	dims := slices.Clone(d.Shape)
	dims[0] += uint64(c.rows)
	err := tx.SetExtent(c.path, dims)
	if c.err {
		if err == nil {
			t.Errorf("%s: growing to %v succeeded, want an error", c.path, dims)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v", c.path, err)
	}
	vals := rowsValues(c, n)
	if err := tx.WriteAt(c.path, le(c.size, c.float, vals...), int64(n*c.width*c.size)); err != nil {
		t.Fatalf("%s: %v", c.path, err)
	}
	d.Shape = dims
	for _, v := range vals {
		d.Values = append(d.Values, v)
	}
	want.Datasets[c.path] = d
}

func TestWriteAppendLibhdf5(t *testing.T) {
	for file, cases := range appendCases {
		t.Run(file, func(t *testing.T) {
			p := copyFixture(t, file)
			before, err := crashtest.Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			want := before[p]
			rw, err := h5core.OpenRW(p)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := rw.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cases {
				appendRows(t, tx, want, c)
			}
			if err := tx.Barrier(); err != nil {
				t.Fatal(err)
			}
			if err := tx.SetAttribute("/t", "NROWS", le(8, false, 17)); err != nil {
				t.Fatal(err)
			}
			want.Attrs["/t"]["NROWS"] = float64(17)
			if err := tx.SetAttribute("/attrs", "a05", le(8, false, -5)); err != nil {
				t.Fatal(err)
			}
			want.Attrs["/attrs"]["a05"] = float64(-5)
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(h5core.JournalPath(p)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("journal left after commit: %v", err)
			}
			after, err := crashtest.Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			compareDigest(t, after[p], want)
			checkUserBlock(t, file, p)
			if err := crashtest.H5dump(p); err != nil {
				t.Error(err)
			}
			if err := crashtest.H5ls(p); err != nil {
				t.Error(err)
			}
			compareH5wasm(t, h5wasmtest.Dump(t, p), want)
		})
	}
}

// compareDigest reports every difference between what libhdf5 saw and
// what it should have.
func compareDigest(t *testing.T, got, want crashtest.FileDigest) {
	t.Helper()
	if got.Error != "" {
		t.Fatalf("libhdf5: %s", got.Error)
	}
	for p, w := range want.Datasets {
		g, ok := got.Datasets[p]
		if !ok {
			t.Errorf("%s: missing", p)
			continue
		}
		if !slices.Equal(g.Shape, w.Shape) {
			t.Errorf("%s: shape %v, want %v", p, g.Shape, w.Shape)
			continue
		}
		for i := range w.Values {
			if g.Values[i] != w.Values[i] {
				t.Errorf("%s: element %d is %v, want %v", p, i, g.Values[i], w.Values[i])
				break
			}
		}
	}
	for o, attrs := range want.Attrs {
		for n, v := range attrs {
			if _, isList := v.([]any); isList {
				continue
			}
			if got.Attrs[o][n] != v {
				t.Errorf("%s: attribute %s is %v, want %v", o, n, got.Attrs[o][n], v)
			}
		}
	}
}

// compareH5wasm checks what libhdf5 2.0 (h5wasm) reads against want.
func compareH5wasm(t *testing.T, got *h5wasmtest.File, want crashtest.FileDigest) {
	t.Helper()
	for p, w := range want.Datasets {
		o := got.Objects[p]
		if o == nil {
			t.Errorf("h5wasm: %s: missing", p)
			continue
		}
		var shape []uint64
		for _, n := range o.Shape {
			shape = append(shape, uint64(n))
		}
		if !slices.Equal(shape, w.Shape) {
			t.Errorf("h5wasm: %s: shape %v, want %v", p, shape, w.Shape)
			continue
		}
		vals := flatJSON(t, o.Values)
		if len(vals) != len(w.Values) {
			t.Errorf("h5wasm: %s: %d values, want %d", p, len(vals), len(w.Values))
			continue
		}
		for i := range vals {
			if vals[i] != w.Values[i] {
				t.Errorf("h5wasm: %s: element %d is %v, want %v", p, i, vals[i], w.Values[i])
				break
			}
		}
	}
	for o, attrs := range want.Attrs {
		for n, v := range attrs {
			if _, ok := v.(float64); !ok {
				continue
			}
			a := got.Objects[o].Attrs[n]
			if a == nil {
				t.Errorf("h5wasm: %s: attribute %s missing", o, n)
				continue
			}
			if g := flatJSON(t, a.Values); len(g) != 1 || g[0] != v {
				t.Errorf("h5wasm: %s: attribute %s is %v, want %v", o, n, g, v)
			}
		}
	}
}

// flatJSON flattens h5wasm's values (nested arrays; big integers as
// strings) into float64s.
func flatJSON(t *testing.T, raw json.RawMessage) []any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("h5wasm values: %v", err)
	}
	var out []any
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			f, err := strconv.ParseFloat(x, 64)
			if err != nil {
				out = append(out, x)
				return
			}
			out = append(out, f)
		default:
			out = append(out, x)
		}
	}
	walk(v)
	return out
}

// TestBtreeGrowth appends enough chunks to datasets h5py wrote with v1
// and v2 B-tree chunk indexes that their nodes overflow: a root leaf
// that must split into two levels, a two-level v1 tree that must grow a
// third, a filtered v2 tree. The trees grow deeper, and libhdf5 (h5py,
// h5dump) reads every value.
func TestBtreeGrowth(t *testing.T) {
	for _, tc := range []struct {
		file string
		c    appendCase
	}{
		{"earliest", appendCase{path: "/t/a", size: 8, width: 1, rows: 300}},     // 3 chunks of 4 → 78 (64 per node)
		{"earliest", appendCase{path: "/t/many", size: 8, width: 1, rows: 9000}}, // 500 chunks of 2 → 5000 (> 64²)
		{"latest", appendCase{path: "/bt2", size: 4, width: 3, rows: 600}},       // 4 chunks of 2×2 → 604
		{"latest", appendCase{path: "/bt2_gzip", size: 4, width: 3, rows: 600}},  // filtered records
		{"earliest_ub", appendCase{path: "/t/a", size: 8, width: 1, rows: 300}},  // behind a user block
	} {
		t.Run(tc.file+tc.c.path, func(t *testing.T) {
			p := copyFixture(t, tc.file)
			depth := func() int {
				f, err := h5core.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				d, err := h5core.BtreeDepth(f, tc.c.path)
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			before, err := crashtest.Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			want := before[p]
			d0 := depth()
			rw, err := h5core.OpenRW(p)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := rw.Begin()
			if err != nil {
				t.Fatal(err)
			}
			appendRows(t, tx, want, tc.c)
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}
			d1 := depth()
			t.Logf("%s %s: B-tree depth %d → %d", tc.file, tc.c.path, d0, d1)
			if d1 <= d0 {
				t.Errorf("B-tree depth %d → %d: the append did not grow the tree", d0, d1)
			}
			after, err := crashtest.Digest(p)
			if err != nil {
				t.Fatal(err)
			}
			compareDigest(t, after[p], want)
			checkUserBlock(t, tc.file, p)
			if err := crashtest.H5dump(p); err != nil {
				t.Error(err)
			}
			if err := crashtest.H5ls(p); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestChunkKeepsStoredBytes reads a dataset whose chunks decode to their
// stored bytes (shuffle of 1-byte elements returns its input): each cached
// chunk is then the buffer its stored bytes were read into, which must not
// go back to the pool the next chunk is read from. Every chunk read again
// from the cache after the others must still hold its own values.
func TestChunkKeepsStoredBytes(t *testing.T) {
	p := copyFixture(t, "latest")
	rw, err := h5core.OpenRW(p)
	if err != nil {
		t.Fatal(err)
	}
	typ, err := h5core.NumberType(false, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 4096)
	for i := range want {
		want[i] = byte(i * 7 % 251)
	}
	tx, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	spec := h5core.DatasetSpec{Type: typ, Dims: []uint64{4096}, Chunk: []uint64{1024}, Filters: []h5core.Filter{{ID: h5core.FilterShuffle}}}
	if err := tx.CreateDataset("/", "bytes", spec); err != nil {
		t.Fatal(err)
	}
	if err := tx.WriteAt("/bytes", want, 0); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	f, err := h5core.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := f.Open("/bytes")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 1024)
	for pass := range 2 {
		for c := range 4 {
			if _, err := ds.ReadAt(got, int64(c*1024)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want[c*1024:(c+1)*1024]) {
				t.Fatalf("pass %d: chunk %d holds other bytes", pass, c)
			}
		}
	}
}
