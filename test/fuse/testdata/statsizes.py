"""Writes FILE for TestStatBeforeOpen: HEP001 table /t of 400,000 rows
whose columns carry CHUNK_MINMAX indexes (so that their CSV views are
bounded from the index before the first open) and whose CSV views are too
big to be sized at the first stat: counts (int64, 0..999, some missing),
energy (float64 at full precision, positive) and flag (int8, 0 or 1); and
small table /small and dataset /d, sized exactly at the first stat.
The table helpers are table/testdata/gen.py's.

usage: statsizes.py FILE
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "table", "testdata"))
import gen  # noqa: E402


def main():
    rng = np.random.default_rng(12)
    n, chunk = 400_000, 10_000
    with h5py.File(sys.argv[1], "w", libver="latest") as f:
        order = ["counts", "energy", "flag"]
        g = gen.table_group(f, "t", n, order)
        counts = rng.integers(0, 1000, n).astype("<i8")
        miss = rng.random(n) < 0.02
        counts[miss] = -1
        energy = rng.uniform(0.5, 1000.0, n)
        flag = rng.integers(0, 2, n).astype("i1")
        cols = [("counts", "<i8", counts, miss, -1), ("energy", "<f8", energy, np.zeros(n, bool), np.nan),
                ("flag", "i1", flag, np.zeros(n, bool), -1)]
        for name, dtype, v, m, fill in cols:
            gen.make_ds(g, name, dtype, v, chunk=chunk, fill=fill)
        for name, dtype, v, m, fill in cols:
            gen.write_indexes(g, name, ["CHUNK_MINMAX"], gen.num_model(v, m, dtype, chunk, fill), [])
        gen.finish_table(g, order)
        s = gen.table_group(f, "small", 100, ["a"])
        gen.make_ds(s, "a", "<i4", np.arange(100, dtype="<i4") * 7, fill=-1)
        gen.finish_table(s, ["a"])
        f.create_dataset("d", data=rng.standard_normal((50, 3)))


main()
