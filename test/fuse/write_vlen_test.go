package fuse

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/h5fs/h5fs/internal/h5wasmtest"
	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestWriteVlen appends rows to tables with variable-length string
// columns (gen_vlen.py's, in the earliest and latest format) through
// t.csv on a read-write kernel mount: lines the view served, and new
// ones with quoted commas and quotes, non-ASCII text, missing values
// (empty fields: the fill) and empty strings (`""`: a value where the
// fill is "<NA>", missing where it is ""). The view shows them back;
// h5py reads the strings, h5dump and libhdf5 2.0 (h5wasm) the file, and
// every search index (over the strings too) is recomputed from scratch.
// New labels of det, whose CATEGORIES dataset can grow, are added to it
// and take the next codes; a new label of lvl (contiguous labels) fails
// its write with EINVAL.
func TestWriteVlen(t *testing.T) {
	for _, file := range []string{"write_vlen.h5", "write_vlen_latest.h5"} {
		t.Run(file, func(t *testing.T) {
			name := fusetest.CopyFile(t, filepath.Join(fusetest.OwnCorpus, file))
			mp, unmount := fusetest.MountRW(t, name, nil)
			csv := filepath.Join(mp, "t.csv")
			lines := csvLines(t, csv)
			if len(lines) != 41 || lines[0] != "x,s,note,det,lvl" {
				t.Fatalf("t.csv has %d lines, header %q", len(lines), lines[0])
			}
			added := []string{
				`5,"a,""quoted"" word",hello,HCAL,high`,
				`6,,,,low`,
				`7,ωμέγα,"",MUON,low`,
				`8,"",x y,TRACKER,high`,
				`9,z,z,PIXEL,low`,
				`10,z,z,TRACKER,low`,
			}
			if err := appendTo(csv, []byte(strings.Join(append(append([]string{lines[0]}, lines[1:4]...), added...), "\n")+"\n")); err != nil {
				t.Fatalf("append: %v", err)
			}
			// s's fill is "": an empty string there is missing, shown empty
			shown := append(append(append([]string{}, lines...), lines[1:4]...), added[0], added[1], added[2], `8,,x y,TRACKER,high`, added[4], added[5])
			if got := csvLines(t, csv); strings.Join(got, "\n") != strings.Join(shown, "\n") {
				t.Fatalf("after the append t.csv ends\n%s\nwant\n%s", strings.Join(got[len(got)-7:], "\n"), strings.Join(shown[len(shown)-7:], "\n"))
			}
			// lvl's labels (contiguous) cannot grow: a new one is refused
			if err := appendTo(csv, []byte("11,a,b,ECAL,medium\n")); !errors.Is(err, syscall.EINVAL) {
				t.Errorf("a new label of lvl: %v, want EINVAL", err)
			}
			unmount()
			checkIndexes(t, name)
			py := `import h5py, json, sys
g = h5py.File(sys.argv[1], "r")["t"]
n = int(g.attrs["NROWS"])
print(json.dumps([n] + [[v.decode() for v in g[c][n - 6:n]] for c in ("s", "note")] + [[v.decode() for v in g["CATEGORIES/det"][:]], g["det"][n - 6:n].tolist()]))`
			out, err := exec.Command("/usr/bin/python3", "-c", py, name).CombinedOutput()
			want := `[49, ["a,\"quoted\" word", "", "ωμέγα", "", "z", "z"], ["hello", "<NA>", "", "x y", "z", "z"],
				["ECAL", "HCAL", "MUON", "TRACKER", "PIXEL"], [1, -127, 2, 3, 4, 3]]`
			var got, wantV any
			json.Unmarshal(out, &got)
			json.Unmarshal([]byte(want), &wantV)
			if err != nil || !jsonEqual(got, wantV) {
				t.Errorf("h5py reads %s(%v), want %s", out, err, want)
			}
			if out, err := exec.Command("h5dump", name).CombinedOutput(); err != nil {
				t.Errorf("h5dump: %v\n%s", err, out)
			}
			d := h5wasmtest.Dump(t, name, "/t/s")
			var vals []any
			if err := json.Unmarshal(d.Dataset(t, "/t/s").Values, &vals); err != nil || len(vals) < 49 || vals[43] != `a,"quoted" word` || vals[45] != "ωμέγα" {
				t.Errorf("libhdf5 2.0 reads /t/s as %v (%v)", vals, err)
			}
		})
	}
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
