#!/usr/bin/python3
"""check_npy.py FILE.h5 DIR: for every DIR/NAME.npy and DIR/NAME.raw, checks
that numpy.load (plain and mmap_mode='r') and numpy.fromfile give h5py's
values of dataset NAME. Prints one line per dataset; exits 1 on a mismatch."""
import os
import sys
import h5py
import numpy as np

h5, d = sys.argv[1], sys.argv[2]
bad = 0
with h5py.File(h5, "r") as f:
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".npy"):
            continue
        name = fn[:-4]
        want = f[name][()]
        for mm in (None, "r"):
            got = np.load(os.path.join(d, fn), mmap_mode=mm)
            ok = got.shape == np.shape(want) and got.tolist() == np.asarray(want).tolist()
            raw = np.fromfile(os.path.join(d, name + ".raw"), dtype=got.dtype).reshape(got.shape)
            ok = ok and raw.tolist() == got.tolist()
            if not ok:
                bad += 1
                print("MISMATCH", name, mm, got.dtype, got.shape, np.shape(want))
        print("ok" if ok else "bad", name, got.dtype.str if got.dtype.names is None else got.dtype.descr, got.shape)
sys.exit(1 if bad else 0)
