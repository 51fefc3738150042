"""Writes FILE with one group /g of N members, for the big-group kernel
test (test/fuse/biggroup_test.go): N empty groups e000000, e000001, ...,
and, with a third argument "datasets", N small int32 datasets d000000, ...
instead. Written in memory (h5py's core driver) and saved once, which is
several times faster than creating the members in the file itself.

usage: biggroup.py FILE N [datasets]
"""
import sys

import h5py
import numpy as np


def main():
    name, n = sys.argv[1], int(sys.argv[2])
    datasets = len(sys.argv) > 3 and sys.argv[3] == "datasets"
    with h5py.File(name, "w", libver="latest", driver="core", backing_store=True) as f:
        g = f.create_group("g")
        if not datasets:
            for i in range(n):
                h5py.h5g.create(g.id, b"e%06d" % i)
            return
        space = h5py.h5s.create_simple((4,))
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        v = np.arange(4, dtype="<i4")
        for i in range(n):
            d = h5py.h5d.create(g.id, b"d%06d" % i, h5py.h5t.STD_I32LE, space, dcpl=dcpl)
            d.write(h5py.h5s.ALL, h5py.h5s.ALL, v + i)


main()
