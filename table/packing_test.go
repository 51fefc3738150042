package table

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// packingTableScript writes a row table (CLASS=TABLE) whose fields are
// big-endian and partial-precision numbers, then prints each field's
// values as libhdf5 converts them to native numpy types, little-endian
// bytes in hex.
const packingTableScript = `
import sys, json, h5py, numpy as np
def narrow(base, prec, off):
    t = base.copy(); t.set_precision(prec); t.set_offset(off); return t
fields = [
    ("s12", narrow(h5py.h5t.STD_I16LE, 12, 2), "<i2"),
    ("u12be", narrow(h5py.h5t.STD_U16BE, 12, 3), "<u2"),
    ("s5", narrow(h5py.h5t.STD_I8LE, 5, 1), "<i1"),
    ("i32be", h5py.h5t.STD_I32BE, "<i4"),
    ("f64be", h5py.h5t.IEEE_F64BE, "<f8"),
]
size = sum(t.get_size() for _, t, _ in fields) + 3
tid = h5py.h5t.create(h5py.h5t.COMPOUND, size)
off = 1
for name, t, _ in fields:
    tid.insert(name.encode(), off, t); off += t.get_size()
n = 300
vals = {
    "s12": (np.arange(n) * 37 % 4096 - 2048),
    "u12be": (np.arange(n) * 53 % 4096),
    "s5": (np.arange(n) % 32 - 16),
    "i32be": (np.arange(n) * -100003),
    "f64be": np.sin(np.arange(n)),
}
mem = np.dtype([(name, dt) for name, _, dt in fields])
rows = np.zeros(n, mem)
for name, _, _ in fields:
    rows[name] = vals[name]
with h5py.File(sys.argv[1], "w") as f:
    space = h5py.h5s.create_simple((n,))
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE); dcpl.set_chunk((64,))
    ds = h5py.h5d.create(f.id, b"rows", tid, space, dcpl)
    ds.write(h5py.h5s.ALL, h5py.h5s.ALL, rows)
    f["rows"].attrs["CLASS"] = np.bytes_("TABLE")
    f["rows"].attrs["VERSION"] = np.bytes_("3.0")
    for i, (name, _, _) in enumerate(fields):
        f["rows"].attrs["FIELD_%d_NAME" % i] = np.bytes_(name)
with h5py.File(sys.argv[1], "r") as f:
    back = f["rows"][...]
    print(json.dumps({name: back[name].astype(dt).tobytes().hex() for name, _, dt in fields}))
`

// TestPackingSharedWithDatasets checks that a column's raw form
// (Column.ReadRaw, the <col>.raw view) is the same packing as the whole
// dataset's (Dataset.DumpPacked, the <dataset>.raw view), and that both
// give libhdf5's values for big-endian and partial-precision fields.
func TestPackingSharedWithDatasets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "packing.h5")
	out, err := exec.Command("/usr/bin/python3", "-c", packingTableScript, path).Output()
	if err != nil {
		t.Fatalf("h5py (scripts/test.sh installs python3-h5py): %v", err)
	}
	var want map[string]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	f, err := h5core.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	obj, err := f.Open("/rows")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := obj.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	var dump bytes.Buffer
	if err := ds.DumpPacked(&dump); err != nil {
		t.Fatal(err)
	}
	tb, err := Open(f, "/rows", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	rec := ds.Type.PackedSize()
	off := 0
	for _, fl := range ds.Type.Fields {
		c := tb.Column(fl.Name)
		if c == nil {
			t.Fatalf("no column %s", fl.Name)
		}
		raw := make([]byte, tb.NRows*int64(c.ElemSize))
		if err := c.ReadRaw(0, tb.NRows, raw); err != nil {
			t.Fatal(err)
		}
		var fromDump []byte
		for r := range int(tb.NRows) {
			fromDump = append(fromDump, dump.Bytes()[r*rec+off:r*rec+off+c.ElemSize]...)
		}
		off += c.ElemSize
		if !bytes.Equal(raw, fromDump) {
			t.Errorf("%s: the column's raw bytes differ from its field in the dataset's", fl.Name)
		}
		if hexRaw := hex.EncodeToString(raw); hexRaw != want[fl.Name] {
			t.Errorf("%s: raw %.40s…, libhdf5 reads %.40s…", fl.Name, hexRaw, want[fl.Name])
		}
	}
}
