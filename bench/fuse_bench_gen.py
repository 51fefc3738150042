"""Makes the HEP001 files bench/fuse_bench.sh mounts (once; kept in DIR).

usage: fuse_bench_gen.py DIR N NCSV N4 C4 N7 CASE...
  p1.h5  /t: column x, N float64 (random walk), chunks 1e6, gzip 4 + shuffle
  p2.h5  /t: the same column, contiguous and uncompressed
  p3.h5  /t: column x, NCSV float64, chunks 1e6, uncompressed
  p4.h5  /t: N4 rows of s int64 (sorted: 10*row), x float64 (random walk)
         and y float64 (normal), chunks C4, uncompressed, each column with
         a CHUNK_MINMAX search index (HEP001 section 10.4)
  p5.h5  1000 tables /g000/t0000 ... of 20 int32 columns x 100 rows
  p7.h5  /t: column x, N7 float64 (random walk), chunks 1e6, gzip 4 + shuffle
  p7u.h5 the same column, chunks 1e6, uncompressed
Only the files of the CASEs named (p1 ... p7) are made.
"""
import os
import sys

import h5py
import numpy as np


def str_attr(obj, name, value, size=None):
    b = value.encode()
    size = size or len(b) + 1
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(size)
    tid.set_cset(h5py.h5t.CSET_ASCII)
    tid.set_strpad(h5py.h5t.STR_NULLTERM)
    a = h5py.h5a.create(obj.id, name.encode(), tid, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(b, dtype="S%d" % size), mtype=tid)


def table(parent, name, nrows):
    g = parent.create_group(name)
    str_attr(g, "CLASS", "COLUMN_TABLE", size=13)
    str_attr(g, "VERSION", "1.0")
    g.attrs.create("NROWS", np.uint64(nrows))
    return g


def walk(f, n, **kw):
    walks([f], n, [kw])


def walks(files, n, kws):
    """Writes the same random-walk column t/x to each file, with the
    dataset options of kws."""
    dss = [table(f, "t", n).create_dataset("x", shape=(n,), dtype="<f8", **kw) for f, kw in zip(files, kws)]
    rng = np.random.default_rng(1)
    step, last = 10_000_000, 0.0
    for s in range(0, n, step):
        k = min(step, n - s)
        v = np.round(last + np.cumsum(rng.standard_normal(k)), 3)
        last = v[-1]
        for ds in dss:
            ds[s:s + k] = v


def minmax_index(g, name, values, chunk):
    """Adds a CHUNK_MINMAX index of column name (no missing values) to
    table g."""
    n = len(values)
    nch = (n + chunk - 1) // chunk
    pad = np.resize(values[-1:], nch * chunk)  # the last chunk's own values pad it
    pad[:n] = values
    parts = pad.reshape(nch, chunk)
    t = values.dtype
    e = np.zeros(nch, dtype=[("min", t), ("max", t), ("nan_count", "<u8"), ("fill_count", "<u8"), ("n", "<u8")])
    e["min"], e["max"] = parts.min(axis=1), parts.max(axis=1)
    e["n"] = chunk
    e["n"][-1] = n - (nch - 1) * chunk
    si = g.require_group("SEARCH_INDEXES")
    ds = si.create_dataset(name + "__chunk_minmax", data=e)
    str_attr(ds, "KIND", "CHUNK_MINMAX")
    g[name].attrs.create("SEARCH_INDEX_LIST", [ds.ref], dtype=h5py.ref_dtype)


def indexed(f, n, chunk):
    """Table t of p4.h5: three columns of n rows, none missing, each with a
    CHUNK_MINMAX index."""
    g = table(f, "t", n)
    g.attrs["column-order"] = np.array([b"s", b"x", b"y"])
    rng = np.random.default_rng(4)
    cols = {
        "s": np.arange(n, dtype="<i8") * 10,
        "x": np.round(np.cumsum(rng.standard_normal(n)), 3),
        "y": rng.standard_normal(n),
    }
    fills = {"s": -1, "x": np.nan, "y": np.nan}
    for name, v in cols.items():
        g.create_dataset(name, data=v, chunks=(chunk,), fillvalue=fills[name])
    for name, v in cols.items():
        minmax_index(g, name, v, chunk)


def main():
    d, n, ncsv, n4, c4, n7 = sys.argv[1], *map(int, sys.argv[2:7])
    cases = set(sys.argv[7:])
    gz = dict(chunks=(1_000_000,), compression="gzip", compression_opts=4, shuffle=True)
    # name: (case, stamp suffix, function of the open files)
    specs = {
        "p1.h5": ("p1", (n, ncsv), lambda f: walk(f[0], n, **gz)),
        "p2.h5": ("p2", (n, ncsv), lambda f: walk(f[0], n)),
        "p3.h5": ("p3", (n, ncsv), lambda f: walk(f[0], ncsv, chunks=(1_000_000,))),
        "p4.h5": ("p4", (n4, c4), lambda f: indexed(f[0], n4, c4)),
        "p5.h5": ("p5", (n, ncsv), lambda f: many_tables(f[0])),
        "p7.h5 p7u.h5": ("p7", (n7,), lambda f: walks(f, n7, [gz, dict(chunks=(1_000_000,))])),
    }
    for names, (case, sizes, make) in specs.items():
        if case not in cases:
            continue
        paths = [os.path.join(d, name) for name in names.split()]
        stamp = paths[0] + ".%s.ok" % "-".join(map(str, sizes))
        if os.path.exists(stamp):
            continue
        files = [h5py.File(p, "w") for p in paths]
        try:
            make(files)
        finally:
            for f in files:
                f.close()
        open(stamp, "w").close()
        print("made", *paths, file=sys.stderr)


def many_tables(f):
    col = np.arange(100, dtype="<i4")
    for i in range(1000):
        g = table(f.require_group("g%03d" % (i // 100)), "t%04d" % i, 100)
        for c in range(20):
            g.create_dataset("c%02d" % c, data=col + c)


main()
