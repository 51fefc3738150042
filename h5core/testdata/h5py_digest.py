#!/usr/bin/python3
"""Print what h5py (the real HDF5 library) reads from every dataset of
HDF5 files, as JSON on stdout: {file: {path: {shape, dtype, sha256_le}}}.

sha256_le is the digest of the dataset's full extent as packed
little-endian elements in row-major order (compound: fields packed in
declaration order, each little-endian; fixed strings and opaque: stored
bytes; arrays elementwise) -- the form `h5fs dump --raw` writes. Datasets
h5py cannot read, or whose type is not fixed-size, get an "error" or
"skip" entry instead. Run with Debian's /usr/bin/python3.
"""
import hashlib
import json
import sys

import h5py
import numpy as np


def le_dtype(dt):
    """The packed little-endian form of a numpy dtype, or None when it has
    no fixed-size raw form (object/vlen fields)."""
    if dt.subdtype is not None:
        base, shape = dt.subdtype
        b = le_dtype(base)
        return None if b is None else np.dtype((b, shape))
    if dt.names is not None:
        fields = []
        for name in dt.names:
            sub = le_dtype(dt.fields[name][0])
            if sub is None:
                return None
            fields.append((name, sub))
        return np.dtype(fields)  # packed: no offsets/padding
    if dt.kind == "O":
        return None
    if dt.kind in "iufcmM" or (dt.kind == "b"):
        return dt.newbyteorder("<")
    return dt  # S, V, a: bytes as stored


def packed_le(arr):
    """Bytes of arr as packed little-endian elements, row-major."""
    target = le_dtype(arr.dtype)
    if target is None:
        raise TypeError("not fixed-size")
    out = np.empty(arr.shape, dtype=target)
    if arr.dtype.names is not None:
        for name in arr.dtype.names:
            out[name] = arr[name]
    else:
        out[...] = arr
    return np.ascontiguousarray(out).tobytes()


def has_bytes(dt):
    """Whether dt holds fixed strings or opaque data anywhere."""
    if dt.subdtype is not None:
        return has_bytes(dt.subdtype[0])
    if dt.names is not None:
        return any(has_bytes(dt.fields[n][0]) for n in dt.names)
    return dt.kind in "SV"


def read_all(ds):
    """The whole dataset. Types holding fixed strings or opaque data are
    read in the file's own type, without conversion, so the stored bytes
    come back (libhdf5 would turn SPACEPAD padding into NULs, and has no
    conversion path for opaque data)."""
    if has_bytes(ds.dtype):
        ftype = ds.id.get_type()
        arr = np.empty(ds.shape, dtype=ftype.dtype)
        ds.id.read(h5py.h5s.ALL, h5py.h5s.ALL, arr, ftype)
        return arr
    return ds[()]


def digest(path):
    res = {}

    def visit(name, obj):
        if not isinstance(obj, h5py.Dataset):
            return
        key = "/" + name
        ent = {"shape": list(obj.shape) if obj.shape is not None else None, "dtype": str(obj.dtype)}
        try:
            if obj.shape is None:
                ent["skip"] = "null dataspace"
            elif h5py.check_dtype(ref=obj.dtype) is not None:
                ent["skip"] = "reference"
            else:
                ent["sha256_le"] = hashlib.sha256(packed_le(read_all(obj))).hexdigest()
        except TypeError as e:
            ent["skip"] = str(e)
        except Exception as e:  # libhdf5 cannot read it (e.g. missing filter)
            ent["error"] = "%s: %s" % (type(e).__name__, e)
        res[key] = ent

    def walk(group, prefix):
        for name in group:
            key = prefix + name
            try:
                obj = group[name]
            except Exception as e:  # e.g. a layout libhdf5 does not know
                res["/" + key] = {"error": "%s: %s" % (type(e).__name__, e)}
                continue
            if isinstance(obj, h5py.Group):
                walk(obj, key + "/")
            else:
                visit(key, obj)

    with h5py.File(path, "r") as f:
        walk(f, "")
    return res


if __name__ == "__main__":
    out = {}
    for p in sys.argv[1:]:
        try:
            out[p] = digest(p)
        except Exception as e:
            out[p] = {"error": "%s: %s" % (type(e).__name__, e)}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
