#!/usr/bin/python3
"""Writes a family of files joined by external links into DIR and prints,
as JSON, what libhdf5 (h5py) reads at each path of DIR/master.h5:

    {"/path": {"raw": hex of the values (little-endian)} | {"error": "..."}}

with HDF5_EXT_PREFIX set to DIR/prefixed (the test sets the same).

    master.h5  /data       -> data_000001.h5:/entry/data   (EIGER-style)
               /sub        -> sub/b.h5:/g                  (a group, in a subfolder)
               /sub_value  -> sub/b.h5:/g/v through the group
               /abs        -> DIR/data_000001.h5 (absolute), /entry/data
               /moved      -> /nowhere/data_000001.h5 (absolute, missing: found
                              by its base name beside master.h5)
               /prefixed   -> only_in_prefix.h5:/d (found through HDF5_EXT_PREFIX)
               /chain      -> sub/b.h5:/g/back -> ../master.h5:/local (back again)
               /soft_in_ext -> sub/b.h5:/g/soft (a relative soft link inside b.h5)
               /missing    -> nothere.h5:/x    (an error on this link only)
               /loop       -> master.h5:/loop  (a cycle: an error)
               /local      a plain dataset

Usage: /usr/bin/python3 gen_extlinks.py DIR
"""

import json
import os
import sys

import h5py
import numpy as np

d = sys.argv[1]
os.makedirs(os.path.join(d, "sub"), exist_ok=True)
os.makedirs(os.path.join(d, "prefixed"), exist_ok=True)
with h5py.File(os.path.join(d, "data_000001.h5"), "w") as f:
    f.create_dataset("entry/data", data=np.arange(24, dtype="<u2").reshape(2, 3, 4), chunks=(1, 3, 4),
                     compression="gzip")
with h5py.File(os.path.join(d, "prefixed", "only_in_prefix.h5"), "w") as f:
    f["d"] = np.array([1.5, 2.5], dtype="<f8")
with h5py.File(os.path.join(d, "sub", "b.h5"), "w") as f:
    g = f.create_group("g")
    g["v"] = np.array([7, 8, 9], dtype="<i4")
    g["back"] = h5py.ExternalLink("../master.h5", "/local")
    g["soft"] = h5py.SoftLink("v")
with h5py.File(os.path.join(d, "master.h5"), "w") as f:
    f["local"] = np.array([-1, -2], dtype="<i8")
    f["data"] = h5py.ExternalLink("data_000001.h5", "/entry/data")
    f["sub"] = h5py.ExternalLink("sub/b.h5", "/g")
    f["abs"] = h5py.ExternalLink(os.path.join(os.path.abspath(d), "data_000001.h5"), "/entry/data")
    f["moved"] = h5py.ExternalLink("/nowhere/data_000001.h5", "/entry/data")
    f["prefixed"] = h5py.ExternalLink("only_in_prefix.h5", "/d")
    f["chain"] = h5py.ExternalLink("sub/b.h5", "/g/back")
    f["soft_in_ext"] = h5py.ExternalLink("sub/b.h5", "/g/soft")
    f["missing"] = h5py.ExternalLink("nothere.h5", "/x")
    f["loop"] = h5py.ExternalLink("master.h5", "/loop")

os.environ["HDF5_EXT_PREFIX"] = os.path.join(d, "prefixed")
out = {}
os.chdir("/")  # relative names resolve beside the linking file, not here
with h5py.File(os.path.join(d, "master.h5"), "r") as f:
    for p in ["/local", "/data", "/sub/v", "/abs", "/moved", "/prefixed", "/chain", "/soft_in_ext",
              "/missing", "/loop"]:
        try:
            v = f[p][()]
            out[p] = {"raw": np.ascontiguousarray(v.astype(v.dtype.newbyteorder("<"))).tobytes().hex()}
        except Exception as e:  # noqa: BLE001
            out[p] = {"error": str(e)}
print(json.dumps(out))
