#!/usr/bin/python3
"""Writes write.h5, the table package's test file for Append, Truncate
and Update: a HEP001 table /t whose columns and search indexes (all four
kinds) are chunked with unlimited maximum extents, so that they can grow,
in the earliest file format (v1 B-tree chunk indexes); and
write_fixed.h5, the same table but with some index datasets (FIXED) at
a fixed maximum extent: a mutation that would grow them deletes them.

    /usr/bin/python3 table/testdata/gen_write.py

check_write.py recomputes the indexes of a table from scratch with the
same independent helpers (gen.py) and reports what differs.
"""
import math
import os

import h5py
import numpy as np

from gen import (BOOL_ENUM, make_ds, murmur3_x64_128, str_attr, table_group, finish_table)

HERE = os.path.dirname(os.path.abspath(__file__))
N = 40
CHUNK = 16

# column name -> (dtype, fill, search index kinds)
COLUMNS = {
    "x": ("<i4", -1, ["CHUNK_MINMAX", "CHUNK_BLOOM", "SORTED_ROWS"]),
    "e": ("<f8", float("nan"), ["CHUNK_MINMAX", "SORTED_ROWS"]),
    "k": ("u1", 255, ["BITMAP", "CHUNK_BLOOM"]),
    "tag": ("S8", b"", ["CHUNK_MINMAX"]),
}


def values(rng):
    x = rng.integers(-1000, 1000, N).astype("<i4")
    x[[3, 17]] = -1
    e = rng.normal(size=N)
    e[[5, 30]] = np.nan
    k = rng.integers(0, 4, N).astype("u1")
    k[8] = 255
    tag = np.array([("t%d" % rng.integers(0, 50)).encode() for _ in range(N)], dtype="S8")
    tag[2] = b""
    return {"x": x, "e": e, "k": k, "tag": tag}


# index datasets of write_fixed.h5 that cannot grow (a BITMAP's values
# dataset with it)
FIXED = {"x__chunk_minmax", "x__sorted_rows", "k__bitmap", "tag__chunk_minmax"}


def index_ds(si, name, arr, chunk, grow_rows=False, fixed=False):
    """A chunked search-index dataset holding arr, unlimited in its first
    dimension (and in its second with grow_rows: bitmap rows), unless
    fixed: then its maximum extent is its extent."""
    maxshape = (None,) + ((None,) if grow_rows else arr.shape[1:])
    if fixed:
        maxshape = arr.shape
    chunks = (min(chunk, arr.shape[0]) if fixed else chunk,) + arr.shape[1:]
    return si.create_dataset(name, data=arr, maxshape=maxshape, chunks=chunks)


def main():
    write("write.h5", set())
    write("write_fixed.h5", FIXED)


def write(fname, fixed):
    rng = np.random.default_rng(8)
    vals = values(rng)
    with h5py.File(os.path.join(HERE, fname), "w", track_order=True) as f:
        g = table_group(f, "t", N, list(COLUMNS))
        for name, (dt, fill, _) in COLUMNS.items():
            make_ds(g, name, dt, vals[name], chunk=CHUNK, fill=fill)
        si = g.create_group("SEARCH_INDEXES")
        import check_write
        model = check_write.Model(f["t"])
        for name, (dt, fill, kinds) in COLUMNS.items():
            refs = []
            for kind in kinds:
                want = model.expected(name, kind, k=3, m_bits=128, seed=5)
                iname = "%s__%s" % (name, kind.lower())
                fx = iname in fixed
                if kind == "CHUNK_MINMAX":
                    ds = index_ds(si, iname, want["entries"], 4, fixed=fx)
                elif kind == "SORTED_ROWS":
                    ds = index_ds(si, iname, want["perm"], 16, fixed=fx)
                    ds.attrs.create("nan_tail_length", np.uint64(want["nan_tail"]))
                    ds.attrs.create("fill_tail_length", np.uint64(want["fill_tail"]))
                    ds.attrs.create("ordered", np.int8(1), dtype=BOOL_ENUM)
                elif kind == "BITMAP":
                    ds = index_ds(si, iname, want["bits"], 4, grow_rows=True, fixed=fx)
                    vds = index_ds(si, iname + "__values", want["values"], 4, fixed=fx)
                    ds.attrs.create("VALUES", vds.ref, dtype=h5py.ref_dtype)
                    ds.attrs.create("ordered", np.int8(0), dtype=BOOL_ENUM)
                elif kind == "CHUNK_BLOOM":
                    ds = index_ds(si, iname, want["filters"], 4, fixed=fx)
                    ds.attrs.create("k", np.uint16(3))
                    ds.attrs.create("m_bits", np.uint64(128))
                    ds.attrs.create("seed", np.uint32(5))
                    str_attr(ds, "hash_family", "murmur3_x64_128_double", cset="ascii")
                str_attr(ds, "KIND", kind, cset="ascii")
                refs.append(ds.ref)
            g[name].attrs.create("SEARCH_INDEX_LIST", refs, dtype=h5py.ref_dtype)
        finish_table(g, list(COLUMNS))


if __name__ == "__main__":
    main()
