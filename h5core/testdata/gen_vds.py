#!/usr/bin/python3
"""Writes virtual datasets (and their source files) into DIR with Debian's
h5py (libhdf5 1.10; point selections are refused in mappings), removes one
source file, and prints as JSON what
libhdf5 reads from each virtual dataset of DIR/vds.h5 afterwards:

    {"/name": {"dtype": numpy str, "shape": [...], "raw": hex (little-endian)}}

    /stack         frames_0..3.h5:/data (4x5 int32 each) stacked into (4, 4, 5);
                   frames_2.h5 is removed: its frame reads as the fill value (-7)
    /every_other   same-file source /base rows 0..4 mapped to virtual rows 0,2,4,6,8
                   (regular hyperslab with stride); odd rows unmapped: fill (-1.5)
    /irregular     an irregular virtual selection (union of two blocks) fed by a
                   rectangular source block of the same count
    /partial       a block of the source mapped into a corner of a larger dataset
    /unlimited     an unlimited mapping: a growable source (rows appended after
                   the virtual dataset was made) mapped with count UNLIMITED
    /subfolder     a source in a subfolder, named relative to vds.h5
    /printf        printf-style source file names blk_%b.h5 over an unlimited
                   mapping: blocks 0-2 exist, 3 is missing (4 exists but lies
                   beyond the gap): 3 blocks of 2 rows
    /printf_dset   printf-style dataset names in the same file (/f/f%b, two
                   of them) and a source file name with "%%" (pct%.h5)

Usage: /usr/bin/python3 gen_vds.py DIR
"""

import json
import os
import sys

import h5py
import numpy as np

d = os.path.abspath(sys.argv[1])
os.makedirs(os.path.join(d, "sub"), exist_ok=True)
os.chdir(d)  # sources named relative to the folder of vds.h5
for i in range(4):
    with h5py.File("frames_%d.h5" % i, "w") as f:
        f["data"] = (np.arange(20, dtype="<i4").reshape(4, 5) + 100 * i)
with h5py.File("sub/part.h5", "w") as f:
    f["p"] = np.arange(6, dtype="<u2") * 11
for i in (0, 1, 2, 4):
    with h5py.File("blk_%d.h5" % i, "w") as f:
        f["d"] = np.arange(6, dtype="<i2").reshape(2, 3) + 10 * i
with h5py.File("pct%.h5", "w") as f:
    f["p"] = np.array([[-1, -2, -3]], dtype="<i2")
with h5py.File("grow.h5", "w", libver="latest") as f:
    f.create_dataset("g", data=np.arange(6, dtype="<f4").reshape(2, 3), maxshape=(None, 3), chunks=(1, 3))

with h5py.File("vds.h5", "w", libver="latest") as f:
    lay = h5py.VirtualLayout(shape=(4, 4, 5), dtype="<i4")
    for i in range(4):
        lay[i] = h5py.VirtualSource("frames_%d.h5" % i, "data", shape=(4, 5))
    f.create_virtual_dataset("stack", lay, fillvalue=-7)

    base = f.create_dataset("base", data=np.arange(15, dtype="<f8").reshape(5, 3))
    lay = h5py.VirtualLayout(shape=(9, 3), dtype="<f8")
    lay[0:9:2, :] = h5py.VirtualSource(base)
    f.create_virtual_dataset("every_other", lay, fillvalue=-1.5)

    lay = h5py.VirtualLayout(shape=(6, 6), dtype="<f8")
    lay[0:2, 0:3] = h5py.VirtualSource(base)[0:2, :]
    f.create_virtual_dataset("partial", lay, fillvalue=0)

    # low-level: irregular and point selections
    def vds(name, shape, dtype, fill, maps):
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_fill_value(np.array(fill, dtype=dtype))
        for vsel, src_file, src_name, ssel in maps:
            dcpl.set_virtual(vsel, src_file.encode(), src_name.encode(), ssel)
        space = h5py.h5s.create_simple(shape)
        h5py.h5d.create(f.id, name.encode(), h5py.h5t.py_create(np.dtype(dtype)), space, dcpl=dcpl)

    v = h5py.h5s.create_simple((6, 6))
    v.select_hyperslab((0, 0), (1, 1), block=(2, 2))
    v.select_hyperslab((3, 2), (1, 1), block=(2, 4), op=h5py.h5s.SELECT_OR)
    s = h5py.h5s.create_simple((5, 3))
    s.select_hyperslab((0, 0), (4, 3))  # 12 elements, as many as the virtual union
    vds("irregular", (6, 6), "<f8", 99.0, [(v, ".", "base", s)])

    v = h5py.h5s.create_simple((2, 6))
    v.select_hyperslab((0, 0), (1, 6))
    s = h5py.h5s.create_simple((6,))
    s.select_all()
    vds("subfolder", (2, 6), "<u2", 5, [(v, "sub/part.h5", "p", s)])

    v = h5py.h5s.create_simple((2, 3), (h5py.h5s.UNLIMITED, 3))
    v.select_hyperslab((0, 0), (h5py.h5s.UNLIMITED, 1), block=(1, 3))
    s = h5py.h5s.create_simple((2, 3), (h5py.h5s.UNLIMITED, 3))
    s.select_hyperslab((0, 0), (h5py.h5s.UNLIMITED, 1), block=(1, 3))
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_fill_value(np.array(-3, dtype="<f4"))
    dcpl.set_virtual(v, b"grow.h5", b"g", s)
    h5py.h5d.create(f.id, b"unlimited", h5py.h5t.IEEE_F32LE,
                    h5py.h5s.create_simple((2, 3), (h5py.h5s.UNLIMITED, 3)), dcpl=dcpl)

    # printf-style names: block b of an unlimited virtual selection
    def printf_vds(name, maps, rows):
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_fill_value(np.array(-9, dtype="<i2"))
        for vsel, src_file, src_name, ssel in maps:
            dcpl.set_virtual(vsel, src_file.encode(), src_name.encode(), ssel)
        h5py.h5d.create(f.id, name.encode(), h5py.h5t.STD_I16LE,
                        h5py.h5s.create_simple((rows, 3), (h5py.h5s.UNLIMITED, 3)), dcpl=dcpl)

    v = h5py.h5s.create_simple((2, 3), (h5py.h5s.UNLIMITED, 3))
    v.select_hyperslab((0, 0), (h5py.h5s.UNLIMITED, 1), stride=(2, 1), block=(2, 3))
    s = h5py.h5s.create_simple((2, 3))
    s.select_all()
    printf_vds("printf", [(v, "blk_%b.h5", "d", s)], 2)

    f["f/f0"] = np.array([[1, 2, 3]], dtype="<i2")
    f["f/f1"] = np.array([[4, 5, 6]], dtype="<i2")
    v = h5py.h5s.create_simple((1, 3), (h5py.h5s.UNLIMITED, 3))
    v.select_hyperslab((1, 0), (h5py.h5s.UNLIMITED, 1), stride=(3, 1), block=(1, 3))
    s = h5py.h5s.create_simple((1, 3))
    s.select_all()
    v2 = h5py.h5s.create_simple((1, 3), (h5py.h5s.UNLIMITED, 3))
    v2.select_hyperslab((0, 0), (1, 1), block=(1, 3))
    printf_vds("printf_dset", [(v, ".", "/f/f%b", s), (v2, "pct%%.h5", "p", s)], 1)

with h5py.File("grow.h5", "a") as f:  # the source grows after the VDS was made
    f["g"].resize((4, 3))
    f["g"][2:4] = [[6, 7, 8], [9, 10, 11]]
os.remove("frames_2.h5")

os.chdir("/")  # relative source names resolve beside vds.h5, not here
out = {}
with h5py.File(os.path.join(d, "vds.h5"), "r") as f:
    for name in ["stack", "every_other", "partial", "irregular", "subfolder", "unlimited", "printf", "printf_dset"]:
        ds = f[name]
        assert ds.is_virtual, name
        v = ds[()]
        out["/" + name] = {"dtype": v.dtype.str, "shape": list(v.shape),
                           "raw": np.ascontiguousarray(v.astype(v.dtype.newbyteorder("<"))).tobytes().hex()}
print(json.dumps(out))
