#!/usr/bin/python3
"""Writes arrowexport/testdata/datasets.h5 with Debian's h5py: one dataset
per layout and datatype family that the raw and npy views handle.
check_npy.py compares the views with h5py's reading of the same file."""
import sys
import h5py
import numpy as np

out = sys.argv[1] if len(sys.argv) > 1 else "datasets.h5"
with h5py.File(out, "w") as f:
    def add(name, data, **kw):
        f.create_dataset(name, data=data, track_times=False, **kw)

    add("f8_2d", np.arange(12, dtype="<f8").reshape(3, 4) / 7)
    add("i4_chunked", np.arange(10007, dtype="<i4") * -3, chunks=(1000,))
    add("u1_3d_chunked", (np.arange(5 * 6 * 7) % 251).astype("u1").reshape(5, 6, 7), chunks=(2, 3, 4))
    add("be_i2", np.arange(-50, 50, dtype=">i2"))
    add("be_f8_chunked", np.linspace(-1, 1, 999, dtype=">f8"), chunks=(100,))
    add("gz_f4", np.cos(np.arange(5000, dtype="<f4")), chunks=(700,), compression="gzip", shuffle=True)
    add("str5", np.array([b"a", b"bcdef", b"", b"xyz"], dtype="S5"))
    add("scalar", np.float32(2.5))
    rec = np.dtype([("x", "<f4"), ("y", "<f8"), ("s", "S3")], align=True)
    r = np.zeros(10, dtype=rec)
    r["x"] = np.arange(10) / 2
    r["y"] = -np.arange(10)
    r["s"] = [b"ab%d" % i for i in range(10)]
    add("compound_padded", r)
    a = f.create_dataset("arr2", shape=(10,), dtype=np.dtype(("<f4", (2,))), track_times=False)
    a[...] = np.arange(20, dtype="<f4").reshape(10, 2)
    enum = h5py.enum_dtype({"RED": 0, "GREEN": 1, "MISSING": -1}, basetype="i1")
    f.create_dataset("enum", data=np.array([0, 1, -1, 1], dtype="i1"), dtype=enum, track_times=False)

# A HEP001 table without filters: NROWS rows of a 12000-row extent, with
# missing values (fill values), a categorical and a fixed-length string.
NROWS, EXTENT = 10007, 12000
rng = np.random.default_rng(7)
with h5py.File(out, "a") as f:
    g = f.create_group("events")
    g.attrs["CLASS"] = np.bytes_("COLUMN_TABLE")
    g.attrs["VERSION"] = np.bytes_("1.0")
    g.attrs["NROWS"] = np.uint64(NROWS)
    g.attrs["TITLE"] = np.bytes_("test events")
    order = ["ts", "energy", "det", "name", "count"]
    g.attrs["column-order"] = np.array([o.encode() for o in order], dtype="S8")

    def col(name, dtype, values, chunk, fill, **attrs):
        ds = g.create_dataset(name, shape=(EXTENT,), dtype=dtype, chunks=(chunk,), fillvalue=fill,
                               maxshape=(None,), track_times=False)
        ds[:NROWS] = values
        for k, v in attrs.items():
            ds.attrs[k] = np.bytes_(v)
        return ds

    ts = np.arange(NROWS, dtype="<i8") * 1000 + 1600000000000
    ts[rng.random(NROWS) < 0.05] = -9223372036854775807
    col("ts", "<i8", ts, 1000, -9223372036854775807, units="ms", description="time stamp")
    energy = (rng.random(NROWS) * 100).astype("<f4")
    energy[rng.random(NROWS) < 0.1] = np.float32(9.969209968386869e36)
    col("energy", "<f4", energy, 500, np.float32(9.969209968386869e36), units="GeV")
    cats = g.create_group("CATEGORIES")
    labels = cats.create_dataset("detectors", data=np.array(["ECAL", "HCAL", "MU,ON", 'TR"K'], dtype=object),
                                 dtype=h5py.string_dtype(), track_times=False)
    det = rng.integers(0, 4, NROWS).astype("i1")
    det[rng.random(NROWS) < 0.07] = -127
    d = col("det", "i1", det, 2000, -127)
    d.attrs.create("CATEGORIES", labels.ref, dtype=h5py.ref_dtype)
    words = np.array([b"alpha", b"be,ta", b"", b"gamma", b'q"uote', b"eightchr"], dtype="S8")
    col("name", "S8", words[np.arange(NROWS) % len(words)], 1000, b"")
    cnt = (np.arange(NROWS) % 65535).astype("<u2")
    col("count", "<u2", cnt, 250, 65535)

# A verified CHUNK_MINMAX index (HEP001 §10.4) for the column without
# missing values, so Parquet can take its statistics from the index.
with h5py.File(out, "a") as f:
    g = f["events"]
    c = g["count"]
    v = c[:NROWS]
    chunk = c.chunks[0]
    mm = np.dtype([("min", "<u2"), ("max", "<u2"), ("nan_count", "<u8"), ("fill_count", "<u8"), ("n", "<u8")])
    nch = (NROWS + chunk - 1) // chunk
    e = np.zeros(nch, dtype=mm)
    for k in range(nch):
        part = v[k * chunk:(k + 1) * chunk]
        e[k] = (part.min(), part.max(), 0, 0, len(part))
    si = g.create_group("SEARCH_INDEXES")
    ds = si.create_dataset("count__chunk_minmax", data=e, track_times=False)
    ds.attrs["KIND"] = np.bytes_("CHUNK_MINMAX")
    c.attrs.create("SEARCH_INDEX_LIST", [ds.ref], dtype=h5py.ref_dtype)
