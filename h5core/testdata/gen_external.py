#!/usr/bin/python3
"""Writes DIR/in/ext.h5, whose contiguous datasets keep their raw data in
external files (h5py's external=, the External Data Files message), and
prints as JSON what libhdf5 reads for each: {"/path": {"raw": hex} or
{"error": message}, "refused": true when h5fs must refuse the file name}.

Cases: two files with an offset into the second; one slot of unlimited
size; a file in a subfolder; a file shorter than its slot (libhdf5 reads
zeros past its end); a missing file; a name leading out of the HDF5 file's
folder ("../") and an absolute name, which libhdf5 follows and h5fs
refuses.

Usage: /usr/bin/python3 gen_external.py DIR
"""

import json
import os
import sys

import h5py
import numpy as np

UNLIMITED = h5py.h5f.UNLIMITED


def main():
    top = os.path.abspath(sys.argv[1])
    here = os.path.join(top, "in")
    os.makedirs(os.path.join(here, "sub"), exist_ok=True)
    os.chdir(here)  # libhdf5 resolves relative external names from here
    cases = {
        "/two_files": (np.arange(25, dtype="<i4") * 7 - 40, [("a.bin", 0, 40), ("b.bin", 16, 60)]),
        "/unlimited": (np.linspace(-1, 1, 10), [("c.bin", 8, UNLIMITED)]),
        "/sub": (np.arange(12, dtype="<i2") - 6, [("sub/d.bin", 0, 24)]),
        "/short": (np.arange(20, dtype="<u4") + 1, [("short.bin", 0, 80)]),
        "/missing": (np.arange(4, dtype="<u4"), [("gone.bin", 0, 16)]),
        "/escape": (np.arange(4, dtype="<u4") + 100, [("../outside.bin", 0, 16)]),
        "/absolute": (np.arange(4, dtype="<u4") + 200, [(os.path.join(top, "abs.bin"), 0, 16)]),
    }
    with h5py.File("ext.h5", "w") as f:
        for path, (data, ext) in cases.items():
            f.create_dataset(path, data=data, external=ext)
    with open("short.bin", "r+b") as fh:
        fh.truncate(30)
    os.remove("gone.bin")
    out = {}
    with h5py.File("ext.h5", "r") as f:
        for path in cases:
            try:
                out[path] = {"raw": np.ascontiguousarray(f[path][...]).tobytes().hex()}
            except Exception as e:  # noqa: BLE001  (libhdf5's error, kept for the log)
                out[path] = {"error": str(e)}
            out[path]["refused"] = path in ("/escape", "/absolute")
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
