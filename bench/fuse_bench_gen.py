"""Makes the HEP001 files bench/fuse_bench.sh mounts (once; kept in DIR).

usage: fuse_bench_gen.py DIR N NCSV
  p1.h5  /t: column x, N float64 (random walk), chunks 1e6, gzip 4 + shuffle
  p2.h5  /t: the same column, contiguous and uncompressed
  p3.h5  /t: column x, NCSV float64, chunks 1e6, uncompressed
  p5.h5  1000 tables /g000/t0000 ... of 20 int32 columns x 100 rows
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
    g = table(f, "t", n)
    ds = g.create_dataset("x", shape=(n,), dtype="<f8", **kw)
    rng = np.random.default_rng(1)
    step, last = 10_000_000, 0.0
    for s in range(0, n, step):
        k = min(step, n - s)
        v = np.round(last + np.cumsum(rng.standard_normal(k)), 3)
        last = v[-1]
        ds[s:s + k] = v


def main():
    d, n, ncsv = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    specs = {
        "p1.h5": lambda f: walk(f, n, chunks=(1_000_000,), compression="gzip", compression_opts=4, shuffle=True),
        "p2.h5": lambda f: walk(f, n),
        "p3.h5": lambda f: walk(f, ncsv, chunks=(1_000_000,)),
        "p5.h5": many_tables,
    }
    for name, make in specs.items():
        p = os.path.join(d, name)
        stamp = p + ".%d-%d.ok" % (n, ncsv)
        if os.path.exists(stamp):
            continue
        with h5py.File(p, "w") as f:
            make(f)
        open(stamp, "w").close()
        print("made", p, file=sys.stderr)


def many_tables(f):
    col = np.arange(100, dtype="<i4")
    for i in range(1000):
        g = table(f.require_group("g%03d" % (i // 100)), "t%04d" % i, 100)
        for c in range(20):
            g.create_dataset("c%02d" % c, data=col + c)


main()
