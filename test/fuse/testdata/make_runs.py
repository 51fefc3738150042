#!/usr/bin/python3
"""Writes a directory of small HEP001 run files for the directory-mount
tests: OUTDIR/run0000.h5 … run{N-1}.h5, each with an `events` table
(columns run, energy; 10 + i % 7 rows), run0001.h5 also holding external
links to run0000.h5's events table (inside the mount) and to a file
outside it, a run file in a subdirectory (sub/deep.hdf5), a run file with
a user block (ub.h5), an HDF5 signature followed by garbage (bad.h5) and
a text file (notes.txt).

usage: make_runs.py OUTDIR N"""
import os
import sys

import h5py
import numpy as np


def str_attr(obj, name, value):
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(len(value) + 1)
    tid.set_strpad(h5py.h5t.STR_NULLTERM)
    space = h5py.h5s.create(h5py.h5s.SCALAR)
    a = h5py.h5a.create(obj.id, name.encode(), tid, space)
    a.write(np.array(value.encode(), dtype=f"S{len(value) + 1}"))


def run_file(path, run, userblock=0, libver=None):
    kw = {"userblock_size": userblock} if userblock else {}
    if libver:
        kw["libver"] = libver
    with h5py.File(path, "w", **kw) as f:
        n = 10 + run % 7
        g = f.create_group("events")
        str_attr(g, "CLASS", "COLUMN_TABLE")
        str_attr(g, "VERSION", "1.0")
        g.attrs.create("NROWS", np.uint64(n))
        g.attrs.create("column-order", np.array([b"run", b"energy"], dtype="S7"))
        g.create_dataset("run", data=np.full(n, run, dtype="<i4"), maxshape=(None,), chunks=(64,))
        g.create_dataset("energy", data=np.arange(n, dtype="<f8") * 0.5 + run, maxshape=(None,), chunks=(64,))


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    os.makedirs(os.path.join(out, "sub"), exist_ok=True)
    for i in range(n):
        run_file(os.path.join(out, f"run{i:04d}.h5"), i)
    with h5py.File(os.path.join(out, "run0001.h5"), "a") as f:
        f["calib"] = h5py.ExternalLink("run0000.h5", "/events")
        f.create_group("links")["deep"] = h5py.ExternalLink("sub/deep.hdf5", "/events/energy")
        f["outside"] = h5py.ExternalLink("../elsewhere.h5", "/events")
    run_file(os.path.join(out, "sub", "deep.hdf5"), 9000)
    run_file(os.path.join(out, "ub.h5"), 9001, userblock=512)
    with open(os.path.join(out, "bad.h5"), "wb") as f:
        f.write(b"\x89HDF\r\n\x1a\n" + bytes(range(256)) * 4)
    with open(os.path.join(out, "notes.txt"), "w") as f:
        f.write("not HDF5\n")


if __name__ == "__main__":
    main()
