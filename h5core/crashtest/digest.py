#!/usr/bin/python3
"""Prints, as one JSON object per file named on the command line, what
libhdf5 (through h5py) sees in it: for every dataset its shape and values
(flattened, row-major), for every object its numeric and string
attributes. A file libhdf5 cannot open or read prints {"error": "..."}.
Embedded by h5core/crashtest (Digest)."""
import json
import sys

import h5py
import numpy as np


def value(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray):
        return [value(x) for x in v.reshape(-1).tolist()]
    if isinstance(v, (tuple, list)):  # compound elements
        return [value(x) for x in v]
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        v = float(v)
        return v if np.isfinite(v) else repr(v)  # JSON has no NaN
    if isinstance(v, (int, str, bool)) or v is None:
        return v
    return str(v)  # references and the like


def digest(path):
    out = {"datasets": {}, "attrs": {}}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            p = "/" + name
            if isinstance(obj, h5py.Dataset):
                a = obj[()]
                out["datasets"][p] = {"shape": list(obj.shape), "values": value(np.asarray(a))}
            attrs = {k: value(obj.attrs[k]) for k in obj.attrs}
            if attrs:
                out["attrs"][p] = attrs
        f.visititems(visit)
    return out


res = {}
for p in sys.argv[1:]:
    try:
        res[p] = digest(p)
    except Exception as e:  # noqa: BLE001 - reported to the test
        res[p] = {"error": "%s: %s" % (type(e).__name__, e)}
print(json.dumps(res))
