#!/usr/bin/python3
"""Writes, into the directory named on the command line, the files of
h5core's global heap writer tests (globalheap_write_test.go), with
Debian's h5py (libhdf5 1.10):

  earliest.h5, latest.h5  (libver earliest / latest): /s, a chunked
      variable-length UTF-8 string dataset of 6 strings, chunks of 4,
      unlimited; /n, the same with deflate and the fill value "<NA>",
      3 strings; /a, a vlen string attribute holder group.
  heap_base.h5            /s of 4 rows, none written.
  heap_libhdf5.h5         heap_base.h5 after libhdf5 wrote "", "abc"
      and 5000 "x" into rows 0, 1, 2, one write each, in a second
      session: the chunk sits after the first collection, so the long
      string gets a collection of its own.
  heap_grown.h5           the same three writes in the session that
      created /s, through one open dataset: the chunk is not
      allocated yet (it is in the chunk cache), so the collection,
      last in the file, grows to hold the long string.

Prints nothing.
"""
import os
import shutil
import sys

import h5py

d = sys.argv[1]
STR = h5py.string_dtype()
for libver in ("earliest", "latest"):
    with h5py.File(os.path.join(d, libver + ".h5"), "w", libver=libver) as f:
        f.create_dataset("s", data=["alpha", "", "γάμμα", "b" * 100, "c", "dd"], dtype=STR,
                         chunks=(4,), maxshape=(None,))
        f.create_dataset("n", data=["x", "<NA>", "yz"], dtype=STR, chunks=(4,), maxshape=(None,),
                         compression="gzip", fillvalue="<NA>")
base = os.path.join(d, "heap_base.h5")
with h5py.File(base, "w") as f:
    f.create_dataset("s", shape=(4,), dtype=STR, chunks=(4,), maxshape=(None,))
ref = os.path.join(d, "heap_libhdf5.h5")
shutil.copy(base, ref)
with h5py.File(ref, "r+") as f:
    f["s"][0] = ""
    f["s"][1] = "abc"
    f["s"][2] = "x" * 5000
with h5py.File(os.path.join(d, "heap_grown.h5"), "w") as f:
    s = f.create_dataset("s", shape=(4,), dtype=STR, chunks=(4,), maxshape=(None,))
    s[0] = ""
    s[1] = "abc"
    s[2] = "x" * 5000
