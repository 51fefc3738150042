#!/usr/bin/python3
"""Writes the table package's own test files and their expected JSON, and
the h5fs built-in sample (cmd/h5fs/sample/sample.h5).

Run with Debian's Python (h5py 3.7 / libhdf5 1.10, numpy, pandas, PyTables):

    /usr/bin/python3 table/testdata/gen.py

Expected JSON uses the layout of shared/fixtures (see its README) and is
computed from the generator's model of the data, never read back. h5py
1.10 writes object references as H5T_STD_REF_OBJ, so every HEP001 table
here carries that (leniently accepted) non-conformance. Deterministic:
the same script gives the same JSON.
"""
import ctypes
import json
import math
import os
import struct
import hashlib

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "..", "cmd", "h5fs", "sample", "sample.h5")
M64 = (1 << 64) - 1

# ---------------------------------------------------------------- murmur3


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def _fmix(k):
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M64
    return k ^ (k >> 33)


def murmur3_x64_128(data, seed):
    """MurmurHash3_x64_128: returns (h1, h2) = (low, high) 64 bits."""
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F
    h1 = h2 = seed
    n = len(data)
    nb = n // 16
    for i in range(nb):
        k1 = int.from_bytes(data[16 * i:16 * i + 8], "little")
        k2 = int.from_bytes(data[16 * i + 8:16 * i + 16], "little")
        k1 = (_rotl((k1 * c1) & M64, 31) * c2) & M64
        h1 ^= k1
        h1 = (((_rotl(h1, 27) + h2) & M64) * 5 + 0x52DCE729) & M64
        k2 = (_rotl((k2 * c2) & M64, 33) * c1) & M64
        h2 ^= k2
        h2 = (((_rotl(h2, 31) + h1) & M64) * 5 + 0x38495AB5) & M64
    tail = data[16 * nb:]
    if len(tail) > 8:
        k2 = int.from_bytes(tail[8:], "little")
        h2 ^= (_rotl((k2 * c2) & M64, 33) * c1) & M64
    if len(tail) > 0:
        k1 = int.from_bytes(tail[:8], "little")
        h1 ^= (_rotl((k1 * c1) & M64, 31) * c2) & M64
    h1 ^= n
    h2 ^= n
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    h1, h2 = _fmix(h1), _fmix(h2)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    return h1, h2


# ---------------------------------------------------------------- HDF5 helpers


def str_type(size, cset="utf-8", pad="nullterm"):
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(size)
    tid.set_cset(h5py.h5t.CSET_UTF8 if cset == "utf-8" else h5py.h5t.CSET_ASCII)
    tid.set_strpad({"nullterm": h5py.h5t.STR_NULLTERM, "nullpad": h5py.h5t.STR_NULLPAD,
                    "spacepad": h5py.h5t.STR_SPACEPAD}[pad])
    return tid


def str_attr(obj, name, value, cset="utf-8", size=None):
    """A scalar fixed-length string attribute (NULLTERM)."""
    b = value.encode()
    size = size or len(b) + 1
    tid = str_type(size, cset)
    if name in obj.attrs:
        del obj.attrs[name]
    a = h5py.h5a.create(obj.id, name.encode(), tid, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(b, dtype="S%d" % size), mtype=tid)


def str_array_attr(obj, name, values):
    enc = [v.encode() for v in values]
    size = max(len(b) for b in enc) + 1
    tid = str_type(size)
    a = h5py.h5a.create(obj.id, name.encode(), tid, h5py.h5s.create_simple((len(enc),)))
    a.write(np.array(enc, dtype="S%d" % size), mtype=tid)


# Datasets carry no modification times, so the files are reproducible.
_create_dataset = h5py.Group.create_dataset


def _create_dataset_untimed(self, name, *args, **kw):
    kw.setdefault("track_times", False)
    return _create_dataset(self, name, *args, **kw)


h5py.Group.create_dataset = _create_dataset_untimed
LIBHDF5 = ctypes.CDLL("libhdf5_serial.so.103")
BOOL_ENUM = h5py.enum_dtype({"FALSE": 0, "TRUE": 1}, basetype="i1")


def table_group(parent, name, nrows, order, index=(), title=None, version="1.0", **attrs):
    g = parent.create_group(name) if name != "/" else parent
    str_attr(g, "CLASS", "COLUMN_TABLE", cset="ascii", size=13)
    str_attr(g, "VERSION", version, cset="ascii")
    g.attrs.create("NROWS", np.uint64(nrows))
    if title:
        str_attr(g, "TITLE", title)
    for k, v in attrs.items():
        str_attr(g, k.replace("_", "-") if k.startswith("encoding") else k, v)
    return g


def finish_table(g, order, index=()):
    if order:
        str_array_attr(g, "column-order", order)
    if index:
        g.attrs.create("INDEX_COLUMNS", [g[n].ref for n in index], dtype=h5py.ref_dtype)
        str_attr(g, "_index", index[0])


def make_ds(g, name, dtype, values, extent=None, layout="chunked", chunk=64, fill=None,
            filters=(), tid=None, maxshape=-1):
    n = len(values)
    extent = n if extent is None else extent
    if tid is None:
        tid = h5py.h5t.py_create(np.dtype(dtype), logical=True)
    maxdim = h5py.h5s.UNLIMITED if (layout == "chunked" and maxshape == -1) else extent
    space = h5py.h5s.create_simple((extent,), (maxdim,))
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_obj_track_times(False)
    if layout == "compact":
        dcpl.set_layout(h5py.h5d.COMPACT)
    elif layout == "contiguous":
        dcpl.set_layout(h5py.h5d.CONTIGUOUS)
    else:
        dcpl.set_chunk((chunk,))
        for f in filters:
            if f == "shuffle":
                dcpl.set_shuffle()
            elif f == "deflate":
                dcpl.set_deflate(4)
    raw = tid.get_class() == h5py.h5t.STRING and not tid.is_variable_str()
    if fill is not None and raw:
        # h5py 3.7 stores garbage for fixed-string fills: call libhdf5
        # directly with the fill in the file's own type
        buf = ctypes.create_string_buffer(fill.ljust(tid.get_size(), b"\0"), tid.get_size())
        if LIBHDF5.H5Pset_fill_value(ctypes.c_int64(dcpl.id), ctypes.c_int64(tid.id), buf) < 0:
            raise RuntimeError("H5Pset_fill_value failed")
    elif fill is not None:
        dcpl.set_fill_value(np.array(fill, dtype=dtype))
    dsid = h5py.h5d.create(g.id, name.encode(), tid, space, dcpl=dcpl)
    ds = h5py.Dataset(dsid)
    if n and raw:
        fspace = dsid.get_space()
        fspace.select_hyperslab((0,), (n,))
        dsid.write(h5py.h5s.create_simple((n,)), fspace, np.ascontiguousarray(values), mtype=tid)
    elif n:
        arr = np.array(values, dtype=dtype) if not isinstance(values, np.ndarray) else values
        ds[0:n] = arr
    return ds


def sha_le(arr):
    a = np.ascontiguousarray(arr)
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("<"))
    return hashlib.sha256(a.tobytes()).hexdigest()


def jfloat(x):
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


# ---------------------------------------------------------------- search indexes


def chunks_of(n, length):
    return [(s, min(s + length, n)) for s in range(0, n, length)] if n else []


def minmax_entries(keys, missing, nan, length, fill_key):
    out = []
    for s, e in chunks_of(len(keys), length):
        ok = [keys[i] for i in range(s, e) if not missing[i] and not nan[i]]
        out.append({"min": min(ok) if ok else fill_key, "max": max(ok) if ok else fill_key,
                    "nan_count": sum(nan[s:e]), "fill_count": sum(missing[s:e]), "n": e - s})
    return out


def sorted_perm(keys, missing, nan):
    body = [i for i in range(len(keys)) if not missing[i] and not nan[i]]
    body.sort(key=lambda i: (keys[i], i))
    fills = [i for i in range(len(keys)) if missing[i] and not nan[i]]
    nans = [i for i in range(len(keys)) if nan[i]]
    return body + fills + nans, len(nans), len(fills)


def bloom_filters(canon, missing, nan, length, k, m_bits, seed):
    out = []
    for s, e in chunks_of(len(canon), length):
        f = bytearray(m_bits // 8)
        for i in range(s, e):
            if missing[i] or nan[i]:
                continue
            ha, hb = murmur3_x64_128(canon[i], seed)
            for j in range(k):
                g = (ha + j * hb) % m_bits
                f[g >> 3] |= 1 << (g & 7)
        out.append(bytes(f))
    return out


def bitmap_rows(keys, missing, values, nrows):
    rows = []
    for v in values:
        rows.append([i for i in range(nrows) if not missing[i] and keys[i] == v])
    return rows


def write_indexes(g, col, spec, model, expect):
    """Writes the search indexes spec asks for on column col of table
    group g; model has keys/missing/nan/canon/np dtype/fill/chunk."""
    si = g.require_group("SEARCH_INDEXES")
    refs = []
    n = len(model["keys"])
    for kind in spec:
        name = "%s__%s" % (col, kind.lower())
        e = {"name": name, "path": si.name + "/" + name, "kind": kind, "column": col}
        if kind == "CHUNK_MINMAX":
            ents = minmax_entries(model["keys"], model["missing"], model["nan"], model["chunk"], model["fill_key"])
            dt = np.dtype([("min", model["dtype"]), ("max", model["dtype"]), ("nan_count", "<u8"),
                           ("fill_count", "<u8"), ("n", "<u8")])
            arr = np.zeros(len(ents), dtype=dt)
            for i, x in enumerate(ents):
                arr[i] = (model["from_key"](x["min"]), model["from_key"](x["max"]), x["nan_count"],
                          x["fill_count"], x["n"])
            ds = si.create_dataset(name, data=arr)
            e.update(entries=[dict(x, min=model["json_key"](x["min"]), max=model["json_key"](x["max"])) for x in ents])
        elif kind == "SORTED_ROWS":
            perm, nt, ft = sorted_perm(model["keys"], model["missing"], model["nan"])
            ds = si.create_dataset(name, data=np.array(perm, dtype="<u8"))
            ds.attrs.create("nan_tail_length", np.uint64(nt))
            ds.attrs.create("fill_tail_length", np.uint64(ft))
            ds.attrs.create("ordered", np.int8(1), dtype=BOOL_ENUM)
            e.update(permutation=perm, nan_tail_length=nt, fill_tail_length=ft)
        elif kind == "BITMAP":
            vals = sorted({model["keys"][i] for i in range(n) if not model["missing"][i]})
            rows = bitmap_rows(model["keys"], model["missing"], vals, n)
            bits = np.zeros((len(vals), (n + 7) // 8), dtype="u1")
            for k, rs in enumerate(rows):
                for r in rs:
                    bits[k, r >> 3] |= 1 << (r & 7)
            ds = si.create_dataset(name, data=bits)
            vds = si.create_dataset(name + "__values", data=np.array([model["from_key"](v) for v in vals], dtype=model["dtype"]))
            ds.attrs.create("VALUES", vds.ref, dtype=h5py.ref_dtype)
            ds.attrs.create("ordered", np.int8(1), dtype=BOOL_ENUM)
            e.update(values_path=vds.name, values=[model["json_key"](v) for v in vals], ordered=True, rows_by_value=rows)
        elif kind == "CHUNK_BLOOM":
            k, m_bits, seed = 3, 256, 11
            filters = bloom_filters(model["canon"], model["missing"], model["nan"], model["chunk"], k, m_bits, seed)
            ds = si.create_dataset(name, data=np.frombuffer(b"".join(filters), dtype="u1").reshape(len(filters), m_bits // 8)
                                   if filters else np.zeros((0, m_bits // 8), dtype="u1"))
            ds.attrs.create("k", np.uint16(k))
            ds.attrs.create("m_bits", np.uint64(m_bits))
            ds.attrs.create("seed", np.uint32(seed))
            str_attr(ds, "hash_family", "murmur3_x64_128_double", cset="ascii")
            e.update(k=k, m_bits=m_bits, seed=seed, filters_hex=[f.hex() for f in filters], probes=[])
        str_attr(ds, "KIND", kind, cset="ascii")
        refs.append(ds.ref)
        expect.append(e)
    g[col].attrs.create("SEARCH_INDEX_LIST", refs, dtype=h5py.ref_dtype)
    return [x["path"] for x in expect[-len(spec):]]


def num_model(arr, missing, dtype, chunk, fill):
    dt = np.dtype(dtype)
    isf = dt.kind == "f"
    keys = [float(x) if isf else int(x) for x in arr]
    nan = [isf and math.isnan(x) for x in keys]
    le = np.ascontiguousarray(arr.astype(dt.newbyteorder("<")))
    canon = []
    for i in range(len(arr)):
        b = le[i:i + 1].tobytes()
        if isf and keys[i] == 0:
            b = bytes(len(b))
        canon.append(b)
    fill_key = float(fill) if isf else int(fill)
    return {"keys": [0.0 if (isf and k == 0) else k for k in keys], "missing": list(missing), "nan": nan,
            "canon": canon, "dtype": dtype, "chunk": chunk, "fill_key": fill_key,
            "from_key": lambda k: k, "json_key": jfloat if isf else (lambda k: k)}


# ---------------------------------------------------------------- files


def col_expect(name, kind, values, ds=None, fill_hex=None, raw=None, **extra):
    e = {"name": name, "kind": kind, "values": values, "missing_count": sum(v is None for v in values),
         "search_indexes": []}
    if fill_hex is not None:
        e["fill_value_hex"] = fill_hex
    if raw is not None:
        e["raw_le_sha256"] = sha_le(raw)
        if raw.dtype.kind in "fiu":
            e["dtype"] = dtype_of(raw.dtype)
    e.update(extra)
    return e


def dtype_of(dt):
    """The "dtype" of an expected column (shared/fixtures layout) for a
    numeric NumPy type: what readers need to compare at its precision."""
    return {"class": "float" if dt.kind == "f" else "integer", "size": dt.itemsize}


def events_table(parent, name, n, rng, extent=None, with_indexes=True, filtered=True):
    """A HEP001 table with one column of most type families."""
    extent = extent or n
    cols = []
    sidx = []
    order = ["run", "evt", "ts", "energy", "charge", "flag", "color", "det", "tag", "pad", "note", "hit", "blob", "h16"]
    g = table_group(parent, name, n, order, title="Events %s" % name, description="test events",
                    units_vocabulary="UDUNITS-2")

    def tail(arr, garbage):
        return np.concatenate([arr, np.array([garbage] * (extent - n), dtype=arr.dtype)]) if extent > n else arr

    run = np.repeat(np.arange(1, n // 50 + 2, dtype="<u2"), 50)[:n]
    ds = make_ds(g, "run", "<u2", tail(run, 7), layout="contiguous", fill=65535)
    cols.append(col_expect("run", "int", [int(x) for x in run], fill_hex="ffff", raw=run))
    evt = np.arange(n, dtype=">i8") * 3 + 100
    make_ds(g, "evt", ">i8", tail(evt, 5), chunk=40, fill=-9223372036854775807)
    cols.append(col_expect("evt", "int", [int(x) for x in evt], fill_hex="8000000000000001", raw=evt))
    ts = np.cumsum(rng.integers(0, 5, n)).astype("<i8") + 1_600_000_000_000
    tmiss = rng.random(n) < 0.05
    ts[tmiss] = -9223372036854775807
    ds = make_ds(g, "ts", "<i8", tail(ts, 1), chunk=64, fill=-9223372036854775807)
    str_attr(ds, "units", "ms")
    cols.append(col_expect("ts", "int", [None if m else int(x) for x, m in zip(ts, tmiss)],
                           fill_hex="0100000000000080", raw=ts, attributes={"units": "ms"}))
    if with_indexes:
        sidx += write_indexes(g, "ts", ["CHUNK_MINMAX", "SORTED_ROWS", "CHUNK_BLOOM"],
                              num_model(ts, tmiss, "<i8", 64, -9223372036854775807), cols_index := [])
    energy = (rng.random(n) * 500).astype("<f4")
    emiss = rng.random(n) < 0.1
    energy[emiss] = np.float32(9.969209968386869e36)
    energy[3] = np.float32("nan")
    energy[5] = np.float32(-0.0)
    energy[64:128] = np.float32(9.969209968386869e36)
    emiss[64:128] = True
    emiss[3] = False
    emiss[5] = False
    ds = make_ds(g, "energy", "<f4", tail(energy, 1.5), chunk=64, fill=np.float32(9.969209968386869e36),
                 filters=("shuffle", "deflate") if filtered else ())
    str_attr(ds, "units", "GeV")
    str_attr(ds, "units_vocabulary", "UCUM")
    ds.attrs.create("valid_min", np.float32(-1.0))
    ds.attrs.create("valid_max", np.float32(1e6))
    cols.append(col_expect("energy", "float", [None if m else jfloat(x) for x, m in zip(energy, emiss)],
                           fill_hex="0000f07c", raw=energy, valid_min=-1.0, valid_max=1e6,
                           attributes={"units": "GeV", "units_vocabulary": "UCUM"}))
    if with_indexes:
        sidx += write_indexes(g, "energy", ["CHUNK_MINMAX", "SORTED_ROWS", "CHUNK_BLOOM"],
                              num_model(energy, emiss, "<f4", 64, np.float32(9.969209968386869e36)), cols_index)
    charge = rng.normal(size=n).astype("<f8")
    cmiss = rng.random(n) < 0.08
    charge[cmiss] = np.nan
    make_ds(g, "charge", "<f8", tail(charge, 2.5), layout="contiguous", fill=np.nan)
    cols.append(col_expect("charge", "float", [None if m else jfloat(x) for x, m in zip(charge, cmiss)],
                           fill_hex="000000000000f87f", raw=charge))
    flag = rng.integers(0, 2, n).astype("u1")
    fmiss = rng.random(n) < 0.1
    flag[fmiss] = 2
    make_ds(g, "flag", "u1", tail(flag, 1), chunk=100, fill=2)
    cols.append(col_expect("flag", "bool8", [None if m else int(x) for x, m in zip(flag, fmiss)],
                           fill_hex="02", raw=flag))
    if with_indexes:
        sidx += write_indexes(g, "flag", ["BITMAP"], num_model(flag, fmiss, "u1", 100, 2), cols_index)
    cdt = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 2, "MISSING": -1}, basetype="i2")
    color = rng.integers(0, 3, n).astype("<i2")
    cm = rng.random(n) < 0.1
    color[cm] = -1
    make_ds(g, "color", cdt, tail(color, 1), chunk=50, fill=-1)
    names = ["RED", "GREEN", "BLUE"]
    cols.append(col_expect("color", "enum", [None if m else names[x] for x, m in zip(color, cm)],
                           fill_hex="ffff", raw=color))
    labels = ["ECAL", "HCAL", "MUON", "TRACKER"]
    cat = g.create_group("CATEGORIES")
    det_labels = cat.create_dataset("detectors", data=np.array(labels, dtype=object), dtype=h5py.string_dtype())
    det_labels.attrs.create("ordered", np.int8(0), dtype=BOOL_ENUM)
    det = rng.integers(0, 4, n).astype("i1")
    dm = rng.random(n) < 0.07
    det[dm] = -127
    ds = make_ds(g, "det", "i1", tail(det, 3), layout="compact" if extent * 1 < 30000 else "contiguous", fill=-127)
    ds.attrs.create("CATEGORIES", det_labels.ref, dtype=h5py.ref_dtype)
    cols.append(col_expect("det", "cat", [None if m else int(x) for x, m in zip(det, dm)], fill_hex="81", raw=det,
                           labels=[None if m else labels[x] for x, m in zip(det, dm)],
                           categories_path=det_labels.name, ordered=False))
    words = ["alpha", "beta", "γάμμα", "", "delta", "εψ"]
    tag = [words[i] for i in rng.integers(0, len(words), n)]
    tm = [t == "" for t in tag]
    make_ds(g, "tag", "S12", tail(np.array([t.encode() for t in tag], dtype="S12"), b"junk"), chunk=64, fill=b"",
            tid=str_type(12, "utf-8", "nullterm"))
    cols.append(col_expect("tag", "fstr", [None if m else t for t, m in zip(tag, tm)], fill_hex="00" * 12))
    pw = ["ab", "xyz", "?", "q  r"]
    pad = [pw[i] for i in rng.integers(0, len(pw), n)]
    make_ds(g, "pad", "S6", tail(np.array([p.ljust(6).encode() for p in pad], dtype="S6"), b"zzzzzz"), chunk=32,
            fill=b"?     ", tid=str_type(6, "ascii", "spacepad"))
    cols.append(col_expect("pad", "fstr", [None if p == "?" else p for p in pad], fill_hex="3f2020202020"))
    notes = ["n%d" % i if i % 11 else "<NA>" for i in range(n)]
    make_ds(g, "note", h5py.string_dtype(), tail(np.array(notes, dtype=object), "garbage"), chunk=64,
            fill="<NA>", tid=h5py.h5t.py_create(h5py.string_dtype(), logical=True))
    cols.append(col_expect("note", "vstr", [None if s == "<NA>" else s for s in notes]))
    hdt = np.dtype([("x", "<f4"), ("y", "<f4"), ("id", "<i4")])
    hit = np.zeros(n, dtype=hdt)
    hit["x"] = rng.random(n).astype("<f4")
    hit["y"] = rng.random(n).astype("<f4")
    hit["id"] = np.arange(n)
    hfill = (np.float32(9.969209968386869e36), np.float32(9.969209968386869e36), -2147483647)
    hm = rng.random(n) < 0.05
    for i in np.nonzero(hm)[0]:
        hit[i] = hfill
    make_ds(g, "hit", hdt, tail(hit, (1, 1, 1)), chunk=64, fill=np.array(hfill, dtype=hdt))
    cols.append(col_expect("hit", "compound",
                           [None if m else {"x": jfloat(h["x"]), "y": jfloat(h["y"]), "id": int(h["id"])}
                            for h, m in zip(hit, hm)], fill_hex="0000f07c0000f07c01000080"))
    blob = rng.integers(0, 256, (n, 4)).astype("u1")
    bm = rng.random(n) < 0.05
    blob[bm] = 255
    bv = np.frombuffer(blob.tobytes(), dtype="V4")
    make_ds(g, "blob", "V4", tail(bv.copy(), np.frombuffer(b"\x01\x02\x03\x04", dtype="V4")[0]), chunk=64,
            fill=np.frombuffer(b"\xff\xff\xff\xff", dtype="V4")[0])
    cols.append(col_expect("blob", "opaque", [None if m else bytes(b).hex() for b, m in zip(blob, bm)],
                           fill_hex="ffffffff"))
    h16 = (rng.random(n) * 100 - 50).astype("<f2")
    h16[::9] = np.float16(65504)
    make_ds(g, "h16", "<f2", tail(h16, 1), chunk=64, fill=np.float16(65504))
    cols.append(col_expect("h16", "float", [None if i % 9 == 0 else jfloat(x) for i, x in enumerate(h16)],
                           fill_hex="ff7b", raw=h16))
    finish_table(g, order, index=["run", "evt"])
    for c in cols:
        c["search_indexes"] = [x["path"] for x in (cols_index if with_indexes else []) if x["column"] == c["name"]]
    return {
        "path": g.name, "kind": "hep001", "nrows": n, "extent": extent, "version": "1.0", "column_order": order,
        "index_columns": ["run", "evt"], "_index": "run",
        "attributes": {"TITLE": "Events %s" % name, "description": "test events", "units_vocabulary": "UDUNITS-2"},
        "columns": cols,
        "categories": [{"path": det_labels.name, "labels": labels, "ordered": False}],
        "search_indexes": cols_index if with_indexes else [],
    }


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False, allow_nan=False, default=lambda o: o.item())
        f.write("\n")


def gen_hep(rng):
    path = os.path.join(HERE, "hep_tables.h5")
    with h5py.File(path, "w", libver="earliest") as f:
        run = f.create_group("run")
        t1 = events_table(run, "events", 300, rng)
        t2 = events_table(run, "prealloc", 200, rng, extent=256, with_indexes=False, filtered=False)
        # an empty table and a single-column table without column-order
        e = table_group(f, "empty", 0, [])
        make_ds(e, "x", "<i4", np.zeros(0, dtype="<i4"), fill=-2147483647)
        finish_table(e, ["x"])
        one = table_group(f, "one", 3, [], version="1.4")
        make_ds(one, "v", "<u8", np.array([5, 6, 7], dtype="<u8"), layout="contiguous", fill=2**64 - 1)
        f.create_dataset("image", data=np.arange(64, dtype="<u2").reshape(8, 8))
    write_json(os.path.join(HERE, "hep_tables.expected.json"), {
        "file": "hep_tables.h5", "kind": "hep001", "notes": "generated by table/testdata/gen.py",
        "tables": [t1, t2,
                   {"path": "/empty", "kind": "hep001", "nrows": 0, "version": "1.0", "column_order": ["x"],
                    "index_columns": [], "_index": None, "attributes": {}, "categories": [], "search_indexes": [],
                    "columns": [col_expect("x", "int", [], fill_hex="01000080", raw=np.zeros(0, dtype="<i4"))]},
                   {"path": "/one", "kind": "hep001", "nrows": 3, "version": "1.4", "column_order": ["v"],
                    "index_columns": [], "_index": None, "attributes": {}, "categories": [], "search_indexes": [],
                    "columns": [col_expect("v", "int", [5, 6, 7], fill_hex="ff" * 8,
                                           raw=np.array([5, 6, 7], dtype="<u8"))]}]})


def gen_tampered(rng):
    """Valid structure, wrong search indexes, and broken tables beside."""
    path = os.path.join(HERE, "tampered.h5")
    with h5py.File(path, "w", libver="earliest") as f:
        t = events_table(f, "events", 200, rng, filtered=False)
        si = f["events/SEARCH_INDEXES"]
        mm = si["ts__chunk_minmax"]
        e = mm[1]
        e["max"] += 1
        mm[1] = e
        perm = si["energy__sorted_rows"]
        p = perm[0:2]
        perm[0:2] = p[::-1]
        bl = si["ts__chunk_bloom"]
        bl[0, :] = 0
        bm = si["flag__bitmap"]
        bm[0, 0] ^= 1
        # broken tables: no NROWS; extents differ; major version 2; a
        # stray group inside (lenient: shown with an error finding)
        g = f.create_group("bad_nrows")
        str_attr(g, "CLASS", "COLUMN_TABLE", cset="ascii", size=13)
        str_attr(g, "VERSION", "1.0", cset="ascii")
        make_ds(g, "a", "<i4", np.arange(10, dtype="<i4"), fill=-1)
        g = table_group(f, "bad_extent", 90, [])
        make_ds(g, "a", "<i4", np.arange(100, dtype="<i4"), fill=-1)
        make_ds(g, "b", "<i4", np.arange(90, dtype="<i4"), fill=-1)
        g = table_group(f, "bad_version", 2, [], version="2.0")
        make_ds(g, "a", "<i4", np.arange(2, dtype="<i4"), fill=-1)
        g = table_group(f, "stray", 2, [])
        make_ds(g, "a", "<i4", np.arange(2, dtype="<i4"), fill=-1)
        make_ds(g, "b", "<i4", np.arange(2, dtype="<i4"), fill=-1)
        g.create_group("notes")
        g.create_dataset("grid", data=np.zeros((2, 2)))
        str_array_attr(g, "column-order", ["b", "a", "zz"])
        g = f.create_group("wrong_class")
        str_attr(g, "CLASS", "COLUMN_TABLES", cset="ascii")
        g.attrs.create("NROWS", np.uint64(1))
    del t


def gen_row_tables(rng):
    import pandas as pd
    import tables
    n = 40
    # PyTables
    path = os.path.join(HERE, "pytables.h5")

    class Row(tables.IsDescription):
        id = tables.Int32Col(pos=0)
        energy = tables.Float64Col(pos=1)
        name = tables.StringCol(8, pos=2)
        ok = tables.BoolCol(pos=3)
        vec = tables.Float32Col(shape=(2,), pos=4)
    ids = np.arange(n, dtype="i4")
    energy = rng.normal(size=n)
    energy[0] = np.nan
    names = ["c%02d" % i for i in range(n)]
    ok = rng.random(n) < 0.5
    vec = rng.random((n, 2)).astype("f4")
    with tables.open_file(path, "w") as h:
        grp = h.create_group("/", "det")
        tb = h.create_table(grp, "readout", Row, "Readout", chunkshape=(16,))
        r = tb.row
        for i in range(n):
            r["id"], r["energy"], r["name"], r["ok"], r["vec"] = ids[i], energy[i], names[i], ok[i], vec[i]
            r.append()
        tb.flush()
    pyt = {"path": "/det/readout", "kind": "pytables", "nrows": n, "column_order": ["id", "energy", "name", "ok", "vec"],
           "columns": [{"name": "id", "values": [int(x) for x in ids]},
                       {"name": "energy", "kind": "float", "dtype": dtype_of(energy.dtype),
                        "values": [jfloat(x) for x in energy]},
                       {"name": "name", "values": names},
                       {"name": "ok", "values": [bool(x) for x in ok]},
                       {"name": "vec", "values": [[jfloat(a), jfloat(b)] for a, b in vec]}]}
    write_json(os.path.join(HERE, "pytables.expected.json"), {"file": "pytables.h5", "kind": "pytables", "tables": [pyt]})
    # pandas HDFStore format='table'
    path = os.path.join(HERE, "pandas.h5")
    df = pd.DataFrame({"a": np.arange(n, dtype="i8") * 7, "b": rng.normal(size=n), "c": ["s%dé" % i for i in range(n)],
                       "d": rng.random(n) < 0.5, "e": rng.integers(0, 100, n).astype("i8"),
                       "t": pd.date_range("2024-01-01", periods=n, freq="h")},
                      index=pd.Index(["r%03d" % i for i in range(n)], name="rid"))
    df.to_hdf(path, key="frame", format="table", data_columns=["a", "c"], mode="w")
    pdt = {"path": "/frame/table", "kind": "pandas", "nrows": n, "column_order": ["a", "b", "c", "d", "e", "t"],
           "index": {"name": "rid", "values": list(df.index)},
           "columns": [{"name": "a", "values": [int(x) for x in df.a]},
                       {"name": "b", "kind": "float", "dtype": dtype_of(df.b.dtype), "values": [jfloat(x) for x in df.b]},
                       {"name": "c", "values": list(df.c)}, {"name": "d", "values": [bool(x) for x in df.d]},
                       {"name": "e", "values": [int(x) for x in df.e]},
                       {"name": "t", "pandas_dtype": "datetime64[ns]", "values": [int(x) for x in df.t.astype("int64")]}]}
    write_json(os.path.join(HERE, "pandas.expected.json"), {"file": "pandas.h5", "kind": "pandas", "tables": [pdt]})
    # H5TB-style: one compound dataset with CLASS=TABLE and FIELD_i_*
    path = os.path.join(HERE, "h5tb.h5")
    dt = np.dtype([("serial", "<i4"), ("value", "<f8"), ("label", "S6")])
    rec = np.zeros(n, dtype=dt)
    rec["serial"] = np.arange(n) + 3
    rec["value"] = np.arange(n) * 0.5
    rec["label"] = [("L%d" % (i % 5)).encode() for i in range(n)]
    with h5py.File(path, "w", libver="earliest") as f:
        ds = f.create_group("lab").create_dataset("meas", data=rec, chunks=(16,), maxshape=(None,))
        str_attr(ds, "CLASS", "TABLE", cset="ascii")
        str_attr(ds, "VERSION", "3.0", cset="ascii")
        str_attr(ds, "TITLE", "measurements", cset="ascii")
        for i, (fn, fill) in enumerate([("serial", -1), ("value", -1.0), ("label", None)]):
            str_attr(ds, "FIELD_%d_NAME" % i, fn, cset="ascii")
            if fill is not None:
                ds.attrs.create("FIELD_%d_FILL" % i, fill)
    tb = {"path": "/lab/meas", "kind": "h5tb", "nrows": n, "column_order": ["serial", "value", "label"],
          "columns": [{"name": "serial", "values": [int(x) for x in rec["serial"]]},
                      {"name": "value", "kind": "float", "dtype": dtype_of(rec.dtype["value"]),
                       "values": [jfloat(x) for x in rec["value"]]},
                      {"name": "label", "values": [x.decode() for x in rec["label"]]}]}
    write_json(os.path.join(HERE, "h5tb.expected.json"), {"file": "h5tb.h5", "kind": "h5tb", "tables": [tb]})
    # anndata-style dataframe group
    path = os.path.join(HERE, "anndata.h5")
    obs = ["cell%02d" % i for i in range(n)]
    counts = rng.integers(0, 1000, n).astype("<i8")
    frac = rng.random(n)
    cats = ["B", "NK", "T"]
    codes = rng.integers(-1, 3, n).astype("i1")
    nvals = rng.integers(0, 9, n).astype("<i4")
    nmask = rng.random(n) < 0.2
    kept = rng.random(n) < 0.5
    with h5py.File(path, "w", libver="earliest") as f:
        g = f.create_group("obs")
        str_attr(g, "encoding-type", "dataframe")
        str_attr(g, "encoding-version", "0.2.0")
        str_attr(g, "_index", "_index")
        g.attrs["column-order"] = np.array(["counts", "frac", "kept", "cell_type", "n_genes"], dtype=object)
        g.create_dataset("_index", data=np.array(obs, dtype=object), dtype=h5py.string_dtype())
        g.create_dataset("counts", data=counts)
        g.create_dataset("frac", data=frac)
        g.create_dataset("kept", data=kept)
        c = g.create_group("cell_type")
        str_attr(c, "encoding-type", "categorical")
        c.attrs.create("ordered", np.int8(0), dtype=BOOL_ENUM)
        c.create_dataset("codes", data=codes)
        c.create_dataset("categories", data=np.array(cats, dtype=object), dtype=h5py.string_dtype())
        ng = g.create_group("n_genes")
        str_attr(ng, "encoding-type", "nullable-integer")
        ng.create_dataset("values", data=nvals)
        ng.create_dataset("mask", data=nmask)
    ad = {"path": "/obs", "kind": "anndata", "nrows": n, "column_order": ["counts", "frac", "kept", "cell_type", "n_genes"],
          "index": {"name": "_index", "values": obs},
          "columns": [{"name": "counts", "values": [int(x) for x in counts]},
                      {"name": "frac", "kind": "float", "dtype": dtype_of(frac.dtype), "values": [jfloat(x) for x in frac]},
                      {"name": "kept", "values": [bool(x) for x in kept]},
                      {"name": "cell_type", "values": [None if x < 0 else cats[x] for x in codes]},
                      {"name": "n_genes", "values": [None if m else int(x) for x, m in zip(nvals, nmask)]}]}
    write_json(os.path.join(HERE, "anndata.expected.json"), {"file": "anndata.h5", "kind": "anndata", "tables": [ad]})


def gen_sample(rng):
    """The h5fs demo file: two HEP001 tables, a 2-D dataset, attributes."""
    n = 200
    with h5py.File(SAMPLE, "w", libver="earliest") as f:
        str_attr(f, "title", "h5fs sample: a detector run")
        run = f.create_group("run1")
        str_attr(run, "description", "one simulated detector run")
        ev = table_group(run, "events", n, [], title="Events of run 1", units_vocabulary="UDUNITS-2",
                         description="one row per event")
        ts = (np.arange(n, dtype="<i8") * 25 + 1_700_000_000_000)
        ds = make_ds(ev, "ts", "<i8", ts, chunk=64, fill=-9223372036854775807)
        str_attr(ds, "units", "ms")
        str_attr(ds, "description", "event time since the epoch")
        energy = (rng.gamma(2.0, 20.0, n)).astype("<f4")
        energy[::17] = np.float32(9.969209968386869e36)
        ds = make_ds(ev, "energy", "<f4", energy, chunk=64, fill=np.float32(9.969209968386869e36))
        str_attr(ds, "units", "MeV")
        cat = ev.create_group("CATEGORIES")
        lab = cat.create_dataset("label", data=np.array(["photon", "electron", "muon", "hadron"], dtype=object),
                                 dtype=h5py.string_dtype())
        lab.attrs.create("ordered", np.int8(0), dtype=BOOL_ENUM)
        label = rng.integers(0, 4, n).astype("i1")
        label[::23] = -127
        ds = make_ds(ev, "label", "i1", label, chunk=64, fill=-127)
        ds.attrs.create("CATEGORIES", lab.ref, dtype=h5py.ref_dtype)
        str_attr(ds, "description", "particle class")
        write_indexes(ev, "energy", ["CHUNK_MINMAX"], num_model(energy, energy > 1e30, "<f4", 64,
                                                                np.float32(9.969209968386869e36)), [])
        finish_table(ev, ["ts", "energy", "label"])
        sm = table_group(run, "summary", 4, [], title="Per-block summary")
        make_ds(sm, "block", h5py.string_dtype(), np.array(["a", "b", "c", "d"], dtype=object),
                layout="contiguous", fill="", tid=h5py.h5t.py_create(h5py.string_dtype(), logical=True))
        make_ds(sm, "nevents", "<u8", np.array([50, 50, 50, 50], dtype="<u8"), layout="contiguous", fill=2**64 - 1)
        finish_table(sm, ["block", "nevents"], index=["block"])
        img = run.create_dataset("calibration", data=(np.arange(64).reshape(8, 8) * 1.5).astype("<f4"))
        str_attr(img, "units", "ADC/MeV")


def gen_broken():
    """Tables a lenient mount must survive: each file's bad tables give EIO
    on their own files only (test/fuse TestBrokenFixtures names them)."""
    path = os.path.join(HERE, "broken_tables.h5")
    with h5py.File(path, "w", libver="earliest") as f:
        f.create_dataset("plain", data=np.arange(4, dtype="<i4"))
        t = f.create_group("t")  # no NROWS
        str_attr(t, "CLASS", "COLUMN_TABLE", cset="ascii", size=13)
        str_attr(t, "VERSION", "1.0", cset="ascii")
        make_ds(t, "a", "<f8", np.array([1.5, 2.5], dtype="<f8"))
        u = table_group(f, "u", 5, [])  # NROWS beyond a column's extent
        make_ds(u, "a", "<i8", np.arange(5, dtype="<i8"))
        make_ds(u, "b", "<i8", np.arange(3, dtype="<i8"), maxshape=None, layout="contiguous")
        v = table_group(f, "v", 1, [], version="2.0")  # a MAJOR version from the future
        make_ds(v, "a", "<i4", np.array([9], dtype="<i4"))
        w = f.create_group("w")  # not COLUMN_TABLE: a plain group
        str_attr(w, "CLASS", "COLUMN_TABLEX", cset="ascii")
        make_ds(w, "a", "<i2", np.array([4, 5], dtype="<i2"))
    write_json(os.path.join(HERE, "broken_tables.expected.json"), {
        "file": "broken_tables.h5", "kind": "broken", "notes": "generated by table/testdata/gen.py",
        "expected_behaviour": "the file opens; /t (no NROWS), /u (a column shorter than NROWS) and "
                              "/v (VERSION 2.0) are not shown as tables, each with a finding; "
                              "/w (CLASS COLUMN_TABLEX) is a plain group",
        "findings": [{"path": "/t", "rule": "§7.3"}, {"path": "/u", "rule": "§12"}, {"path": "/v", "rule": "§7"}],
        "tables": []})
    # the root group is the bad table: the mount must still come up
    path = os.path.join(HERE, "broken_root_table.h5")
    with h5py.File(path, "w", libver="earliest") as f:
        str_attr(f, "CLASS", "COLUMN_TABLE", cset="ascii", size=13)
        str_attr(f, "VERSION", "1.0", cset="ascii")
        make_ds(f, "a", "<f4", np.array([1, 2], dtype="<f4"))
        make_ds(f.create_group("g"), "x", "<i4", np.array([3, 4], dtype="<i4"))
    write_json(os.path.join(HERE, "broken_root_table.expected.json"), {
        "file": "broken_root_table.h5", "kind": "broken", "notes": "generated by table/testdata/gen.py",
        "expected_behaviour": "the file opens; the root group, a table without NROWS, is not shown as a table",
        "findings": [{"path": "/", "rule": "§7.3"}],
        "tables": []})


def main():
    rng = np.random.default_rng(20261126)
    gen_hep(rng)
    gen_tampered(rng)
    gen_broken()
    gen_row_tables(rng)
    gen_sample(np.random.default_rng(7))  # its own stream: the demo file changes only with its code


if __name__ == "__main__":
    main()
