#!/usr/bin/python3
"""check_csv.py FILE.h5 EVENTS.csv: reads the CSV of table /events with
pandas (C engine, and memory_map) and compares it with h5py's values, the
fill values taken as missing. Exits 1 on a mismatch."""
import sys
import h5py
import numpy as np
import pandas as pd

h5, path = sys.argv[1], sys.argv[2]
with h5py.File(h5, "r") as f:
    g = f["events"]
    n = int(g.attrs["NROWS"])
    want = {}
    for name in ["ts", "energy", "det", "name", "count"]:
        ds = g[name]
        v = ds[:n]
        fill = ds.fillvalue
        miss = v == fill
        if name == "det":
            labels = [x.decode() for x in f[ds.attrs["CATEGORIES"]][()]]
            v = np.array([None if m else labels[x] for x, m in zip(v, miss)], dtype=object)
        elif name == "name":
            v = np.array([None if m else x.decode() for x, m in zip(v, miss)], dtype=object)
        else:
            v = v.astype(object)
            v[miss] = None
        want[name] = v
for kw in ({}, {"memory_map": True}):
    df = pd.read_csv(path, keep_default_na=False, na_values=[""], **kw)
    assert list(df.columns) == list(want), df.columns
    assert len(df) == n, len(df)
    for name, v in want.items():
        got = df[name].tolist()
        for i, (a, b) in enumerate(zip(got, v)):
            if b is None:
                ok = a is None or (isinstance(a, float) and np.isnan(a))
            elif isinstance(b, str):
                ok = a == b
            elif name == "energy":  # float32 written in its shortest form
                ok = np.float32(a) == np.float32(b)
            else:
                ok = int(a) == int(b)
            if not ok:
                print("MISMATCH", kw, name, i, repr(a), repr(b))
                sys.exit(1)
print("ok", n, "rows")
