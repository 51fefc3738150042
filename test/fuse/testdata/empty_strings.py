"""Writes empty_strings.h5 (argv[1]): a HEP001 table /t whose string
column holds both empty strings and missing values (rows equal to its fill
value), beside a numeric column with missing values, for the tests that
read <table>.csv and <col>.csv (TestEmptyAndMissing in test/fuse and
TestDuckDBEmptyAndMissing in test/fuse/duckdb).

Columns: word (variable-length UTF-8, fill "<NA>"), n (int32, fill -1).
"""
import sys

import h5py
import numpy as np

WORDS = ["a", "", "<NA>", "", "b,c", "<NA>", "ω", ""]
NS = [1, -1, 3, 4, -1, 6, 7, -1]


def str_attr(obj, name, value):
    """A scalar NUL-terminated ASCII string attribute, as HEP001 asks."""
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(len(value) + 1)
    a = h5py.h5a.create(obj.id, name.encode(), tid, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(value.encode(), dtype="S%d" % (len(value) + 1)), mtype=tid)


f = h5py.File(sys.argv[1], "w")
g = f.create_group("t")
str_attr(g, "CLASS", "COLUMN_TABLE")
str_attr(g, "VERSION", "1.0")
g.attrs["NROWS"] = np.uint64(len(WORDS))
order = h5py.h5t.C_S1.copy()
order.set_size(5)
h5py.h5a.create(g.id, b"column-order", order, h5py.h5s.create_simple((2,))).write(
    np.array([b"word", b"n"], dtype="S5"), mtype=order)
g.create_dataset("word", data=np.array(WORDS, dtype=object), dtype=h5py.string_dtype(), fillvalue="<NA>",
                 chunks=(4,), maxshape=(None,))
g.create_dataset("n", data=np.array(NS, dtype="<i4"), fillvalue=-1, chunks=(4,), maxshape=(None,))
f.close()
