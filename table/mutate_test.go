package table

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/h5fs/h5fs/h5core"
)

// copyFile copies a test file into a fresh temporary directory.
func copyFile(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// writeRows makes k rows for write.h5's table /t (columns x, e, k, tag),
// row i of them numbered seq+i, every fifth one missing in each column.
func writeRows(t *testing.T, tb *Table, seq, k int) [][]byte {
	t.Helper()
	mem := memory.DefaultAllocator
	x, e, kk, tag := array.NewInt32Builder(mem), array.NewFloat64Builder(mem), array.NewUint8Builder(mem), array.NewStringBuilder(mem)
	for i := seq; i < seq+k; i++ {
		x.Append(int32(i*37%2000 - 1000))
		if i%5 == 1 {
			e.AppendNull()
		} else {
			e.Append(math.Sin(float64(i)))
		}
		if i%5 == 2 {
			kk.AppendNull()
		} else {
			kk.Append(uint8(i % 7)) // 4, 5 and 6 are new to the BITMAP index
		}
		if i%5 == 3 {
			tag.AppendNull()
		} else {
			tag.Append(fmt.Sprintf("n%d", i%40))
		}
	}
	var cols [][]byte
	for j, b := range []array.Builder{x, e, kk, tag} {
		a := b.NewArray()
		raw, err := tb.Columns[j].Encode(a)
		if err != nil {
			t.Fatal(err)
		}
		a.Release()
		cols = append(cols, raw)
	}
	return cols
}

// checkWritten checks a mutated table with h5fs's own verifier and with
// check_write.py, which recomputes every index from what libhdf5 reads.
func checkWritten(t *testing.T, rw *h5core.RW, name string, nrows int64) {
	t.Helper()
	tb, err := Open(rw.File(), "/t", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	if tb.NRows != nrows {
		t.Fatalf("NROWS = %d, want %d", tb.NRows, nrows)
	}
	for _, f := range tb.Check(true) {
		if f.Severity == SevError {
			t.Errorf("check: %v", f)
		}
	}
	cmd := exec.Command("/usr/bin/python3", "check_write.py", name, "/t")
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), "HDF5_USE_FILE_LOCKING=FALSE") // rw holds the lock between transactions
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("check_write.py: %v\n%s", err, out)
	}
}

// mutate runs f in a transaction of rw on table /t and commits it.
func mutate(t *testing.T, rw *h5core.RW, f func(tb *Table, tx Tx) error) {
	t.Helper()
	tb, err := Open(rw.File(), "/t", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := rw.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := f(tb, tx); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestAppendTruncate appends inside the last chunk, then whole new
// chunks, then truncates, and after each step checks the table and its
// indexes (recomputed by h5py) and the values libhdf5 reads.
func TestAppendTruncate(t *testing.T) {
	name := copyFile(t, "testdata/write.h5")
	rw, err := h5core.OpenRW(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	nrows := int64(40)
	for _, k := range []int{5, 30, 1} {
		mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Append(tx, writeRows(t, tb, int(nrows), k)) })
		nrows += int64(k)
		checkWritten(t, rw, name, nrows)
	}
	mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Truncate(tx, 20) })
	checkWritten(t, rw, name, 20)
	mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Append(tx, writeRows(t, tb, 100, 7)) })
	checkWritten(t, rw, name, 27)
	py := `import h5py, sys
f = h5py.File(sys.argv[1], "r")
g = f["t"]
n = int(g.attrs["NROWS"])
print(n, list(g["x"][20:n]), [t.decode() for t in g["tag"][20:n]])`
	cmd := exec.Command("/usr/bin/python3", "-c", py, name)
	cmd.Env = append(os.Environ(), "HDF5_USE_FILE_LOCKING=FALSE")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	var xs, tags []string
	for i := 100; i < 107; i++ {
		xs = append(xs, fmt.Sprint(i*37%2000-1000))
		tag := fmt.Sprintf("'n%d'", i%40)
		if i%5 == 3 {
			tag = "''" // missing: the fill
		}
		tags = append(tags, tag)
	}
	want := fmt.Sprintf("27 [%s] [%s]\n", strings.Join(xs, ", "), strings.Join(tags, ", "))
	if string(out) != want {
		t.Fatalf("h5py reads %s, want %s", out, want)
	}
}
