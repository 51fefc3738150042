"""Checks every view of a rank-2 sparse dataset directory on an h5fs mount
against the expected state: check_sparse_views.py DIR EXPECTED.json, where
the JSON holds "shape" and "elems" ([row, col, value] each). coo.csv with
numpy, csr/*.npy as a scipy csr_matrix, matrix.mtx with scipy.io.mmread,
dense.npy with numpy (the fill value from .meta.json where undefined) and
.meta.json's shape and nnz. Prints one line per mismatch; exit status 1
if any."""
import json, os, sys
import numpy as np, scipy.io, scipy.sparse

d, exp = sys.argv[1], json.load(open(sys.argv[2]))
shape = tuple(exp["shape"])
want = np.zeros(shape)
defined = np.zeros(shape, dtype=bool)
for r, c, v in exp["elems"]:
    want[r, c], defined[r, c] = v, True
bad = []

def check(name, got, mask=None):
    if got.shape != shape:
        bad.append("%s: shape %s, want %s" % (name, got.shape, shape))
    elif not np.array_equal(got, want):
        bad.append("%s: %d elements differ" % (name, int((got != want).sum())))
    if mask is not None and got.shape == shape and not np.array_equal(mask, defined):
        bad.append("%s: %d defined positions differ" % (name, int((mask != defined).sum())))

coo = np.loadtxt(os.path.join(d, "coo.csv"), delimiter=",", skiprows=1, ndmin=2)
got, mask = np.zeros(shape), np.zeros(shape, dtype=bool)
rows, cols = coo[:, 0].astype(int), coo[:, 1].astype(int)
if rows.size and (rows.max() >= shape[0] or cols.max() >= shape[1]):
    bad.append("coo.csv: coordinates beyond %s" % (shape,))
else:
    got[rows, cols], mask[rows, cols] = coo[:, 2], True
    check("coo.csv", got, mask)
if len(coo) != len(exp["elems"]):
    bad.append("coo.csv: %d lines, want %d" % (len(coo), len(exp["elems"])))

csr = [np.load(os.path.join(d, "csr", n + ".npy")) for n in ("data", "indices", "indptr")]
if len(csr[2]) != shape[0] + 1:
    bad.append("csr/indptr.npy: %d entries, want %d" % (len(csr[2]), shape[0] + 1))
else:
    m = scipy.sparse.csr_matrix(tuple(csr), shape=shape)
    check("csr", m.toarray())
    if m.nnz != len(exp["elems"]):
        bad.append("csr: nnz %d, want %d" % (m.nnz, len(exp["elems"])))

mtx = scipy.io.mmread(os.path.join(d, "matrix.mtx"))
if mtx.shape != shape or mtx.nnz != len(exp["elems"]):
    bad.append("matrix.mtx: shape %s nnz %d, want %s %d" % (mtx.shape, mtx.nnz, shape, len(exp["elems"])))
else:
    check("matrix.mtx", mtx.toarray())

meta = json.load(open(os.path.join(d, ".meta.json")))
if tuple(meta["shape"]) != shape or meta["sparse"].get("nnz", 0) != len(exp["elems"]):
    bad.append(".meta.json: shape %s nnz %s, want %s %d" % (meta["shape"], meta["sparse"].get("nnz"), shape, len(exp["elems"])))

dense = np.load(os.path.join(d, "dense.npy"))
fill = float(meta["fill_value"])
if dense.shape == shape:
    dense = np.where(defined, dense, dense - fill)  # undefined: fill value, compared as 0
check("dense.npy", dense)

for b in bad:
    print(b)
sys.exit(1 if bad else 0)
