#!/usr/bin/python3
"""Writes fill.h5 (or the file named by argv[1]) with Debian's h5py:
datasets whose storage is partly or never written, for the arithmetic
sizing of fill runs in text views (datasetcsv_width.go). fillsize_test.go
writes it at test time: its views are too big to keep in testdata, whose
every view other tests read."""
import sys
import h5py
import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "fill.h5"
with h5py.File(out, "w") as f:
    def add(name, **kw):
        return f.create_dataset(name, track_times=False, **kw)

    # two chunks of 100 written, the rest fill
    g = add("gaps", shape=(1_000_000,), dtype="<f8", chunks=(10_000,), fillvalue=2.5,
            compression="gzip")
    g[0:10_000] = np.arange(10_000) / 8
    g[500_000:510_000] = -np.arange(10_000)
    # a matrix, never written
    add("never2", shape=(200_000, 3), dtype="<i4", chunks=(1_000, 3), fillvalue=-7)
    # contiguous storage never allocated
    add("contig", shape=(100_000,), dtype="<f4", fillvalue=0.125)
    # 2^32 rows never written: sized without a pass over them
    add("never_big", shape=(1 << 32,), dtype="<f8", chunks=(1 << 20,), fillvalue=2.5)
    # a table (HEP001) whose columns are mostly never written: rows 0-999
    # and 50,000-50,099 of x, rows 0-999 of y, none of z (no fill value
    # set: zeros)
    t = f.create_group("tfill")
    t.attrs["CLASS"] = np.bytes_("COLUMN_TABLE")
    t.attrs["VERSION"] = np.bytes_("1.0")
    t.attrs["NROWS"] = np.uint64(100_000)
    x = t.create_dataset("x", shape=(100_000,), dtype="<i4", chunks=(8192,), fillvalue=-1, track_times=False)
    x[0:1000] = np.arange(1000)
    x[50_000:50_100] = 7
    y = t.create_dataset("y", shape=(100_000,), dtype="<f8", chunks=(8192,), fillvalue=0.5, track_times=False)
    y[0:1000] = np.arange(1000) / 4
    t.create_dataset("z", shape=(100_000,), dtype="<i2", chunks=(8192,), track_times=False)
