"""Checks the values `h5fs ls --json` gives against what h5py reads.

usage: check_describe.py FILE.h5 LS.json

For every object of LS.json (the output of `h5fs ls -r --json FILE.h5`),
each attribute's value and shape, and each dataset's fill value, must be
what h5py reads, in the encoding README's "JSON descriptions" gives
(written again here, from h5py's side, not taken from h5fs): integers
exactly, floats equal at their width ("NaN", "Infinity", "-Infinity"),
strings, opaque bytes as base64, enums by member name, compounds as
objects in field order, array-typed elements flat, references as the
address h5py gives the object they lead to. Prints a JSON object:
"checked" (values compared), "kinds" (the kinds met) and "errors".
"""
import base64
import json
import math
import sys

import h5py
import numpy as np

f = h5py.File(sys.argv[1], "r")
objects = json.load(open(sys.argv[2]))["objects"]
out = {"checked": 0, "kinds": set(), "errors": []}


def addr(ref):
    return h5py.h5o.get_info(f[ref].id).addr


def same_float(got, want, dt):
    out["kinds"].add("float")
    if math.isnan(want):
        return got == "NaN"
    if math.isinf(want):
        return got == ("Infinity" if want > 0 else "-Infinity")
    if isinstance(got, str) or isinstance(got, bool):
        return False
    return dt.type(got) == want  # read back at the float's own width


def same(got, v, dt):
    """Whether JSON value got encodes element v of numpy type dt."""
    if dt.subdtype is not None:
        out["kinds"].add("array")
        base, _ = dt.subdtype
        flat = np.asarray(v).reshape(-1)
        return isinstance(got, list) and len(got) == len(flat) and all(same(g, e, base) for g, e in zip(got, flat))
    if dt.kind == "c":  # HDF5 1.x stores h5py's complex numbers as a compound {r, i}
        out["kinds"].add("complex")
        base = np.dtype("<f%d" % (dt.itemsize // 2))
        return isinstance(got, dict) and list(got) == ["r", "i"] and same_float(got["r"], v.real, base) and same_float(
            got["i"], v.imag, base)
    if dt.names:
        out["kinds"].add("compound")
        return isinstance(got, dict) and list(got) == list(dt.names) and all(
            same(got[n], v[n], dt.fields[n][0]) for n in dt.names)
    enum = h5py.check_enum_dtype(dt)
    if enum is not None:
        out["kinds"].add("enum")
        names = {int(val): name for name, val in enum.items()}
        want = names.get(int(v), int(v))
        return got == want and type(got) == type(want)
    if dt == np.bool_:  # h5py's bool: an enum FALSE/TRUE
        out["kinds"].add("enum")
        return got == ("TRUE" if v else "FALSE")
    if h5py.check_string_dtype(dt) is not None or dt.kind == "S":
        out["kinds"].add("string")
        want = v.decode("utf-8") if isinstance(v, bytes) else str(v)
        return got == want
    vlen = h5py.check_vlen_dtype(dt)
    if vlen is not None:
        out["kinds"].add("vlen")
        return isinstance(got, list) and len(got) == len(v) and all(same(g, e, np.dtype(vlen)) for g, e in zip(got, v))
    ref = h5py.check_ref_dtype(dt)
    if ref is not None:
        out["kinds"].add("region reference" if ref is h5py.RegionReference else "reference")
        if not v:
            return got is None
        if not isinstance(got, dict) or got.get("object") != addr(v):
            return False
        if ref is h5py.RegionReference:
            return isinstance(got.get("region"), str) and len(base64.b64decode(got["region"])) > 0
        return set(got) == {"object"}
    if dt.kind == "V":
        out["kinds"].add("opaque")
        return isinstance(got, str) and base64.b64decode(got) == bytes(v)
    if dt.kind in "iu":
        out["kinds"].add("integer")
        return type(got) == int and got == int(v)
    if dt.kind == "f":
        return same_float(got, v, dt)
    return False


def same_nested(got, v, shape, dt):
    """Whether got holds the elements of array v (shape) nested by shape."""
    if not shape:
        return same(got, v, dt)
    return isinstance(got, list) and len(got) == shape[0] and all(
        same_nested(g, e, shape[1:], dt) for g, e in zip(got, v))


def check(what, ok):
    out["checked"] += 1
    if not ok:
        out["errors"].append(what)


for o in objects:
    if o["kind"] not in ("group", "dataset", "datatype") or o.get("sparse"):
        continue  # (libhdf5 cannot open sparse datasets)
    obj = f[o["path"]]
    attrs = {a["name"]: a for a in o.get("attributes", [])}
    check("%s: attributes %s, h5py lists %s" % (o["path"], sorted(attrs), sorted(obj.attrs)), sorted(attrs) == sorted(obj.attrs))
    for name, a in attrs.items():
        aid = obj.attrs.get_id(name)
        dt, space = aid.dtype, aid.get_space()
        if space.get_simple_extent_type() == h5py.h5s.NULL:
            out["kinds"].add("null dataspace")
            check("%s@%s: %s, want shape null, value null" % (o["path"], name, a), a["shape"] is None and a["value"] is None)
            continue
        shape = tuple(space.shape)
        v = obj.attrs[name]
        if dt.subdtype is not None:  # h5py adds the array type's dimensions
            v = np.asarray(v).reshape(shape + dt.subdtype[1])
        elif shape:
            v = np.asarray(v, dtype=dt).reshape(shape)  # (h5py reads (0, 3) as an empty 1-D array)
        out["kinds"].add("scalar" if not shape else "%d-D" % len(shape))
        check("%s@%s: shape %s, h5py's %s" % (o["path"], name, a["shape"], list(shape)), a["shape"] == list(shape))
        check("%s@%s: %s, h5py reads %r" % (o["path"], name, json.dumps(a["value"]), v), same_nested(a["value"], v, shape, dt))
    # (h5py's fillvalue crashes on variable-length and reference types)
    if o["kind"] == "dataset" and "fill_value" in o and not obj.dtype.hasobject:
        out["kinds"].add("fill value")
        check("%s: fill_value %s, h5py's %r" % (o["path"], json.dumps(o["fill_value"]), obj.fillvalue),
              same(o["fill_value"], obj.fillvalue, obj.dtype))

out["kinds"] = sorted(out["kinds"])
print(json.dumps(out))
