package fuse_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// pyRawDtype walks a mount of the HDF5 file argv[2] at argv[1] and, for
// every dataset and table column its .meta.json files give a raw_dtype,
// reads the .raw view with numpy.fromfile(raw_dtype) and compares it with
// what h5py reads from the file. It prints the counts and the mismatches.
const pyRawDtype = `
import json, os, sys
import h5py, numpy as np
mp, f = sys.argv[1], h5py.File(sys.argv[2], "r")
out = {"checked": 0, "big_endian": 0, "errors": []}
def check(raw, dtype, path, n=None):
    want = f[path][()] if n is None else f[path][:n]
    if want.dtype.names or want.dtype.kind in "SUOV" or want.dtype.subdtype:
        return
    got = np.fromfile(raw, dtype=dtype).reshape(want.shape)
    if got.dtype != want.dtype.newbyteorder("<") or not np.array_equal(got, want, equal_nan=want.dtype.kind in "fc"):
        out["errors"].append("%s: %s read as %s differs from h5py's %s" % (raw, path, dtype, want.dtype))
    out["checked"] += 1
    if want.dtype.byteorder == ">":
        out["big_endian"] += 1
for d, _, files in os.walk(mp):
    if ".meta.json" not in files:
        continue
    m = json.load(open(os.path.join(d, ".meta.json")))
    t = m.get("table")
    # in a table's directory <name>.raw is the column's view (NROWS rows)
    for l in [] if t else m.get("links") or []:
        ds = l.get("object") or {}
        if ds.get("raw_dtype") and os.path.exists(os.path.join(d, l["shown_as"] + ".raw")):
            check(os.path.join(d, l["shown_as"] + ".raw"), ds["raw_dtype"], m["path"].rstrip("/") + "/" + l["name"])
    for c in (t or {}).get("columns", []):
        raw = os.path.join(d, c["shown_as"] + ".raw")
        if c.get("raw_dtype") and os.path.exists(raw) and c["hdf5_path"] in f and f[c["hdf5_path"]].ndim == 1 and not f[c["hdf5_path"]].dtype.names:
            check(raw, c["raw_dtype"], c["hdf5_path"], n=t["nrows"])
print(json.dumps(out))
`

// TestRawDtype checks the raw_dtype that .meta.json gives for datasets
// and table columns against numpy and h5py: numpy.fromfile of the .raw
// view with that type reads what h5py reads, big-endian data included.
func TestRawDtype(t *testing.T) {
	for _, name := range []string{
		filepath.Join(fusetest.OwnCorpus, "hep_tables.h5"),
		"../../arrowexport/testdata/datasets.h5",
	} {
		mp := fusetest.Mount(t, name, nil)
		out, err := exec.Command(python, "-c", pyRawDtype, mp, name).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		var r struct {
			Checked   int `json:"checked"`
			BigEndian int `json:"big_endian"`
			Errors    []string
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		for _, e := range r.Errors {
			t.Errorf("%s: %s", name, e)
		}
		if r.Checked < 5 || r.BigEndian < 1 {
			t.Errorf("%s: checked %d raw views, %d big-endian; want at least 5 and 1", name, r.Checked, r.BigEndian)
		}
		t.Logf("%s: %d raw views, %d big-endian", name, r.Checked, r.BigEndian)
	}
}
