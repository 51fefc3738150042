#!/usr/bin/python3
"""Writes h5core/testdata/write/*.h5: small files, one group per chunk
index kind, that the write-side tests copy, change and hand back to
libhdf5 (check_write.py). Run with Debian's /usr/bin/python3 (h5py on
libhdf5 1.10); output is deterministic (no timestamps).

earliest_ub.h5 and latest_ub.h5 are the common part behind a 512-byte
user block (userblock_size=512; USER_BLOCK bytes written into it after
closing), so every file address is relative to a non-zero base.

Every file has a table-like group /t (NROWS attribute, uint64) whose
datasets hold i*10+column values; see the per-file lists below."""
import os
import sys

import h5py
import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "write")
os.makedirs(out, exist_ok=True)


def ds(g, name, data, **kw):
    kw.setdefault("track_times", False)
    return g.create_dataset(name, data=data, **kw)


def common(f):
    t = f.create_group("t", track_order=False)
    t.attrs["NROWS"] = np.uint64(10)
    t.attrs["CLASS"] = np.bytes_(b"TABLE")
    n = np.arange(10)
    ds(t, "a", n * 10, chunks=(4,), maxshape=(None,))
    ds(t, "b", (n * 10 + 1).astype("f8"), chunks=(4,), maxshape=(None,), compression="gzip", shuffle=True)
    ds(t, "c", (np.arange(30).reshape(10, 3) * 10 + 2).astype("i4"), chunks=(4, 3), maxshape=(None, 3))
    ds(t, "many", np.arange(1000, dtype="i8"), chunks=(2,), maxshape=(None,))
    ds(f, "fixed", np.arange(10, dtype="i4"), chunks=(4,), maxshape=(20,))
    f.create_dataset("fixed_empty", shape=(10,), dtype="i4", chunks=(4,), maxshape=(20,), track_times=False)
    t.create_dataset("empty", shape=(0,), dtype="i8", chunks=(4,), maxshape=(None,), track_times=False)
    ds(f, "contig", np.arange(10, dtype="i4"))
    t.attrs["list"] = np.arange(5, dtype="i8")
    g = f.create_group("attrs")
    for i in range(20):
        g.attrs["a%02d" % i] = np.int64(i)
    g.attrs["list"] = np.arange(5, dtype="i8")
    g = f.create_group("links")
    for i in range(3):
        ds(g, "x%d" % i, np.arange(2, dtype="i2"))
    g = f.create_group("dense_links", track_order=True)
    for i in range(20):
        ds(g, "d%02d" % i, np.arange(2, dtype="i2"))


for libver in ("earliest", "latest"):
    with h5py.File(os.path.join(out, libver + ".h5"), "w", libver=libver, track_order=False) as f:
        common(f)
        if libver == "latest":
            ds(f, "single", np.arange(8, dtype="i4"), chunks=(8,))
            f.create_dataset("single_empty", shape=(8,), dtype="i4", chunks=(8,), track_times=False)
            ds(f, "single_gzip", np.arange(8, dtype="i4"), chunks=(8,), compression="gzip")
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_chunk((4,))
            dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
            sp = h5py.h5s.create_simple((10,), (20,))
            h5py.h5d.create(f.id, b"implicit", h5py.h5t.STD_I32LE, sp, dcpl=dcpl)
            f["implicit"][...] = np.arange(10, dtype="i4")
            ds(f, "paged", np.arange(1500, dtype="i2"), chunks=(1,), maxshape=(3000,))
            ds(f, "bt2", np.arange(12, dtype="i4").reshape(4, 3), chunks=(2, 2), maxshape=(None, None))
            ds(f, "bt2_gzip", np.arange(12, dtype="i4").reshape(4, 3), chunks=(2, 2), maxshape=(None, None), compression="gzip")
            ds(f, "ea_big", np.arange(3000, dtype="i4"), chunks=(1,), maxshape=(None,))


# The user block's content: the tests check that writes leave it as is.
USER_BLOCK = bytes(range(256)) * 2

for libver in ("earliest", "latest"):
    p = os.path.join(out, libver + "_ub.h5")
    with h5py.File(p, "w", libver=libver, track_order=False, userblock_size=len(USER_BLOCK)) as f:
        common(f)
    with open(p, "r+b") as fh:
        fh.write(USER_BLOCK)
