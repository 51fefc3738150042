package table

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// TestDropIndex appends to write_fixed.h5, whose table has index
// datasets that cannot grow: an index the append would grow is deleted
// with its SEARCH_INDEX_LIST entry (and a BITMAP's values dataset) rather
// than the append refused; the others are kept up to date. After each
// step §12 holds (h5fs's check with every index recomputed, and
// check_write.py, which also finds any index left unreferenced), and
// libhdf5 (h5py, h5dump) reads the lists and groups left.
func TestDropIndex(t *testing.T) {
	name := copyFile(t, "testdata/write_fixed.h5")
	rw, err := h5core.OpenRW(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	for _, step := range []struct {
		k       int
		dropped []string
		left    string // h5py's view of the indexes after the step
	}{
		// within the last chunk: the permutation and the bitmap (new
		// values, wider rows) would grow
		{5, []string{"k__bitmap", "x__sorted_rows"},
			"e:e__chunk_minmax,e__sorted_rows k:k__chunk_bloom tag:tag__chunk_minmax x:x__chunk_bloom,x__chunk_minmax " +
				"SEARCH_INDEXES:e__chunk_minmax,e__sorted_rows,k__chunk_bloom,tag__chunk_minmax,x__chunk_bloom,x__chunk_minmax"},
		// new chunks: the fixed CHUNK_MINMAX datasets would grow; tag
		// keeps an empty list
		{30, []string{"tag__chunk_minmax", "x__chunk_minmax"},
			"e:e__chunk_minmax,e__sorted_rows k:k__chunk_bloom tag: x:x__chunk_bloom " +
				"SEARCH_INDEXES:e__chunk_minmax,e__sorted_rows,k__chunk_bloom,x__chunk_bloom"},
	} {
		var dropped []string
		mutate(t, rw, func(tb *Table, tx Tx) error {
			n := tb.NRows
			err := tb.Append(tx, writeRows(t, tb, int(n), step.k))
			for _, e := range tb.Dropped {
				t.Logf("%v", e)
				dropped = append(dropped, strings.TrimSuffix(strings.TrimPrefix(strings.Fields(e.Error())[0], "/t/SEARCH_INDEXES/"), ":"))
			}
			return err
		})
		slices.Sort(dropped)
		if !slices.Equal(dropped, step.dropped) {
			t.Errorf("append of %d rows dropped %v, want %v", step.k, dropped, step.dropped)
		}
		tb, err := Open(rw.File(), "/t", Lenient)
		if err != nil {
			t.Fatal(err)
		}
		checkWritten(t, rw, name, tb.NRows)
		for _, f := range tb.Findings {
			if f.Rule == "§10.2" || f.Rule == "§12" {
				t.Errorf("finding after the drop: %v", f)
			}
		}
		py := `import h5py, sys
f = h5py.File(sys.argv[1], "r")
g = f["t"]
out = []
for c in ["e", "k", "tag", "x"]:
    out.append(c + ":" + ",".join(sorted(f[r].name.split("/")[-1] for r in g[c].attrs["SEARCH_INDEX_LIST"])))
out.append("SEARCH_INDEXES:" + ",".join(sorted(g["SEARCH_INDEXES"])))
print(" ".join(out))`
		cmd := exec.Command("/usr/bin/python3", "-c", py, name)
		cmd.Env = append(os.Environ(), "HDF5_USE_FILE_LOCKING=FALSE")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("h5py: %v\n%s", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != step.left {
			t.Errorf("after appending %d rows h5py sees\n%s\nwant\n%s", step.k, got, step.left)
		}
		cmd = exec.Command("h5dump", "-A", name)
		cmd.Env = append(os.Environ(), "HDF5_USE_FILE_LOCKING=FALSE")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("h5dump: %v\n%s", err, out)
		}
	}
}
