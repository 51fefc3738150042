#!/usr/bin/python3
"""The writer of P6's batch cases (bench/append_bench.sh): one process
appending N rows in batches of BATCH through a read-write mount, each
batch one open, write and close (a commit) of each file it goes to.

    append_batches.py csv DIR MNT N BATCH   DIR/csvb-BATCH/* (BATCH lines each) to MNT/t.csv
    append_batches.py raw DIR MNT N BATCH   DIR/{a..e}.raw to MNT/t/{a..e}.raw
"""
import os
import sys

mode, d, mnt, n, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])


def append(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)  # the commit: close fails if it does


if mode == "csv":
    parts = os.path.join(d, "csvb-%d" % batch)
    for name in sorted(os.listdir(parts)):
        with open(os.path.join(parts, name), "rb") as f:
            append(os.path.join(mnt, "t.csv"), f.read())
else:
    cols = [(c, w, open(os.path.join(d, c + ".raw"), "rb").read()) for c, w in
            [("a", 8), ("b", 8), ("c", 4), ("d", 4), ("e", 1)]]
    for s in range(0, n, batch):
        e = min(s + batch, n)
        for c, w, data in cols:
            append(os.path.join(mnt, "t", c + ".raw"), data[s * w:e * w])
