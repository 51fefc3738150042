#!/usr/bin/python3
"""Writes arrowexport/testdata/datasets.h5 with Debian's h5py: one dataset
per layout and datatype family that the raw and npy views handle.
check_npy.py compares the views with h5py's reading of the same file."""
import sys
import h5py
import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "datasets.h5"
with h5py.File(out, "w") as f:
    def add(name, data, **kw):
        f.create_dataset(name, data=data, **kw)

    add("f8_2d", np.arange(12, dtype="<f8").reshape(3, 4) / 7)
    add("i4_chunked", np.arange(10007, dtype="<i4") * -3, chunks=(1000,))
    add("u1_3d_chunked", (np.arange(5 * 6 * 7) % 251).astype("u1").reshape(5, 6, 7), chunks=(2, 3, 4))
    add("be_i2", np.arange(-50, 50, dtype=">i2"))
    add("be_f8_chunked", np.linspace(-1, 1, 999, dtype=">f8"), chunks=(100,))
    add("str5", np.array([b"a", b"bcdef", b"", b"xyz"], dtype="S5"))
    add("scalar", np.float32(2.5))
    rec = np.dtype([("x", "<f4"), ("y", "<f8"), ("s", "S3")], align=True)
    r = np.zeros(10, dtype=rec)
    r["x"] = np.arange(10) / 2
    r["y"] = -np.arange(10)
    r["s"] = [b"ab%d" % i for i in range(10)]
    add("compound_padded", r)
    a = f.create_dataset("arr2", shape=(10,), dtype=np.dtype(("<f4", (2,))))
    a[...] = np.arange(20, dtype="<f4").reshape(10, 2)
    enum = h5py.enum_dtype({"RED": 0, "GREEN": 1, "MISSING": -1}, basetype="i1")
    f.create_dataset("enum", data=np.array([0, 1, -1, 1], dtype="i1"), dtype=enum)
