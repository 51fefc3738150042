#!/usr/bin/python3
"""Writes testdata/oldformat/: the data layout and fill value messages of
HDF5 1.6-era files (PyTables 1.x/2.0, NeXus written by libhdf5 1.6.5/1.6.6).

libhdf5 1.10 no longer writes those message versions, so the script writes a
file with Debian's h5py (libver earliest), then rewrites messages in place, in
the exact encoding libhdf5 1.6 used:

  * data layout version 3 -> 1 or 2: rank + 1 dimensions (the last one the
    element size) and nothing after them (chunked and contiguous);
  * fill value version 2 -> 1: with the "defined" byte clear, a size of
    0xFFFFFFFF follows (libhdf5 1.6 encoded its size -1 there); the
    version 2 form with no size is kept as its own case.

Each rewrite fits in the message's old space (object header v1 messages are
padded to 8 bytes), so nothing else moves: that holds for ranks 1 and 3 (a
rank-2 chunked v1 message needs 4 bytes more than v3's 24). libhdf5 then reads the rewritten
file back (through h5py) and its answers go to oldformat.json:

  {"<dataset path>": {"dtype": numpy dtype str, "shape": [...],
                      "raw": hex of the values h5py reads (little-endian),
                      "layout_version": N, "fill_version": N}}

Usage: /usr/bin/python3 gen_oldformat.py [outdir]
"""

import ctypes
import json
import os
import struct
import sys

import h5py
import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "oldformat")
MSG_FILL, MSG_LAYOUT, MSG_CONT = 0x05, 0x08, 0x10


def libhdf5():
    """The libhdf5 h5py runs on, for the calls h5py does not expose."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "libhdf5" in os.path.basename(path) and "_hl" not in path:
                lib = ctypes.CDLL(path)
                lib.H5Pset_fill_value.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
                return lib
    raise SystemExit("libhdf5 not loaded")


def messages(buf, addr):
    """Yields (type, data offset, size) of every message of the version 1
    object header at addr, following continuation messages."""
    version, nmsgs = buf[addr], struct.unpack_from("<H", buf, addr + 2)[0]
    assert version == 1, f"object header at {addr} is version {version}"
    size = struct.unpack_from("<I", buf, addr + 8)[0]
    blocks, seen = [(addr + 16, size)], 0
    while blocks:
        at, n = blocks.pop(0)
        end = at + n
        while at + 8 <= end and seen < nmsgs:
            mtype, msize = struct.unpack_from("<HH", buf, at)
            yield mtype, at + 8, msize
            if mtype == MSG_CONT:
                blocks.append(struct.unpack_from("<QQ", buf, at + 8))
            at += 8 + msize
            seen += 1


def find(buf, addr, mtype):
    for t, at, size in messages(buf, addr):
        if t == mtype:
            return at, size
    raise SystemExit(f"no message {mtype:#x} in the object header at {addr}")


def layout_old(buf, addr, version, itemsize):
    """Rewrites the chunked version 3 layout message at addr as version 1 or 2:
    rank + 1 (v3's dimensionality), class, 5 reserved bytes, the index
    address, the dimensions (the last one the element size)."""
    at, size = find(buf, addr, MSG_LAYOUT)
    assert buf[at] == 3 and buf[at + 1] == 2, f"layout version {buf[at]} class {buf[at + 1]}"
    rank = buf[at + 2]
    (index,) = struct.unpack_from("<Q", buf, at + 3)
    dims = struct.unpack_from(f"<{rank}I", buf, at + 11)
    assert dims[-1] == itemsize
    new = struct.pack("<BBB5xQ", version, rank, 2, index) + struct.pack(f"<{rank}I", *dims)
    assert len(new) <= size, f"layout v{version} needs {len(new)} bytes, the message has {size}"
    buf[at:at + size] = new + bytes(size - len(new))


def contiguous_old(buf, addr, version, shape, itemsize):
    at, size = find(buf, addr, MSG_LAYOUT)
    assert buf[at] == 3 and buf[at + 1] == 1
    (data,) = struct.unpack_from("<Q", buf, at + 2)
    dims = list(shape) + [itemsize]
    new = struct.pack("<BBB5xQ", version, len(dims), 1, data) + struct.pack(f"<{len(dims)}I", *dims)
    assert len(new) <= size, f"layout v{version} needs {len(new)} bytes, the message has {size}"
    buf[at:at + size] = new + bytes(size - len(new))


def fill_v1(buf, addr):
    """Rewrites a version 2 fill value message as version 1; an undefined
    fill gets the size 0xFFFFFFFF libhdf5 1.6 wrote."""
    at, size = find(buf, addr, MSG_FILL)
    assert buf[at] == 2, f"fill value version {buf[at]}"
    buf[at] = 1
    if buf[at + 3] == 0:
        assert size >= 8, f"fill message of {size} bytes"
        buf[at + 4:at + 8] = b"\xff\xff\xff\xff"


def main():
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "oldformat.h5")
    lib = libhdf5()
    with h5py.File(path, "w", libver="earliest", track_order=False) as f:
        def plain(name, data, **kw):
            return f.create_dataset(name, data=data, track_times=False, **kw)

        plain("chunked_1d_v1", np.arange(10, dtype="<i4") * 3 - 7, chunks=(4,))
        plain("chunked_1d_v2", np.linspace(-1, 1, 10), chunks=(3,), compression="gzip")
        plain("chunked_1d_u8_v1", np.arange(13, dtype="u1"), chunks=(5,))
        plain("chunked_3d_v2", np.arange(60, dtype="<f4").reshape(3, 4, 5), chunks=(2, 2, 5))
        plain("contiguous_1d_v1", np.array([5, 4, 3, 2, 1, 0], dtype="<i4"))
        f.create_dataset("fill_defined_v1", shape=(8,), dtype="<i4", chunks=(2,), fillvalue=7, track_times=False)
        f["fill_defined_v1"][0:2] = [1, 2]  # other chunks never written: fill value 7
        for name in ("fill_undefined_v1", "fill_undefined_v2"):
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            dcpl.set_chunk((2,))
            dcpl.set_obj_track_times(False)
            if lib.H5Pset_fill_value(dcpl.id, h5py.h5t.NATIVE_INT32.id, None) < 0:
                raise SystemExit("H5Pset_fill_value(NULL) failed")
            space = h5py.h5s.create_simple((8,))
            h5py.h5d.create(f.id, name.encode(), h5py.h5t.STD_I32LE, space, dcpl=dcpl)
            f[name][2:4] = [11, 12]  # chunks 0, 2, 3 never written
    cases = {
        "chunked_1d_v1": ("layout", 1),
        "chunked_1d_v2": ("layout", 2),
        "chunked_1d_u8_v1": ("layout", 1),
        "chunked_3d_v2": ("layout", 2),
        "contiguous_1d_v1": ("contiguous", 1),
        "fill_defined_v1": ("fill", 1),
        "fill_undefined_v1": ("fill", 1),
        "fill_undefined_v2": ("fill", 2),
    }
    with h5py.File(path, "r") as f:
        addrs = {n: (h5py.h5o.get_info(f[n].id).addr, f[n].shape, f[n].dtype.itemsize) for n in cases}
    buf = bytearray(open(path, "rb").read())
    for name, (what, version) in cases.items():
        addr, shape, itemsize = addrs[name]
        if what == "layout":
            layout_old(buf, addr, version, itemsize)
        elif what == "contiguous":
            contiguous_old(buf, addr, version, shape, itemsize)
        elif name.endswith("_v1"):
            layout_old(buf, addr, 1, itemsize)  # as 1.6 wrote them: both old messages
            fill_v1(buf, addr)
        else:
            layout_old(buf, addr, 2, itemsize)
    with open(path, "wb") as out:
        out.write(buf)
    expect = {}
    with h5py.File(path, "r") as f:
        for name in cases:
            d = f[name]
            addr = addrs[name][0]
            lat, _ = find(buf, addr, MSG_LAYOUT)
            fat, _ = find(buf, addr, MSG_FILL)
            expect["/" + name] = {
                "dtype": d.dtype.str,
                "shape": list(d.shape),
                "raw": d[()].astype(d.dtype.newbyteorder("<")).tobytes().hex(),
                "layout_version": buf[lat],
                "fill_version": buf[fat],
            }
    with open(os.path.join(OUT, "oldformat.json"), "w") as out:
        json.dump(expect, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()
