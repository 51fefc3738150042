"""Checks the sparse views rendered into a directory against an expected
JSON (shared sparse fixtures format) with scipy and numpy.

usage: check_sparse.py DIR EXPECTED.json DATASET
Exits non-zero with a message when a view disagrees.
"""
import csv
import json
import sys

import numpy as np
import scipy.io
import scipy.sparse

d, exp_path, name = sys.argv[1:4]
exp = next(x for x in json.load(open(exp_path))["datasets"] if x["name"] == name)
shape = tuple(exp["shape"])
coo = exp["coo"]
rank = len(shape)

def fail(msg):
    print(f"{name}: {msg}")
    sys.exit(1)

# coo.csv
with open(f"{d}/coo.csv", newline="") as f:
    rows = list(csv.reader(f))
want_header = ["row", "col", "value"] if rank == 2 else [f"i{k}" for k in range(rank)] + ["value"]
if rows[0] != want_header:
    fail(f"csv header {rows[0]}")
got = [[float(x) for x in r] for r in rows[1:]]
if got != [[float(x) for x in r] for r in coo]:
    fail("coo.csv differs")

# dense.npy: fill where undefined
dense = np.load(f"{d}/dense.npy")
want = np.full(shape, exp["fill_value"], dtype=dense.dtype)
for r in coo:
    want[tuple(int(x) for x in r[:-1])] = r[-1]
if dense.shape != shape or not np.array_equal(dense, want):
    fail("dense.npy differs")

if rank == 2:
    csr = exp["csr"]
    ref = scipy.sparse.csr_matrix((np.array(csr["data"]), np.array(csr["indices"]), np.array(csr["indptr"])), shape=shape)
    mm = scipy.io.mmread(f"{d}/matrix.mtx").tocsr()
    if mm.shape != shape or (mm != ref).nnz != 0 or mm.nnz != len(coo):
        fail("matrix.mtx differs")
    indptr = np.load(f"{d}/csr/indptr.npy")
    indices = np.load(f"{d}/csr/indices.npy")
    data = np.load(f"{d}/csr/data.npy")
    if indptr.dtype != np.int64 or indices.dtype != np.int64 or data.dtype != dense.dtype:
        fail(f"csr dtypes {indptr.dtype} {indices.dtype} {data.dtype}")
    m = scipy.sparse.csr_matrix((data, indices, indptr), shape=shape)
    if list(indptr) != csr["indptr"] or list(indices) != csr["indices"] or (m != ref).nnz != 0:
        fail("csr arrays differ")
print("ok")
