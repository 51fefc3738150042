#!/usr/bin/python3
"""Writes write_vlen.h5 (libver earliest) and write_vlen_latest.h5
(libver latest), the table package's test files for appends and updates
of variable-length string columns and for categorical columns whose
labels can grow: a HEP001 table /t with

  x      int32, fill -1: CHUNK_MINMAX, SORTED_ROWS
  s      vlen UTF-8 string, fill "": all four index kinds (the
         CHUNK_MINMAX bounds and BITMAP values vlen strings too)
  note   vlen UTF-8 string, fill "<NA>", chunks of 8: CHUNK_BLOOM,
         CHUNK_MINMAX
  det    int8 categorical, fill -127, labels CATEGORIES/det: vlen
         strings, chunked and unlimited (it can grow)
  lvl    int8 categorical, fill -127, labels CATEGORIES/lvl: vlen
         strings, contiguous (it cannot grow)

every column chunked (16 rows but note) and unlimited.

    /usr/bin/python3 table/testdata/gen_vlen.py

check_write.py recomputes the indexes from what libhdf5 reads.
"""
import os

import h5py
import numpy as np

from gen import BOOL_ENUM, make_ds, str_attr, table_group, finish_table

HERE = os.path.dirname(os.path.abspath(__file__))
N = 40
STR = h5py.string_dtype()
DET = ["ECAL", "HCAL", "MUON"]
LVL = ["low", "high"]

# column name -> (dtype, fill, chunk, search index kinds)
COLUMNS = {
    "x": ("<i4", -1, 16, ["CHUNK_MINMAX", "SORTED_ROWS"]),
    "s": (STR, "", 16, ["CHUNK_MINMAX", "CHUNK_BLOOM", "SORTED_ROWS", "BITMAP"]),
    "note": (STR, "<NA>", 8, ["CHUNK_BLOOM", "CHUNK_MINMAX"]),
    "det": ("i1", -127, 16, []),
    "lvl": ("i1", -127, 16, []),
}


def values(rng):
    words = ["alpha", "beta", "γάμμα", "", "δ" * 30]
    x = rng.integers(-1000, 1000, N).astype("<i4")
    x[3] = -1
    s = [words[i] for i in rng.integers(0, len(words), N)]
    note = ["n%d" % i if i % 7 else "<NA>" for i in range(N)]
    det = rng.integers(0, len(DET), N).astype("i1")
    det[5] = -127
    lvl = rng.integers(0, len(LVL), N).astype("i1")
    return {"x": x, "s": s, "note": note, "det": det, "lvl": lvl}


def main():
    write("write_vlen.h5", "earliest")
    write("write_vlen_latest.h5", "latest")


def write(fname, libver):
    rng = np.random.default_rng(11)
    vals = values(rng)
    with h5py.File(os.path.join(HERE, fname), "w", libver=libver, track_order=True) as f:
        g = table_group(f, "t", N, list(COLUMNS))
        for name, (dt, fill, chunk, _) in COLUMNS.items():
            tid = h5py.h5t.py_create(STR, logical=True) if dt is STR else None
            make_ds(g, name, dt, vals[name], chunk=chunk, fill=fill, tid=tid)
        cat = g.create_group("CATEGORIES")
        det = cat.create_dataset("det", data=np.array(DET, dtype=object), dtype=STR, chunks=(4,), maxshape=(None,))
        det.attrs.create("ordered", np.int8(0), dtype=BOOL_ENUM)
        lvl = cat.create_dataset("lvl", data=np.array(LVL, dtype=object), dtype=STR)
        g["det"].attrs.create("CATEGORIES", det.ref, dtype=h5py.ref_dtype)
        g["lvl"].attrs.create("CATEGORIES", lvl.ref, dtype=h5py.ref_dtype)
        si = g.create_group("SEARCH_INDEXES")
        import check_write
        model = check_write.Model(f["t"])
        for name, (dt, fill, chunk, kinds) in COLUMNS.items():
            refs = []
            for kind in kinds:
                want = model.expected(name, kind, k=3, m_bits=128, seed=5)
                iname = "%s__%s" % (name, kind.lower())
                if kind == "CHUNK_MINMAX":
                    ds = si.create_dataset(iname, data=want["entries"], maxshape=(None,), chunks=(4,))
                elif kind == "SORTED_ROWS":
                    ds = si.create_dataset(iname, data=want["perm"], maxshape=(None,), chunks=(16,))
                    ds.attrs.create("nan_tail_length", np.uint64(want["nan_tail"]))
                    ds.attrs.create("fill_tail_length", np.uint64(want["fill_tail"]))
                    ds.attrs.create("ordered", np.int8(1), dtype=BOOL_ENUM)
                elif kind == "BITMAP":
                    ds = si.create_dataset(iname, data=want["bits"], maxshape=(None, None), chunks=(4, 8))
                    vds = si.create_dataset(iname + "__values", data=want["values"], maxshape=(None,), chunks=(4,))
                    ds.attrs.create("VALUES", vds.ref, dtype=h5py.ref_dtype)
                    ds.attrs.create("ordered", np.int8(0), dtype=BOOL_ENUM)
                elif kind == "CHUNK_BLOOM":
                    ds = si.create_dataset(iname, data=want["filters"], maxshape=(None, 16), chunks=(4, 16))
                    ds.attrs.create("k", np.uint16(3))
                    ds.attrs.create("m_bits", np.uint64(128))
                    ds.attrs.create("seed", np.uint32(5))
                    str_attr(ds, "hash_family", "murmur3_x64_128_double", cset="ascii")
                str_attr(ds, "KIND", kind, cset="ascii")
                refs.append(ds.ref)
            if refs:
                g[name].attrs.create("SEARCH_INDEX_LIST", refs, dtype=h5py.ref_dtype)
        finish_table(g, list(COLUMNS))


if __name__ == "__main__":
    main()
