#!/usr/bin/python3
"""Data of the P6 append benchmark (bench/append_bench.sh).

    append_bench_gen.py DIR N BATCH

DIR/empty.h5: a HEP001 table /t with NROWS=0 and five growable columns
(a int64, b float64, c int32, d float32, e uint8; chunks of 65536 rows, earliest
file format); DIR/rows.csv: N rows as the table's CSV view writes them
(header first); DIR/{a,b,c,d,e}.raw: the same rows as packed
little-endian columns; DIR/h5py_append.py: h5py appending them in
batches of BATCH rows (resize, write, set NROWS, flush).
"""
import os
import sys

import h5py
import numpy as np

d, n, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
COLS = [("a", "<i8"), ("b", "<f8"), ("c", "<i4"), ("d", "<f4"), ("e", "u1")]  # names in view order
rng = np.random.default_rng(6)
data = {
    "a": np.arange(n, dtype="<i8") * 7,
    "b": np.round(rng.normal(size=n), 6),
    "c": rng.integers(-10**9, 10**9, n).astype("<i4"),
    "d": np.round(rng.normal(size=n), 3).astype("<f4"),
    "e": rng.integers(0, 200, n).astype("u1"),
}



def str_attr(obj, name, value):
    """A scalar NUL-terminated ASCII string attribute (HEP001 §7.1)."""
    size = len(value) + 1
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(size)
    tid.set_strpad(h5py.h5t.STR_NULLTERM)
    a = h5py.h5a.create(obj.id, name.encode(), tid, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(value.encode().ljust(size, b"\0"), dtype="S%d" % size), mtype=tid)


with h5py.File(os.path.join(d, "empty.h5"), "w") as f:
    g = f.create_group("t")
    str_attr(g, "CLASS", "COLUMN_TABLE")
    str_attr(g, "VERSION", "1.0")
    g.attrs.create("NROWS", np.uint64(0))
    for name, dt in COLS:
        fill = np.nan if dt[1] == "f" else np.iinfo(dt).max  # HEP001 §8.5: a user-defined fill
        g.create_dataset(name, shape=(0,), maxshape=(None,), chunks=(65536,), dtype=dt, fillvalue=fill)

for name, _ in COLS:
    data[name].tofile(os.path.join(d, name + ".raw"))

with open(os.path.join(d, "rows.csv"), "w") as out:
    out.write("a,b,c,d,e\n")
    step = 100000
    for s in range(0, n, step):
        e = min(s + step, n)
        lines = zip(data["a"][s:e].tolist(), map(repr, data["b"][s:e].tolist()), data["c"][s:e].tolist(),
                    (np.format_float_positional(x, trim="-") for x in data["d"][s:e]), data["e"][s:e].tolist())
        out.write("".join("%d,%s,%d,%s,%d\n" % t for t in lines))

with open(os.path.join(d, "h5py_append.py"), "w") as out:
    out.write('''import sys, h5py, numpy as np
path, batch = sys.argv[1], int(sys.argv[2])
cols = %r
data = {c: np.fromfile(sys.argv[3] + "/" + c + ".raw", dtype=dt) for c, dt in cols}
n = len(data["a"])
with h5py.File(path, "r+") as f:
    g = f["t"]
    for s in range(0, n, batch):
        e = min(s + batch, n)
        for c, _ in cols:
            g[c].resize((e,))
            g[c][s:e] = data[c][s:e]
        g.attrs["NROWS"] = np.uint64(e)
        f.flush()
''' % (COLS,))
