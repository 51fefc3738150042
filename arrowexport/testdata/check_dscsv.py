#!/usr/bin/python3
"""check_dscsv.py FILE.h5 DIR: for every DIR/NAME.csv, reads the CSV of
dataset /NAME with pandas and compares it with h5py's values: every cell but
integers as text (booleans true/false, enums by name, strings as they are,
compounds of rank 2 or more as JSON objects) and, for numeric datasets, the
numbers pandas.read_csv parses (with float_precision="round_trip": the
default parser may be one unit off in the last place of a float64).
Prints "ok NAME" for each; exits 1 on a mismatch."""
import json
import os
import sys
import h5py
import numpy as np
import pandas as pd

h5, d = sys.argv[1], sys.argv[2]


def fail(name, msg):
    print("MISMATCH", name, msg)
    sys.exit(1)


def same(text, v, dt, name):
    """Whether CSV text is the value v of numpy type dt."""
    enum = h5py.check_enum_dtype(dt)
    if enum is not None:
        return text == {k: n for n, k in enum.items()}[int(v)]
    if dt.kind == "b":
        return text == ("true" if v else "false")
    if dt.kind in "iu":
        return int(text) == int(v)
    if dt.kind == "f":
        g = dt.type(float(text))
        return (np.isnan(g) and np.isnan(v)) or (g == v and np.signbit(g) == np.signbit(v))
    if dt.kind == "S" or (dt.kind == "O" and isinstance(v, bytes)):
        return text == v.decode()
    if dt.kind == "O":
        return text == v
    if dt.fields:
        obj = json.loads(text)
        for f in dt.names:
            x = obj[f]
            want = v[f]
            if isinstance(x, str):  # JSON has no NaN or infinities
                x = float(x.replace("+", ""))
            x = type(want)(x)
            if not (x == want or (np.isnan(x) and np.isnan(want))):
                return False
        return True
    fail(name, "no comparison for %s" % dt)


with h5py.File(h5, "r") as f:
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".csv"):
            continue
        name = fn[:-4]
        path = os.path.join(d, fn)
        ds = f[name]
        text = pd.read_csv(path, dtype=str, keep_default_na=False)
        if ds.shape is None:  # null dataspace
            if list(text.columns) != [name] or len(text) != 0:
                fail(name, "%s %d rows" % (list(text.columns), len(text)))
            print("ok", name)
            continue
        arr = ds[()]
        if arr.ndim >= 2:
            cols = ["c%d" % i for i in range(arr.shape[-1])]
            want = {c: arr.reshape(-1, arr.shape[-1])[:, i] for i, c in enumerate(cols)}
            types = {c: arr.dtype for c in cols}
        elif arr.dtype.fields:
            arr = arr.reshape(-1)
            cols = list(arr.dtype.names)
            want = {c: arr[c] for c in cols}
            types = {c: arr.dtype.fields[c][0] for c in cols}
        else:
            cols = [name]
            want = {name: arr.reshape(-1)}
            types = {name: ds.dtype if ds.dtype.subdtype is None else ds.dtype.subdtype[0]}
        if list(text.columns) != cols:
            fail(name, "header %s, want %s" % (list(text.columns)[:10], cols[:10]))
        for c in cols:
            got = text[c].tolist()
            if len(got) != len(want[c]):
                fail(name, "column %s: %d rows, want %d" % (c, len(got), len(want[c])))
            if types[c].kind in "iu" and h5py.check_enum_dtype(types[c]) is None:
                continue  # integers: the pandas check below is exact and faster
            for i, (g, v) in enumerate(zip(got, want[c])):
                if not same(g, v, types[c], name):
                    fail(name, "column %s row %d: %r, want %r" % (c, i, g, v))
        # numbers as pandas parses them (exactly: round_trip) equal h5py's array
        if all(t.kind in "iuf" and h5py.check_enum_dtype(t) is None for t in types.values()):
            df = pd.read_csv(path, float_precision="round_trip")
            for c in cols:
                g, w = df[c].to_numpy(), want[c]
                if len(w) == 0:
                    ok = len(g) == 0
                elif w.dtype.kind == "f":
                    ok = np.array_equal(g.astype(w.dtype), w, equal_nan=True)
                else:
                    ok = g.dtype.kind in "iu" and np.array_equal(g, w)
                if not ok:
                    fail(name, "pandas column %s: %s, want %s" % (c, g[:5], w[:5]))
        print("ok", name)
