package table

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// updateCells makes cells of write.h5's table from the rows writeRows
// numbers seq on: runs in every column, across a chunk boundary, with
// missing values, new BITMAP values and overlapping runs.
func updateCells(t *testing.T, tb *Table, seq int) []Cells {
	cols := writeRows(t, tb, seq, 20)
	return []Cells{
		{Column: 0, Row: 3, Values: cols[0][:4]},           // x[3] = seq
		{Column: 1, Row: 10, Values: cols[1]},              // e[10:30] across chunks 0 and 1
		{Column: 2, Row: 35, Values: cols[2][:5]},          // k[35:40]: new values
		{Column: 3, Row: 0, Values: cols[3][:16]},          // tag[0:2]
		{Column: 0, Row: 38, Values: cols[0][20:28]},       // x[38:40] = seq+5, seq+6
		{Column: 0, Row: 37, Values: cols[0][4*10 : 4*12]}, // x[37:39] = seq+10, seq+11: overlaps, wins at 38
	}
}

// TestUpdate rewrites cells, checks the table and every index (h5fs's
// verifier and check_write.py's recomputation from what libhdf5 reads)
// and the values h5py reads, then appends and truncates after it, and
// checks that updates outside the rows are refused.
func TestUpdate(t *testing.T) {
	name := copyFile(t, "testdata/write.h5")
	rw, err := h5core.OpenRW(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Update(tx, updateCells(t, tb, 500)) })
	checkWritten(t, rw, name, 40)
	py := `import h5py, sys
g = h5py.File(sys.argv[1], "r")["t"]
print(g["x"][3], list(g["x"][37:40]), list(g["k"][35:40]), [t.decode() for t in g["tag"][0:2]])`
	cmd := exec.Command("/usr/bin/python3", "-c", py, name)
	cmd.Env = append(os.Environ(), "HDF5_USE_FILE_LOCKING=FALSE")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	x := func(i int) int { return i*37%2000 - 1000 }
	var ks []string
	for i := 500; i < 505; i++ {
		k := fmt.Sprint(i % 7)
		if i%5 == 2 {
			k = "255" // missing: the fill
		}
		ks = append(ks, k)
	}
	want := fmt.Sprintf("%d [%d, %d, %d] [%s] ['n20', 'n21']\n", x(500), x(510), x(511), x(506), strings.Join(ks, ", "))
	if string(out) != want {
		t.Fatalf("h5py reads %s, want %s", out, want)
	}
	mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Append(tx, writeRows(t, tb, 40, 9)) })
	mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Update(tx, updateCells(t, tb, 900)) })
	checkWritten(t, rw, name, 49)
	mutate(t, rw, func(tb *Table, tx Tx) error { return tb.Truncate(tx, 39) })
	checkWritten(t, rw, name, 39)

	tb, err := Open(rw.File(), "/t", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]Cells{
		{{Column: 0, Row: 38, Values: make([]byte, 8)}}, // past NROWS
		{{Column: 0, Row: -1, Values: make([]byte, 4)}},
		{{Column: 4, Row: 0, Values: make([]byte, 4)}},
		{{Column: 1, Row: 0, Values: make([]byte, 4)}}, // half an element
	} {
		tx, err := rw.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.Update(tx, bad); err == nil {
			t.Errorf("update %+v was taken", bad)
		} else {
			t.Logf("refused: %v", err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
	checkWritten(t, rw, name, 39)
}
