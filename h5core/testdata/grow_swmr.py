#!/usr/bin/python3
"""Grows an HDF5 file as a libhdf5 SWMR writer does, for the tests of
reading a file that another process extends (file_grow_test.go). Element
i of every dataset holds i * 0.5.

usage: grow_swmr.py create FILE        /plain (unfiltered) and /gzip
                                       (deflate), chunks of 8, 10 elements,
                                       extensible array chunk indexes
       grow_swmr.py append FILE ROWS   as a SWMR writer, append ROWS
                                       elements to both and flush"""
import sys

import h5py
import numpy as np

NAMES = {"plain": {}, "gzip": {"compression": "gzip"}}


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "create":
        with h5py.File(path, "w", libver="latest") as f:
            for name, kw in NAMES.items():
                f.create_dataset(name, data=np.arange(10) * 0.5, maxshape=(None,), chunks=(8,), **kw)
    elif mode == "append":
        rows = int(sys.argv[3])
        with h5py.File(path, "a", libver="latest") as f:
            f.swmr_mode = True
            for name in NAMES:
                d = f[name]
                n = d.shape[0]
                d.resize((n + rows,))
                d[n:] = np.arange(n, n + rows) * 0.5
            f.flush()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
