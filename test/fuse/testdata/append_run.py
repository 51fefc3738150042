#!/usr/bin/python3
"""Changes a run file of make_runs.py underneath a mount, as another
process would. Row i of the events table always holds run and
energy = i * 0.5 + run, so a reader can tell a consistent state.

usage: append_run.py plain FILE ROWS      append ROWS rows, add dataset /extra
       append_run.py plain-steps FILE STEPS ROWS [PAUSE]
                                           append ROWS rows STEPS times, opening
                                           and closing the file each time and
                                           then pausing PAUSE seconds (0.02)
       append_run.py swmr-create FILE RUN  write a run file SWMR writers can open
       append_run.py replace FILE RUN      write run file RUN beside FILE and rename
                                           it over FILE, as an editor saves
       append_run.py swmr FILE STEPS ROWS [PAUSE]
                                           as a libhdf5 SWMR writer, append ROWS
                                           rows STEPS times, flushing each and
                                           then pausing PAUSE seconds (0.02)"""
import os
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from make_runs import run_file  # noqa: E402


def append(f, rows):
    g = f["events"]
    n = int(g.attrs["NROWS"])
    run = int(g["run"][0])
    for name, values in (("run", np.full(rows, run, dtype="<i4")),
                         ("energy", np.arange(n, n + rows, dtype="<f8") * 0.5 + run)):
        d = g[name]
        d.resize((n + rows,))
        d[n:] = values
    g.attrs.modify("NROWS", np.uint64(n + rows))


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "plain":
        with h5py.File(path, "a") as f:
            append(f, int(sys.argv[3]))
            f.create_dataset("extra", data=np.arange(4, dtype="<i2"))
    elif mode == "plain-steps":
        pause = float(sys.argv[5]) if len(sys.argv) > 5 else 0.02
        for _ in range(int(sys.argv[3])):
            with h5py.File(path, "a") as f:
                append(f, int(sys.argv[4]))
            time.sleep(pause)
    elif mode == "swmr-create":
        run_file(path, int(sys.argv[3]), libver="latest")
    elif mode == "replace":
        tmp = path + ".tmp"
        run_file(tmp, int(sys.argv[3]))
        os.replace(tmp, path)
    elif mode == "swmr":
        steps, rows = int(sys.argv[3]), int(sys.argv[4])
        pause = float(sys.argv[5]) if len(sys.argv) > 5 else 0.02
        with h5py.File(path, "a", libver="latest") as f:
            f.swmr_mode = True
            # One flush per step: the states a reader can see are those
            # between steps, each a valid table (equal extents, NROWS).
            for _ in range(steps):
                append(f, rows)
                f.flush()
                time.sleep(pause)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
