#!/usr/bin/python3
"""Writes testdata/filters_zfp/: chunks of the zfp filter (id 32013) in
gen_filters.py's format (<case>.chunk.bin, expect_<sha1>.bin,
manifest.json), each the whole of a one-chunk dataset.

Writer: Debian's hdf5-filter-plugin-zfp-serial (H5Z-ZFP 1.1.0 over zfp
1.0.0) through h5py's generic filter interface, in each of zfp's modes
(fixed rate, fixed precision, fixed accuracy, expert, reversible) for
float32, float64, int32 and int64 values in 1, 2, 3 and 4 dimensions
whose sizes are not multiples of zfp's block edge 4 (partial blocks). The
expected bytes are what libhdf5 reads back through the plugin: for the
lossy modes, exactly libzfp's decoding.

    apt-get install python3-h5py hdf5-filter-plugin-zfp-serial

Usage: /usr/bin/python3 gen_filters_zfp.py
"""

import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_filters_plugins as gp  # noqa: E402  (sets HDF5_PLUGIN_PATH)
import numpy as np  # noqa: E402

gp.OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "filters_zfp")
RNG = np.random.RandomState(20261128)
RNG4 = np.random.RandomState(20261129)  # the 4-D cases, added later


def dbl(x):
    """A double as H5Z-ZFP's two cd_values words."""
    return list(struct.unpack("<2I", struct.pack("<d", x)))


# H5Z-ZFP's generic cd_values: mode, 0, then the mode's parameters
MODES = {
    "rate": [1, 0] + dbl(12.5),
    "prec": [2, 0, 19],
    "acc": [3, 0] + dbl(0.01),
    "expert": [4, 0, 40, 600, 24, (-6) & 0xffffffff],
    "rev": [5, 0],
}
SHAPES = {"1d": (203,), "2d": (19, 13), "3d": (7, 6, 5)}


def values(shape, dtype, rng=RNG):
    n = int(np.prod(shape))
    x = np.linspace(0, 9, n).reshape(shape)
    v = np.sin(x) * 300 + np.cos(x * 3.1) * 40 + rng.normal(0, 2, shape)
    v.flat[::17] = 0  # some exact zeros
    if dtype in ("<i4", "<i8"):
        v = np.round(v * 1000)
    a = v.astype(dtype)
    if len(shape) >= 3:
        a[0] = 0  # an all-zero block plane
    return a


def main():
    os.makedirs(gp.OUT, exist_ok=True)
    tmp = tempfile.mkdtemp()
    manifest = []
    for mode, cd in MODES.items():
        for dname, shape in SHAPES.items():
            for tname, dtype in (("f32", "<f4"), ("f64", "<f8"), ("i32", "<i4"), ("i64", "<i8")):
                name = "zfp_%s_%s_%s" % (mode, tname, dname)
                try:
                    gp.h5py_case(manifest, tmp, name, values(shape, dtype), compression=gp.ZFP,
                                 compression_opts=tuple(cd))
                except Exception as e:  # H5Z-ZFP refuses some mode/type pairs
                    print("skipped", name, e)
    # a float block of tiny and huge magnitudes, and a reversible one that
    # needs the bit-pattern path (values no block-floating-point can hold)
    odd = np.array([1e-30, -3e30, 5.5, 0.0, 1e-38, 2.0**-140, 7e20, -1.0] * 9, dtype="<f4")
    gp.h5py_case(manifest, tmp, "zfp_rev_f32_mixed", odd, compression=gp.ZFP, compression_opts=tuple(MODES["rev"]))
    gp.h5py_case(manifest, tmp, "zfp_prec_f32_mixed", odd, compression=gp.ZFP, compression_opts=tuple(MODES["prec"]))
    odd64 = np.array([1e-300, -3e300, np.pi, 0.0, 5e-324, 2.0**-1000, 7e200, -1.0] * 9, dtype="<f8")
    gp.h5py_case(manifest, tmp, "zfp_rev_f64_mixed", odd64, compression=gp.ZFP, compression_opts=tuple(MODES["rev"]))
    gp.h5py_case(manifest, tmp, "zfp_acc_f64_mixed", odd64, compression=gp.ZFP, compression_opts=tuple(MODES["acc"]))
    # 4-D fields: 256-value blocks, whose bit planes exceed a 64-bit word
    for mode, cd in MODES.items():
        for tname, dtype in (("f32", "<f4"), ("f64", "<f8"), ("i32", "<i4"), ("i64", "<i8")):
            name = "zfp_%s_%s_4d" % (mode, tname)
            gp.h5py_case(manifest, tmp, name, values((5, 6, 3, 7), dtype, RNG4), compression=gp.ZFP,
                         compression_opts=tuple(cd))
    with open(os.path.join(gp.OUT, "manifest.json"), "w") as fh:
        gp.json.dump(manifest, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
