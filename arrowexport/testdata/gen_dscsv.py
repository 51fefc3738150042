#!/usr/bin/python3
"""Writes arrowexport/testdata/dscsv.h5 with Debian's h5py: ordinary
datasets of every rank and element kind the dataset CSV view handles.
check_dscsv.py compares the CSV files with h5py's reading of the file."""
import sys
import h5py
import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "dscsv.h5"
with h5py.File(out, "w") as f:
    def add(name, data=None, **kw):
        return f.create_dataset(name, data=data, track_times=False, **kw)

    add("scalar_f8", np.float64(2.5))
    add("scalar_str", np.bytes_(b"a,b"), dtype="S5")
    add("scalar_cmp", np.array((7, -0.25), dtype=[("n", "<i4"), ("x", "<f8")]))
    add("arr_scalar", shape=(), dtype=np.dtype(("<i2", (3,))))[()] = [1, -2, 3]
    add("i8", np.array([-(2**63), -1, 0, 1, 2**63 - 1], dtype="<i8"))
    add("u8", np.array([0, 2**64 - 1, 12345], dtype="<u8"))
    add("i1", np.arange(-128, 128, dtype="i1"))
    add("be_i4", np.arange(-500, 500, 7, dtype=">i4"))
    add("f2", np.array([0.5, -65504, np.nan, 6e-5], dtype="<f2"))
    special = [np.nan, np.inf, -np.inf, -0.0, 0.1, 1 / 3]
    add("f4_special", np.array(special + [1e-45, 3.4028235e38], dtype="<f4"))
    add("f8_special", np.array(special + [5e-324, 1.7976931348623157e308, 1e-300], dtype="<f8"))
    add("s8", np.array([b"plain", b"a,b", b'q"t', b"two\nline", b"", b"eight ch"], dtype="S8"))
    add("vlen_str", np.array(["alpha", "β,γ", 'q"uote', "", "multi\nline", "é" * 20], dtype=object),
        dtype=h5py.string_dtype())
    add("vlen_ascii", np.array([b"x", b"yy", b"z,z"], dtype=object), dtype=h5py.string_dtype("ascii"))
    color = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 7}, basetype="u1")
    add("enum", np.array([0, 7, 1, 0], dtype="u1"), dtype=color)
    add("bool", np.array([True, False, True]))
    rec = np.dtype([("id", "<i4"), ("x", "<f8"), ("tag", "S6"), ("name", h5py.string_dtype()),
                    ("ok", "?"), ("color", color)])
    r = np.zeros(5, dtype=rec)
    r["id"] = np.arange(5) * 10
    r["x"] = [0.5, np.nan, -np.inf, 1e100, -2]
    r["tag"] = [b"a", b"b,c", b"", b'd"e', b"fghijk"]
    r["name"] = ["one", "two words", "", "drei", "ünf"]
    r["ok"] = [True, False, False, True, True]
    r["color"] = [0, 1, 7, 7, 0]
    add("cmp1", r)
    add("m2_i4", np.arange(20, dtype="<i4").reshape(4, 5))
    add("m3_f8", np.arange(24, dtype="<f8").reshape(2, 3, 4) / 7)
    add("m2_cmp", np.array([[(1, 0.5), (2, -1.5), (3, np.inf)], [(4, 0), (5, 1e-7), (6, 2.5)]],
                           dtype=[("a", "<i2"), ("b", "<f4")]))
    a = add("arr_elem", shape=(4,), dtype=np.dtype(("<f4", (2, 3))))
    a[...] = np.arange(24, dtype="<f4").reshape(4, 2, 3) - 5
    add("chunk_gz", np.arange(140000, dtype="<i4") * 3 - 7, chunks=(1000,), compression="gzip", shuffle=True)
    i, j = np.indices((2500, 1000))
    add("wide_u1", ((i + j) % 7).astype("u1"), chunks=(100, 250), compression="gzip")
    add("m3_chunked", np.arange(6 * 5 * 4, dtype="<i2").reshape(6, 5, 4), chunks=(2, 5, 2))
    add("empty1", np.zeros(0, dtype="<f8"))
    add("empty2", np.zeros((0, 3), dtype="<i4"))
    add("nocols", np.zeros((3, 0), dtype="<i4"))
    add("null", h5py.Empty("<f8"))
    add("vlen_seq", np.array([np.arange(2), np.arange(3)], dtype=object), dtype=h5py.vlen_dtype("<i4"))
