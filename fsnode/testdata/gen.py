"""Writes names.h5: link names that need escaping, soft links and a hard
link cycle, for fsnode's tests. Run with Debian's /usr/bin/python3."""
import h5py
import numpy as np

with h5py.File("names.h5", "w", libver="latest") as f:
    a = f.create_group("a")
    a.create_dataset("x", data=np.arange(4, dtype="<i4"))
    a["up"] = f["/"]                # hard link back to the root: a cycle
    f["soft"] = h5py.SoftLink("/a")  # soft link to a group
    f["softx"] = h5py.SoftLink("/a/x")
    for name in ["..", ".hidden", "50%", "tab\there", "caf\u00e9"]:
        f.create_dataset(name, data=np.arange(2, dtype="<u1"))
