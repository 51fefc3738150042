#!/usr/bin/python3
"""Checks, with libhdf5 (h5py), a table of a random HEP001 file that
test/fuse's TestRandomHEP001Mutate changed through a read-write mount:
rows [0, k) appended back through the table's CSV view, then the table
truncated by j rows, then single cells updated (row U of a column set to
the element of its row SRC, both below N and N + K - J).

    /usr/bin/python3 check_mutated.py OLD NEW TABLE K J [UPDATES]

UPDATES is JSON: [{"column": NAME, "Row": U, "Src": SRC}, ...]. NROWS
must be N + K - J (N: NROWS in OLD); every column's rows below both N and
NROWS unchanged but for the updated cells, each of those the same bytes
as row SRC in OLD; its rows [N, N + K - J) equal to rows [0, K - J), each
row either the same bytes or, where the CSV view showed the cell as
missing, the column's fill value. Prints the differences and exits 1 if
any.
"""
import json
import sys

import h5py
import numpy as np

old_name, new_name, path, k, j = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
updates = {}
for u in json.loads(sys.argv[6]) if len(sys.argv) > 6 else []:
    updates.setdefault(u["column"], {})[u["Row"]] = u["Src"]
go, gn = h5py.File(old_name, "r")[path], h5py.File(new_name, "r")[path]
n0, n1 = int(go.attrs["NROWS"]), int(gn.attrs["NROWS"])
bad = []
if n1 != n0 + k - j:
    bad.append(f"NROWS {n1}, want {n0} + {k} - {j}")


def rows(ds, a, b):
    """Rows [a, b) as one comparable value per row: the stored bytes, read
    in the file's own type (no conversion), or for variable-length types
    what h5py converts them to."""
    n = b - a
    if n <= 0:
        return []
    tid = ds.id.get_type()
    if tid.get_class() == h5py.h5t.VLEN or (tid.get_class() == h5py.h5t.STRING and tid.is_variable_str()):
        return [repr(x) for x in ds[a:b].tolist()]
    shape = (n,) + ds.shape[1:]
    arr = np.empty(shape, dtype="V%d" % tid.get_size())
    fspace = ds.id.get_space()
    fspace.select_hyperslab((a,) + (0,) * (len(shape) - 1), shape)
    ds.id.read(h5py.h5s.create_simple(shape), fspace, arr, mtype=tid)
    return [r.tobytes() for r in arr]


def fill_row(ds):
    """The fill value as one row (None where h5py cannot convert it)."""
    if ds.dtype.hasobject:
        return None
    try:
        return np.full(ds.shape[1:], ds.fillvalue, dtype=ds.dtype).tobytes()
    except (RuntimeError, TypeError, ValueError):
        return None


for name, ds in go.items():
    if not isinstance(ds, h5py.Dataset):
        continue
    dn = gn[name]
    keep = min(n0, n1)
    old, new = rows(ds, 0, n0), rows(dn, 0, keep)
    want = old[:keep]
    for u, src in updates.get(name, {}).items():
        want[u] = old[src]
    for i, (w, g) in enumerate(zip(want, new)):
        if w != g:
            what = f"updated from row {updates[name][i]}" if i in updates.get(name, {}) else "unchanged"
            bad.append(f"{name}: row {i} is {g!r:.80}, want {w!r:.80} ({what})")
            break
    m = max(min(k - j, n1 - n0), 0)
    want, got = rows(ds, 0, m), rows(dn, n0, n0 + m)
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g and g != fill_row(ds):
            bad.append(f"{name}: row {n0 + i} is {g!r:.80}, want row {i} {w!r:.80} or the fill value")
            break
for b in bad:
    print(f"{path}: {b}")
sys.exit(1 if bad else 0)
