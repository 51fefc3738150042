#!/usr/bin/python3
"""Recomputes every search index of HEP001 tables from scratch, from the
columns as h5py (libhdf5) reads them, and compares them with the stored
indexes: the independent check of table.Append, Truncate and Update.

    /usr/bin/python3 check_write.py FILE TABLE...

Prints one line per difference and exits 1 if there is any.
"""
import ctypes
import math
import sys

import h5py
import numpy as np

from gen import murmur3_x64_128


def nrows(g):
    return int(g.attrs["NROWS"])


def read(ds, a=0, b=None):
    """Rows [a, b) of a dataset. A type h5py has no conversion for (an
    opaque type with a tag, or a compound holding one) is read in the
    file's own type, byte for byte, into the dtype h5py derives from it."""
    b = ds.shape[0] if b is None else min(b, ds.shape[0])
    try:
        return ds[a:b]
    except OSError:
        shape = (max(b - a, 0),) + ds.shape[1:]
        arr = np.empty(shape, dtype=ds.dtype)
        if arr.size:
            fspace = ds.id.get_space()
            fspace.select_hyperslab((a,) + (0,) * (len(shape) - 1), shape)
            ds.id.read(h5py.h5s.create_simple(shape), fspace, arr, mtype=ds.id.get_type())
        return arr


def fill_value(ds):
    """The dataset's fill value as one element of its dtype (in the
    file's own type when h5py has no conversion for it)."""
    try:
        return ds.fillvalue
    except (OSError, RuntimeError, TypeError, ValueError):
        buf = ctypes.create_string_buffer(ds.dtype.itemsize)
        dcpl, tid = ds.id.get_create_plist(), ds.id.get_type()  # open while used
        if LIBHDF5.H5Pget_fill_value(ctypes.c_int64(dcpl.id), ctypes.c_int64(tid.id), buf) < 0:
            raise RuntimeError("H5Pget_fill_value failed")
        return np.frombuffer(buf.raw, dtype=ds.dtype)[0]


LIBHDF5 = ctypes.CDLL("libhdf5_serial.so.103")


class Model:
    """The rows [0, NROWS) of a table group's columns: keys (the §10.5
    order), missing and NaN flags and §10.7 canonical bytes."""

    def __init__(self, g):
        self.g = g
        self.n = nrows(g)

    def column(self, name):
        ds = self.g[name]
        arr = read(ds, 0, self.n)
        dt = ds.dtype
        fill = fill_value(ds)
        isf = dt.kind == "f"
        keys, missing, nan, canon = [], [], [], []
        vstr = h5py.check_string_dtype(dt) is not None and dt.kind == "O"  # vlen strings: bytes as stored
        for v in arr:
            if dt.kind in "SV" or vstr:  # strings (trailing NULs dropped), opaque bytes
                key = bytes(v).rstrip(b"\0") if dt.kind == "S" else bytes(v)
                keys.append(key)
                missing.append(key == (bytes(fill).rstrip(b"\0") if dt.kind == "S" else bytes(fill)))
                nan.append(False)
                canon.append(key)
                continue
            key = float(v) if isf else int(v)
            isnan = isf and math.isnan(key)
            keys.append(0.0 if isf and key == 0 else key)
            nan.append(isnan)
            missing.append(isnan if (isf and math.isnan(fill)) else key == fill)
            b = np.array([v], dtype=dt.newbyteorder("<")).tobytes()
            canon.append(bytes(len(b)) if isf and key == 0 else b)
        return {"arr": arr, "dtype": dt, "fill": fill, "keys": keys, "missing": missing, "nan": nan,
                "canon": canon, "chunk": ds.chunks[0] if ds.chunks else max(self.n, 1)}

    def expected(self, name, kind, k=0, m_bits=0, seed=0):
        c = self.column(name)
        n, length = self.n, c["chunk"]
        spans = [(s, min(s + length, n)) for s in range(0, n, length)]
        if kind == "CHUNK_MINMAX":
            dt = np.dtype([("min", c["dtype"]), ("max", c["dtype"]), ("nan_count", "<u8"),
                           ("fill_count", "<u8"), ("n", "<u8")])
            out = np.zeros(len(spans), dtype=dt)
            for i, (s, e) in enumerate(spans):
                ok = [j for j in range(s, e) if not c["missing"][j] and not c["nan"][j]]
                lo = min(ok, key=lambda j: c["keys"][j]) if ok else None
                hi = max(ok, key=lambda j: c["keys"][j]) if ok else None
                out[i] = (c["arr"][lo] if ok else c["fill"], c["arr"][hi] if ok else c["fill"],
                          sum(c["nan"][s:e]), sum(c["missing"][s:e]), e - s)
            return {"entries": out}
        if kind == "SORTED_ROWS":
            keys, miss, nan = c["keys"], c["missing"], c["nan"]
            body = sorted((j for j in range(n) if not miss[j] and not nan[j]), key=lambda j: (keys[j], j))
            fills = [j for j in range(n) if miss[j] and not nan[j]]
            nans = [j for j in range(n) if nan[j]]
            return {"perm": np.array(body + fills + nans, dtype="<u8"), "nan_tail": len(nans), "fill_tail": len(fills)}
        if kind == "BITMAP":
            vals = sorted({c["keys"][j] for j in range(n) if not c["missing"][j]})
            bits = np.zeros((len(vals), (n + 7) // 8), dtype="u1")
            for i, v in enumerate(vals):
                for j in range(n):
                    if not c["missing"][j] and c["keys"][j] == v:
                        bits[i, j >> 3] |= 1 << (j & 7)
            return {"values": np.array(vals, dtype=c["dtype"]), "bits": bits}
        if kind == "CHUNK_BLOOM":
            out = np.zeros((len(spans), m_bits // 8), dtype="u1")
            for i, (s, e) in enumerate(spans):
                for j in range(s, e):
                    if c["missing"][j] or c["nan"][j]:
                        continue
                    ha, hb = murmur3_x64_128(c["canon"][j], seed)
                    for q in range(k):
                        bit = (ha + q * hb) % m_bits
                        out[i, bit >> 3] |= 1 << (bit & 7)
            return {"filters": out}
        raise ValueError(kind)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" or (a.dtype.names and any(a.dtype[f].kind == "f" for f in a.dtype.names)):
        return a.tobytes() == b.astype(a.dtype).tobytes() or np.array_equal(a, b, equal_nan=True)
    return a.shape == b.shape and np.array_equal(a, b)


def check(f, path):
    g = f[path]
    model = Model(g)
    n = model.n
    bad = []
    for name in g:
        ds = g[name]
        if not isinstance(ds, h5py.Dataset) or "SEARCH_INDEX_LIST" not in ds.attrs:
            continue
        if ds.shape[0] < n:
            bad.append("%s: extent %d < NROWS %d" % (ds.name, ds.shape[0], n))
        for ref in ds.attrs["SEARCH_INDEX_LIST"]:
            si = f[ref]
            kind = si.attrs["KIND"].decode() if isinstance(si.attrs["KIND"], bytes) else si.attrs["KIND"]
            where = "%s (%s of %s)" % (si.name, kind, name)
            if kind == "CHUNK_MINMAX":
                want = model.expected(name, kind)["entries"]
                got = read(si, 0, len(want))
                for i in range(len(want)):
                    w, h = want[i], got[i]
                    if (w["nan_count"], w["fill_count"], w["n"]) != (h["nan_count"], h["fill_count"], h["n"]) or \
                            not same(w["min"], h["min"]) or not same(w["max"], h["max"]):
                        bad.append("%s: chunk %d is %s, recomputed %s" % (where, i, h, w))
            elif kind == "SORTED_ROWS":
                want = model.expected(name, kind)
                got = [int(r) for r in si[:] if r < n]
                if got != list(want["perm"]):
                    bad.append("%s: permutation %s, recomputed %s" % (where, got, list(want["perm"])))
                if (int(si.attrs["nan_tail_length"]), int(si.attrs["fill_tail_length"])) != (want["nan_tail"], want["fill_tail"]):
                    bad.append("%s: tails %d/%d, recomputed %d/%d" % (where, si.attrs["nan_tail_length"],
                               si.attrs["fill_tail_length"], want["nan_tail"], want["fill_tail"]))
            elif kind == "BITMAP":
                want = model.expected(name, kind)
                vals = read(f[si.attrs["VALUES"]])
                nb = (n + 7) // 8
                for i, v in enumerate(want["values"]):
                    hits = [j for j in range(len(vals)) if same(vals[j], v)]
                    if len(hits) != 1:
                        bad.append("%s: value %r listed %d times" % (where, v, len(hits)))
                        continue
                    row = si[hits[0], :nb].copy()
                    if n % 8:
                        row[-1] &= (1 << (n % 8)) - 1
                    if not np.array_equal(row, want["bits"][i]):
                        bad.append("%s: bits of value %r differ" % (where, v))
            elif kind == "CHUNK_BLOOM":
                k, m_bits, seed = int(si.attrs["k"]), int(si.attrs["m_bits"]), int(si.attrs["seed"])
                want = model.expected(name, kind, k, m_bits, seed)["filters"]
                got = read(si, 0, len(want))
                for i in range(len(want)):
                    if not np.array_equal(got[i], want[i]):
                        bad.append("%s: filter %d differs" % (where, i))
    # §12: SEARCH_INDEXES holds the referenced indexes and their values
    # datasets only (a deleted index leaves neither behind)
    if "SEARCH_INDEXES" in g:
        used = set()
        for name in g:
            ds = g[name]
            if isinstance(ds, h5py.Dataset) and "SEARCH_INDEX_LIST" in ds.attrs:
                for ref in ds.attrs["SEARCH_INDEX_LIST"]:
                    used.add(f[ref].name)
                    if "VALUES" in f[ref].attrs:
                        used.add(f[f[ref].attrs["VALUES"]].name)
        for name in g["SEARCH_INDEXES"]:
            if g["SEARCH_INDEXES"][name].name not in used:
                bad.append("%s: in SEARCH_INDEXES, referenced by no column" % g["SEARCH_INDEXES"][name].name)
    return bad


def main():
    bad = []
    with h5py.File(sys.argv[1], "r") as f:
        for path in sys.argv[2:]:
            bad += check(f, path)
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
