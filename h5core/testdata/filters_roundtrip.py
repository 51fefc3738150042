#!/usr/bin/python3
"""libhdf5 side of h5core's filter encoder test (register_h5py_test.go).

  filters_roundtrip.py create FILE SPEC.json
      Creates one empty chunked 1-D dataset per SPEC entry
      {"name", "dtype" (numpy string, e.g. "<i4"), "type" (optional:
      {"precision", "offset"} for an n-bit integer type), "fill" (optional),
      "shape", "chunk",
      "filters": [[id, flags, [cd...]], ...]} through the low-level API, so
      libhdf5 itself fills in the filters' client data (set_local).

  filters_roundtrip.py write FILE CHUNKS.json OUTDIR
      Stores each chunk {"dataset", "offset", "mask", "path"} as is with
      write_direct_chunk (the bytes h5core's encoders produced), then reopens
      the file, reads every dataset through libhdf5's filter pipeline and
      writes its raw element bytes (the file's byte order) to OUTDIR/NAME.bin.

Use Debian's /usr/bin/python3 (python3-h5py); LZ4 and Blosc need the Debian
plugin packages hdf5-filter-plugin and hdf5-filter-plugin-blosc-serial.
"""
import json
import os
import sys

import h5py
import numpy as np


def create(path, spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    with h5py.File(path, "w") as f:
        for d in spec:
            dt = np.dtype(d["dtype"])
            tid = h5py.h5t.py_create(dt).copy()
            if "type" in d:
                tid.set_offset(d["type"]["offset"])
                tid.set_precision(d["type"]["precision"])
            space = h5py.h5s.create_simple(tuple(d["shape"]), tuple(d["shape"]))
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_chunk(tuple(d["chunk"]))
            if d.get("fill"):
                dcpl.set_fill_value(np.array(d["fill"], dtype=dt))
            for fid, flags, cd in d["filters"]:
                dcpl.set_filter(fid, flags, tuple(cd))
            h5py.h5d.create(f.id, d["name"].encode(), tid, space, dcpl)


def write(path, chunks_path, outdir):
    with open(chunks_path) as f:
        chunks = json.load(f)
    with h5py.File(path, "r+") as f:
        for c in chunks:
            with open(c["path"], "rb") as cf:
                data = cf.read()
            f[c["dataset"]].id.write_direct_chunk(tuple(c["offset"]), data, c["mask"])
    with h5py.File(path, "r") as f:
        for name, ds in f.items():
            with open(os.path.join(outdir, name + ".bin"), "wb") as out:
                out.write(ds[...].tobytes())


if __name__ == "__main__":
    if sys.argv[1] == "create":
        create(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("usage: filters_roundtrip.py create|write ...")
