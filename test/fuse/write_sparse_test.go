package fuse

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/internal/sparsetest"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestWriteSparseAppend defines, overwrites and erases elements of a
// sparse dataset by appending to its coo.csv through a read-write kernel
// mount (one define beyond the extent, which grows it within the
// maximum), checks that malformed lines, coordinates outside the maximum
// extent and values the type cannot hold are refused with EINVAL and
// nothing of that open file commits, and reads the result back through
// coo.csv after a remount and through the independent decoder.
func TestWriteSparseAppend(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join("..", "..", "sparsecoo", "testdata", "sparse_2d_int32_fa.h5"))
	mp, unmount := fusetest.MountRW(t, name, nil)
	coo := filepath.Join(mp, "int32_fa", "coo.csv")
	lines := csvLines(t, coo)
	header, model := lines[0], map[[2]int]string{}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		model[[2]int{atoi(t, f[0]), atoi(t, f[1])}] = f[2]
	}
	if len(model) != 48 {
		t.Fatalf("coo.csv has %d elements, want 48", len(model))
	}
	// (0,0) is new, (25,3) grows the extent to 26 rows, (0,6) is erased,
	// (3,5) overwritten
	if err := appendTo(coo, []byte("0,0,5\n25,3,-1\n0,6,\n3,5,123\n")); err != nil {
		t.Fatalf("append: %v", err)
	}
	model[[2]int{0, 0}], model[[2]int{25, 3}], model[[2]int{3, 5}] = "5", "-1", "123"
	delete(model, [2]int{0, 6})
	want := cooLines(header, model)
	if got := csvLines(t, coo); !slices.Equal(got, want) {
		t.Fatalf("after the append coo.csv is\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if size := mtxSize(t, filepath.Join(mp, "int32_fa", "matrix.mtx")); size != "26 16 49" {
		t.Errorf("after the append matrix.mtx has size line %q, want \"26 16 49\"", size)
	}
	for _, bad := range []string{"1,1,9\n1,x,2\n", "1,1,9\n27,0,1\n", "1,1,9\n1,2,99999999999\n", "1,1,9\n1,2\n"} {
		if err := appendTo(coo, []byte(bad)); !errors.Is(err, syscall.EINVAL) {
			t.Errorf("appending %q: %v, want EINVAL", bad, err)
		}
	}
	if got := csvLines(t, coo); !slices.Equal(got, want) {
		t.Fatalf("after refused appends coo.csv is\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	unmount()

	if got := csvLines(t, filepath.Join(fusetest.Mount(t, name, nil), "int32_fa", "coo.csv")); !slices.Equal(got, want) {
		t.Fatalf("after a remount coo.csv is\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	dec, err := sparsetest.Decode(name, "/int32_fa", "<i4")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dec.Shape, []uint64{26, 16}) {
		t.Errorf("the independent decoder reads shape %v, want [26 16]", dec.Shape)
	}
	var decoded []string
	for _, row := range dec.COO {
		decoded = append(decoded, fmt.Sprintf("%d,%d,%s", int(row[0]), int(row[1]), strconv.FormatFloat(row[2], 'f', -1, 64)))
	}
	if !slices.Equal(decoded, want[1:]) {
		t.Errorf("the independent decoder reads\n%s\nwant\n%s", strings.Join(decoded, "\n"), strings.Join(want[1:], "\n"))
	}
}

// cooLines returns the lines of a rank-2 coo.csv holding model, in
// row-major order.
func cooLines(header string, model map[[2]int]string) []string {
	keys := make([][2]int, 0, len(model))
	for k := range model {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int { return slices.Compare(a[:], b[:]) })
	lines := []string{header}
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%d,%d,%s", k[0], k[1], model[k]))
	}
	return lines
}

// atoi parses a coordinate of a coo.csv line.
func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mtxSize returns the size line of a Matrix Market file.
func mtxSize(t *testing.T, name string) string {
	t.Helper()
	for _, l := range csvLines(t, name) {
		if !strings.HasPrefix(l, "%") {
			return l
		}
	}
	t.Fatalf("%s has no size line", name)
	return ""
}

// TestWriteSparseTwoHandles commits batches to one sparse dataset (an
// extensible array, rows unlimited) through two coo.csv handles of a
// read-write mount: first two open handles each growing the extent, the
// one that grew it further closed (committed) first, then two
// goroutines committing batches at the same time. The extent ends as the
// largest asked for, each element holds the value of the last commit
// that touched it, and coo.csv and the independent decoder agree.
func TestWriteSparseTwoHandles(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join("..", "..", "sparsecoo", "testdata", "sparse_2d_float64_ea.h5"))
	mp, unmount := fusetest.MountRW(t, name, nil)
	defer unmount()
	coo := filepath.Join(mp, "float64_ea_unlim0", "coo.csv")
	model := cooModel(t, coo)
	rows := 27

	open := func() *os.File {
		f, err := os.OpenFile(coo, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := open(), open()
	for _, w := range []struct {
		f    *os.File
		text string
	}{{a, "0,0,1.5\n30,1,2.5\n"}, {b, "0,0,7.25\n40,2,3.5\n5,5,\n"}} {
		if _, err := w.f.Write([]byte(w.text)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatalf("closing the handle that grew the extent to 41 rows: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("closing the handle opened before it grew the extent: %v", err)
	}
	delete(model, [2]int{5, 5})
	model[[2]int{0, 0}], model[[2]int{30, 1}], model[[2]int{40, 2}] = 1.5, 2.5, 3.5
	rows = 41

	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 5 {
				var text []byte
				for c := range 10 {
					r := 50 + 10*k + 5*g // each batch grows the extent
					text = fmt.Appendf(text, "%d,%d,%d.5\n", r, c, 100*g+10*k+c)
				}
				if err := appendTo(coo, text); err != nil {
					errs <- fmt.Errorf("goroutine %d batch %d: %w", g, k, err)
					return
				}
			}
		}()
		for k := range 5 {
			for c := range 10 {
				r := 50 + 10*k + 5*g
				model[[2]int{r, c}] = float64(100*g+10*k+c) + 0.5
				rows = max(rows, r+1)
			}
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := cooModel(t, coo); !maps.Equal(got, model) {
		t.Errorf("coo.csv holds %d elements, want %d (or other values)", len(got), len(model))
	}
	if size := mtxSize(t, filepath.Join(mp, "float64_ea_unlim0", "matrix.mtx")); size != fmt.Sprintf("%d 10 %d", rows, len(model)) {
		t.Errorf("matrix.mtx has size line %q, want \"%d 10 %d\"", size, rows, len(model))
	}
	unmount()
	dec, err := sparsetest.Decode(name, "/float64_ea_unlim0", "<f8")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dec.Shape, []uint64{uint64(rows), 10}) || len(dec.COO) != len(model) {
		t.Fatalf("the independent decoder reads shape %v and %d elements, want [%d 10] and %d", dec.Shape, len(dec.COO), rows, len(model))
	}
	for _, row := range dec.COO {
		if v, ok := model[[2]int{int(row[0]), int(row[1])}]; !ok || v != row[2] {
			t.Errorf("the independent decoder reads %v, want %v (defined %v)", row, v, ok)
		}
	}
}

// cooModel reads a rank-2 coo.csv: coordinates -> value.
func cooModel(t *testing.T, coo string) map[[2]int]float64 {
	t.Helper()
	m := map[[2]int]float64{}
	for _, l := range csvLines(t, coo)[1:] {
		f := strings.Split(l, ",")
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		m[[2]int{atoi(t, f[0]), atoi(t, f[1])}] = v
	}
	return m
}

// TestWriteSparseViews reads every view of a sparse dataset on a
// read-write mount, commits a batch through coo.csv (defines, an
// overwrite, an erase, extent growth) while readers hold coo.csv and
// dense.npy open half read, and checks that each held reader sees the
// old or the new content whole, and that afterwards coo.csv, csr/*.npy,
// matrix.mtx, dense.npy and .meta.json all show the new state, read by
// numpy and scipy (testdata/check_sparse_views.py).
func TestWriteSparseViews(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join("..", "..", "sparsecoo", "testdata", "sparse_2d_float64_ea.h5"))
	mp, unmount := fusetest.MountRW(t, name, nil)
	defer unmount()
	dir := filepath.Join(mp, "float64_ea_unlim0")
	coo := filepath.Join(dir, "coo.csv")
	views := []string{"coo.csv", "csr/data.npy", "csr/indices.npy", "csr/indptr.npy", "matrix.mtx", "dense.npy", ".meta.json"}
	old := map[string][]byte{}
	for _, v := range views {
		b, err := os.ReadFile(filepath.Join(dir, v))
		if err != nil {
			t.Fatal(err)
		}
		old[v] = b
	}
	model := cooModel(t, coo)
	checkSparseViews(t, dir, 27, model)

	held := map[string]*os.File{}
	got := map[string][]byte{}
	for _, v := range []string{"coo.csv", "dense.npy"} {
		f, err := os.Open(filepath.Join(dir, v))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b := make([]byte, len(old[v])/2)
		if _, err := io.ReadFull(f, b); err != nil {
			t.Fatal(err)
		}
		held[v], got[v] = f, b
	}
	var first [2]int
	for k := range model {
		first = k
		break
	}
	batch := fmt.Sprintf("0,0,1.25\n30,9,-2.5\n%d,%d,\n%d,%d,6.75\n", first[0], first[1], 3, 4)
	if err := appendTo(coo, []byte(batch)); err != nil {
		t.Fatal(err)
	}
	delete(model, first)
	model[[2]int{0, 0}], model[[2]int{30, 9}], model[[2]int{3, 4}] = 1.25, -2.5, 6.75
	for v, f := range held {
		rest, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		whole := append(got[v], rest...)
		now, err := os.ReadFile(filepath.Join(dir, v))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(now, old[v]) {
			t.Errorf("%s unchanged by the commit", v)
		}
		if !bytes.Equal(whole, old[v]) && !bytes.Equal(whole, now) {
			t.Errorf("%s held open during the commit read %d bytes, neither the old %d nor the new %d", v, len(whole), len(old[v]), len(now))
		}
	}
	checkSparseViews(t, dir, 31, model)
}

// checkSparseViews runs testdata/check_sparse_views.py on the views of a
// rank-2 sparse dataset directory of rows x 10.
func checkSparseViews(t *testing.T, dir string, rows int, model map[[2]int]float64) {
	t.Helper()
	exp := struct {
		Shape []int    `json:"shape"`
		Elems [][3]any `json:"elems"`
	}{Shape: []int{rows, 10}}
	for k, v := range model {
		exp.Elems = append(exp.Elems, [3]any{k[0], k[1], v})
	}
	b, err := json.Marshal(exp)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "expected.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("/usr/bin/python3", "testdata/check_sparse_views.py", dir, p).CombinedOutput(); err != nil {
		t.Errorf("views of %s: %v\n%s", dir, err, out)
	}
}

// TestWriteSparseReaderHoldsSpace holds dense.npy of a sparse dataset
// open (header read) on a read-write mount while three commits rewrite
// every chunk, each commit able to reuse the space of the chunks the one
// before it replaced: the held reader still reads the old matrix whole,
// because its state's space is kept while it is open (the file grows
// meanwhile); once it is closed, commits reuse space and the file stops
// growing.
func TestWriteSparseReaderHoldsSpace(t *testing.T) {
	name := fusetest.CopyFile(t, filepath.Join("..", "..", "sparsecoo", "testdata", "sparse_2d_float64_ea.h5"))
	// the old matrix as the independent decoder reads it: reading it
	// through the mount would leave its chunks in the state's cache
	dec, err := sparsetest.Decode(name, "/float64_ea_unlim0", "<f8")
	if err != nil {
		t.Fatal(err)
	}
	cols := int(dec.Shape[1])
	oldVals := make([]float64, int(dec.Shape[0])*cols)
	var model [][2]int
	for _, row := range dec.COO {
		model = append(model, [2]int{int(row[0]), int(row[1])})
		oldVals[int(row[0])*cols+int(row[1])] = row[2]
	}
	mp, unmount := fusetest.MountRW(t, name, nil)
	defer unmount()
	dir := filepath.Join(mp, "float64_ea_unlim0")
	coo := filepath.Join(dir, "coo.csv")
	size := func() int64 {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	// rewrite sets every element to a new value: every chunk is rewritten
	rewrite := func(k int) {
		var text []byte
		for _, c := range model {
			text = fmt.Appendf(text, "%d,%d,%d.25\n", c[0], c[1], 1000*k+c[0]*10+c[1])
		}
		if err := appendTo(coo, text); err != nil {
			t.Fatalf("commit %d: %v", k, err)
		}
	}
	f, err := os.Open(filepath.Join(dir, "dense.npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() // before the unmount, which waits for it
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, int(fi.Size())-8*len(oldVals))
	if _, err := io.ReadFull(f, head); err != nil {
		t.Fatal(err)
	}
	size0 := size()
	for k := range 3 {
		rewrite(k)
	}
	rest, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("reading the held dense.npy after three commits: %v", err)
	}
	want := make([]byte, 0, 8*len(oldVals))
	for _, v := range oldVals {
		want = binary.LittleEndian.AppendUint64(want, math.Float64bits(v))
	}
	if !bytes.Equal(rest, want) {
		t.Errorf("dense.npy held open across three commits read %d bytes of values other than the old matrix's %d", len(rest), len(want))
	}
	if size() <= size0 {
		t.Errorf("the file did not grow (%d bytes) while a reader held the old chunks", size())
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	for k := 3; k < 6; k++ {
		rewrite(k)
		sizes = append(sizes, size())
	}
	if sizes[2] != sizes[1] {
		t.Errorf("with no reader holding old chunks the file still grows by commit: %v bytes", sizes)
	}
}
