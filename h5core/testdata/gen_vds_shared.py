#!/usr/bin/python3
"""Writes DIR/shared.h5 with Debian's h5py (libhdf5 1.10): one virtual dataset
/shared (7 rows of 3 int32, fill -5) whose mappings repeat source names, the
case libhdf5 2.0 stores in a version 1 mapping block (each repeated name once,
"." as a flag); libhdf5 1.10 writes version 0, which the Go test rewrites.

    rows 0-1  frames_000001.h5:/entry/data/frames rows 0-1
    rows 2-3  frames_000001.h5:/entry/data/frames rows 2-3   file and dataset names repeated
    row  4    .:/entry/local                        the virtual dataset's own file
    row  5    frames_000002.h5:/entry/data/frames   dataset name repeated
    row  6    frames_000002.h5:/entry/data/more     file name repeated
    row  7    unmapped                              fill value

(names long enough that the version 1 block is the shorter one, as libhdf5
2.0 requires before choosing it).

The file holds no other global heap object. Prints what libhdf5 reads:
{"/shared": {"shape": [...], "raw": hex (little-endian)}}.

Usage: /usr/bin/python3 gen_vds_shared.py DIR
"""

import json
import os
import sys

import h5py
import numpy as np

d = os.path.abspath(sys.argv[1])
os.chdir(d)  # sources named relative to the folder of shared.h5
with h5py.File("frames_000001.h5", "w") as f:
    f["entry/data/frames"] = np.arange(12, dtype="<i4").reshape(4, 3)
with h5py.File("frames_000002.h5", "w") as f:
    f["entry/data/frames"] = np.array([[100, 101, 102]], dtype="<i4")
    f["entry/data/more"] = np.array([[200, 201, 202]], dtype="<i4")


def sel(shape, start, count):
    s = h5py.h5s.create_simple(shape)
    s.select_hyperslab(start, count)
    return s


with h5py.File("shared.h5", "w", libver="earliest") as f:
    f["entry/local"] = np.array([[-1, -2, -3]], dtype="<i4")
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_fill_value(np.array(-5, dtype="<i4"))
    a, b = "frames_000001.h5", "frames_000002.h5"
    for row, n, src, name, srow, sshape in [(0, 2, a, "/entry/data/frames", 0, (4, 3)),
                                           (2, 2, a, "/entry/data/frames", 2, (4, 3)),
                                           (4, 1, ".", "/entry/local", 0, (1, 3)),
                                           (5, 1, b, "/entry/data/frames", 0, (1, 3)),
                                           (6, 1, b, "/entry/data/more", 0, (1, 3))]:
        dcpl.set_virtual(sel((8, 3), (row, 0), (n, 3)), src.encode(), name.encode(), sel(sshape, (srow, 0), (n, 3)))
    h5py.h5d.create(f.id, b"shared", h5py.h5t.STD_I32LE, h5py.h5s.create_simple((8, 3)), dcpl=dcpl)

os.chdir("/")
with h5py.File(os.path.join(d, "shared.h5"), "r") as f:
    v = f["shared"][()]
print(json.dumps({"/shared": {"shape": list(v.shape), "raw": v.astype("<i4").tobytes().hex()}}))
