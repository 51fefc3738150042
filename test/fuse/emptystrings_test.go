package fuse_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// pyEmptyAndMissing reads the mount argv[1] of empty_strings.h5 (argv[2])
// with pandas and Python's csv module, and prints the mismatches with
// what h5py reads (a row equal to the column's fill value is missing).
const pyEmptyAndMissing = `
import csv, io, json, os, sys
import h5py, numpy as np, pandas as pd
mp, f = sys.argv[1], h5py.File(sys.argv[2], "r")
out = {"checked": 0, "errors": []}
def check(what, ok):
    out["checked"] += 1
    if not ok:
        out["errors"].append(what)
want = {}
for name in ("word", "n"):
    ds = f["t/" + name]
    vals = [v.decode() if isinstance(v, bytes) else v for v in ds[()]]
    fill = ds.fillvalue.decode() if isinstance(ds.fillvalue, bytes) else ds.fillvalue
    want[name] = [None if v == fill else v for v in vals]
n = len(want["word"])
check("the file has both empty and missing words", "" in want["word"] and None in want["word"])
views = {"t.csv": ["word", "n"], "t/word.csv": ["word"], "t/n.csv": ["n"]}
for view, cols in views.items():
    p = os.path.join(mp, view)
    before = os.stat(p).st_size
    text = open(p, "rb").read()
    check("%s: %d bytes read, stat says %d (%d before the open)" % (view, len(text), os.stat(p).st_size, before),
          len(text) == os.stat(p).st_size <= before)
    # pandas: every row (blank lines kept), missing values NaN
    df = pd.read_csv(p, skip_blank_lines=False)
    check("%s: pandas reads %d rows, want %d" % (view, len(df), n), len(df) == n)
    # pandas without its NA rules: empty strings are ""
    text_df = pd.read_csv(p, skip_blank_lines=False, keep_default_na=False, dtype=str)
    for c in cols:
        for i, w in enumerate(want[c]):
            got = df[c][i]
            if w is None:
                check("%s %s row %d: pandas reads %r, want NaN (missing)" % (view, c, i, got), pd.isna(got))
            elif w == "":
                got = text_df[c][i]
                check("%s %s row %d: pandas reads %r, want '' (keep_default_na=False)" % (view, c, i, got), got == "")
            else:
                check("%s %s row %d: pandas reads %r, want %r" % (view, c, i, got, w), got == w)
# a one-column CSV: a blank line (missing) is not "" (an empty string)
rows = list(csv.reader(io.StringIO(open(os.path.join(mp, "t/word.csv"), encoding="utf-8").read())))[1:]
for i, w in enumerate(want["word"]):
    exp = [] if w is None else [w]
    check("t/word.csv row %d: csv reads %r, want %r" % (i, rows[i], exp), rows[i] == exp)
# the table: an empty field (missing) is not "" (an empty string)
lines = open(os.path.join(mp, "t.csv"), encoding="utf-8").read().split("\n")[1:]
for i, w in enumerate(want["word"]):
    if w is None or w == "":
        pre = "," if w is None else '"",'
        check("t.csv row %d: %r, want it to begin %r" % (i, lines[i], pre), lines[i].startswith(pre))
print(json.dumps(out))
`

// TestEmptyAndMissing reads a table whose string column holds empty
// strings and missing values (testdata/empty_strings.py) through
// <table>.csv and <col>.csv with pandas and Python's csv module: both
// views keep every row, missing values read as NaN, empty strings as ""
// (pandas with keep_default_na=False; pandas itself reads "" as NaN too),
// and both keep the two apart (an empty field or line, and ""); sizes
// are exact once opened and never below before.
func TestEmptyAndMissing(t *testing.T) {
	name := filepath.Join(t.TempDir(), "empty_strings.h5")
	if out, err := exec.Command(python, "testdata/empty_strings.py", name).CombinedOutput(); err != nil {
		t.Fatalf("empty_strings.py: %v\n%s", err, out)
	}
	mp := fusetest.Mount(t, name, nil)
	if r := runPyCheck(t, "pyEmptyAndMissing", "-c", pyEmptyAndMissing, mp, name); r.Checked < 40 {
		t.Errorf("%d checks; want every row of every view", r.Checked)
	}
}
