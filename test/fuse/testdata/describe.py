"""Writes describe.h5 (argv[1]): attributes of every kind h5py writes, on
objects of every kind, for TestDescriptions (describe_test.go).

Kinds: signed and unsigned integers of 8 to 64 bits (their extremes),
big-endian ones, float16/32/64 and long double with NaN and infinities,
fixed and variable-length strings (ASCII, UTF-8, empty), booleans, enums
(a value no member has too), compounds (nested, with an array field),
complex numbers, array types of two dimensions, variable-length
sequences, opaque bytes, object and region references (a null one too),
null dataspaces, scalars and arrays of one to three dimensions. Objects:
groups (one with dense attribute storage), datasets (scalar, null,
chunked big-endian with a fill value, compound, strings), a named
datatype, a second hard link to a group, soft and external links.
"""
import sys

import h5py
import numpy as np

f = h5py.File(sys.argv[1], "w")
g = f.create_group("g")
d = f.create_dataset("d", data=np.arange(10, dtype="<i4"))
a = f.attrs

# integers
for t in ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]:
    info = np.iinfo(t)
    a.create("int_" + t, data=np.array([info.min, info.max, 0], dtype="<" + t))
a["uint64_max"] = np.uint64(2**64 - 1)
a["int64_min"] = np.int64(-(2**63))
a["be_int32"] = np.array([1, -2, 300000], dtype=">i4")
a["be_float64"] = np.array([1.5, -0.25], dtype=">f8")
# floats
a["f16"] = np.array([0.1, 65504, -np.inf, np.nan, 6e-8], dtype="<f2")
a["f32"] = np.array([0.1, 1e-45, 3.4028235e38, np.inf], dtype="<f4")
a["f64"] = np.array([0.1, 5e-324, -np.inf, np.nan, 1e300], dtype="<f8")
a["f64_scalar_nan"] = np.float64(np.nan)
a["longdouble"] = np.array([1.5, -2.25], dtype=np.longdouble)
a["matrix"] = np.arange(6, dtype="<f8").reshape(2, 3) / 4
a["cube"] = np.arange(24, dtype="<i2").reshape(2, 3, 4)
a["empty_dim"] = np.zeros((0, 3), dtype="<i4")
# strings
a["fixed_ascii"] = np.bytes_(b"fixed")
a["fixed_array"] = np.array([b"a", b"bb", b""], dtype="S3")
a["vlen_utf8"] = "ωμέγα, \"quoted\"\nnew line"
a["vlen_empty"] = ""
a.create("vlen_array", data=["one", "", "τρία"], dtype=h5py.string_dtype("utf-8"))
a.create("vlen_ascii", data=b"ascii bytes", dtype=h5py.string_dtype("ascii"))
# booleans and enums
a["bool"] = np.bool_(True)
a["bools"] = np.array([True, False])
colors = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 42}, basetype="i1")
a.create("enum", data=np.array([0, 42, 1, 7], dtype="i1"), dtype=colors)
a.create("enum_scalar", data=np.int8(42), dtype=colors)
# compounds, complex, arrays
point = np.dtype([("x", "<f4"), ("y", "<f8"), ("id", "<i4"), ("tag", "S4"), ("v", "<i2", (2, 2))])
a["compound"] = np.array([(0.1, np.nan, 7, b"ab", [[1, 2], [3, 4]]), (1.5, -np.inf, -1, b"", [[5, 6], [7, 8]])], dtype=point)
nested = np.dtype([("p", point), ("flag", np.bool_), ("c", colors)])
a["nested"] = np.array(((2.5, 1.0, 3, b"xy", [[0, 1], [2, 3]]), False, 42), dtype=nested)
a["complex64"] = np.complex64(1 - 2j)
a["complex128"] = np.array([1e-300 + 0.5j, complex(np.inf, np.nan)], dtype="<c16")
arr = h5py.h5t.array_create(h5py.h5t.STD_I32LE, (2, 3))
aid = h5py.h5a.create(f.id, b"array_type", arr, h5py.h5s.create_simple((2,)))
aid.write(np.arange(12, dtype="<i4").reshape(2, 2, 3), mtype=arr)
aid = h5py.h5a.create(f.id, b"array_type_scalar", arr, h5py.h5s.create(h5py.h5s.SCALAR))
aid.write(np.arange(6, dtype="<i4").reshape(2, 3) - 3, mtype=arr)
a.create("vlen_ints", data=np.array([np.arange(3), np.arange(0), np.arange(5) - 2], dtype=object),
         dtype=h5py.vlen_dtype("<i4"))
a["opaque"] = np.void(b"\xde\xad\xbe\xef\x00")
a["opaques"] = np.array([np.void(b"\x01\x02"), np.void(b"\xff\x00")])
# references and null dataspaces
a["ref"] = g.ref
a.create("refs", data=np.array([g.ref, d.ref, f.ref], dtype=h5py.ref_dtype))
a.create("ref_null", data=h5py.h5r.Reference(), dtype=h5py.ref_dtype)
a["regionref"] = d.regionref[2:5]
a["empty_f8"] = h5py.Empty("<f8")
a["empty_str"] = h5py.Empty(h5py.string_dtype())

# objects of every kind, with attributes
g.attrs["title"] = "a group"
g.attrs["ref_back"] = f.ref
d.attrs["units"] = "m"
d.attrs["valid_range"] = np.array([0, 9], dtype="<i4")
dense = f.create_group("dense", track_order=True)
for i in range(20):
    dense.attrs["a%02d" % i] = np.float32(i) / 3
f.create_dataset("scalar", data=np.float64(2.5)).attrs["kind"] = "scalar"
f.create_dataset("null", data=h5py.Empty("<i4")).attrs["kind"] = "null"
be = f.create_dataset("be", data=np.arange(12, dtype=">i4").reshape(3, 4), chunks=(2, 2), maxshape=(None, 4),
                      fillvalue=-7, compression="gzip")
be.attrs["order"] = "big-endian"
f.create_dataset("fill_nan", shape=(4,), dtype="<f4", fillvalue=np.nan)
f.create_dataset("fill_compound", shape=(2,), dtype=point, fillvalue=np.array((1.5, 2.5, 3, b"f", [[9, 9], [9, 9]]), dtype=point))
f.create_dataset("points", data=a["compound"])
f.create_dataset("words", data=["x", "", "ζ"], dtype=h5py.string_dtype())
f.create_dataset("refs_ds", data=np.array([g.ref, d.ref], dtype=h5py.ref_dtype))
f["named_type"] = np.dtype("<f4")
f["named_type"].attrs["about"] = "a committed datatype"
g["again"] = dense  # a second hard link to /dense
g["soft"] = h5py.SoftLink("/d")
g["dangling"] = h5py.SoftLink("/nowhere")
g["external"] = h5py.ExternalLink("other.h5", "/x")
f.close()
