#!/usr/bin/python3
"""Writes the dense-storage test files of h5core (dense/*.h5) and what a
reader must find in them (dense/expected.json).

Run with Debian's h5py (libhdf5 1.10): /usr/bin/python3 gen_dense.py
Files are written next to this script, in dense/. Rerunning gives the same
structures and values; the .h5 bytes differ only in object timestamps.

What the files hold:
  links.h5   groups of 10, 100 and 3000 links in dense storage (fractal heap
             + v2 B-tree name index), with and without creation-order
             tracking; hard, soft and external links; a soft link whose
             message is larger than the heap's managed-object limit (a
             "huge" heap object); a group whose link heap is deflated.
  attrs.h5   objects with 9, 50 and 500 attributes in dense storage,
             attributes above the managed-object limit (huge objects,
             one above 64 KiB), creation-order tracking, and ~1 MiB of
             attributes (nested indirect blocks in the fractal heap).
  sohm.h5    dense attributes stored as shared messages (SOHM heap).
  small.h5   a little of everything above in a few KiB: the fuzz seed.
  chunks.h5  chunked datasets with two unlimited dimensions (v2 B-tree
             chunk index), unfiltered and gzip, with chunks never written,
             and one with 3600 chunks (a B-tree of depth > 0).
"""
import ctypes
import hashlib
import json
import os

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "dense")
H5 = ctypes.CDLL("libhdf5_serial.so.103")
# libhdf5's H5O_SHMESG_ATTR_FLAG: 1 << the attribute message type (12). The
# file stores these bits as given, not the spec's bit 4.
H5O_SHMESG_ATTR_FLAG = 1 << 12


def new_file(name, fcpl=None):
    path = os.path.join(OUT, name)
    if os.path.exists(path):
        os.remove(path)
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_libver_bounds(h5py.h5f.LIBVER_LATEST, h5py.h5f.LIBVER_LATEST)
    fid = h5py.h5f.create(path.encode(), h5py.h5f.ACC_TRUNC, fcpl=fcpl, fapl=fapl)
    return h5py.File(fid)


def addr(obj):
    return h5py.h5o.get_info(obj.id).addr


def fill_links(f, g, n, target):
    """n links: mostly hard, every 7th soft, every 11th external."""
    want = []
    for i in range(n):
        name = "link%05d" % i
        if i % 11 == 5:
            g[name] = h5py.ExternalLink("other%d.h5" % i, "/ext/obj%d" % i)
            want.append({"name": name, "type": "external", "file": "other%d.h5" % i, "target": "/ext/obj%d" % i})
        elif i % 7 == 3:
            t = "/target" if i % 2 else "../rel%d" % i
            g[name] = h5py.SoftLink(t)
            want.append({"name": name, "type": "soft", "target": t})
        else:
            g[name] = target
            want.append({"name": name, "type": "hard", "addr": addr(target)})
    return want


def make_links(exp):
    f = new_file("links.h5")
    target = f.create_dataset("target", data=np.arange(4, dtype="<i4"))
    groups = {}
    for n in (10, 100, 3000):
        for order in (False, True):
            path = "/g%d%s" % (n, "_order" if order else "")
            g = f.create_group(path, track_order=order)
            groups[path] = {"track_order": order, "links": fill_links(f, g, n, target)}
    # A soft link larger than the managed-object limit: a huge heap object.
    g = f.create_group("/huge")
    links = fill_links(f, g, 12, target)
    long_target = "/" + "/".join("seg%04d" % i for i in range(800))
    g["long"] = h5py.SoftLink(long_target)
    links.append({"name": "long", "type": "soft", "target": long_target})
    groups["/huge"] = {"track_order": False, "links": links}
    # A group whose link fractal heap has a deflate filter.
    gcpl = h5py.h5p.create(h5py.h5p.GROUP_CREATE)
    if H5.H5Pset_deflate(ctypes.c_int64(gcpl.id), ctypes.c_uint(6)) < 0:
        raise SystemExit("H5Pset_deflate failed")
    gid = h5py.h5g.create(f.id, b"gz", gcpl=gcpl)
    g = h5py.Group(gid)
    groups["/gz"] = {"track_order": False, "filtered": True, "links": fill_links(f, g, 60, target)}
    f.close()
    exp["links.h5"] = {"groups": groups}


def attr_values(n, seed):
    """n attributes of a few fixed-size types; returns (name, array) pairs."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        name = "attr%04d" % i
        k = i % 4
        if k == 0:
            v = np.int32(rng.integers(-1000, 1000))
        elif k == 1:
            v = rng.random(3).astype("<f8")
        elif k == 2:
            v = np.array(b"v%07d" % i, dtype="S8")
        else:
            v = rng.integers(0, 60000, size=(2, 3)).astype("<u2")
        out.append((name, np.asarray(v)))
    return out


def put_attrs(obj, values):
    want = []
    for name, v in values:
        obj.attrs.create(name, v, dtype=v.dtype)
        raw = v.tobytes()
        if len(raw) > 1024:  # keep expected.json small: a digest for big values
            want.append({"name": name, "len": len(raw), "sha256": hashlib.sha256(raw).hexdigest()})
        else:
            want.append({"name": name, "hex": raw.hex()})
    return want


def make_attrs(exp):
    f = new_file("attrs.h5")
    objs = {}
    for n in (9, 50, 500):
        g = f.create_group("/a%d" % n)
        objs["/a%d" % n] = put_attrs(g, attr_values(n, n))
    # About 1 MiB of managed objects: the heap's root indirect block gets
    # child indirect blocks.
    g = f.create_group("/a_wide")
    objs["/a_wide"] = put_attrs(g, [("w%03d" % i, np.full(3000, i, dtype="u1")) for i in range(300)])
    g = f.create_group("/a50_order", track_order=True)
    objs["/a50_order"] = put_attrs(g, attr_values(50, 7))
    ds = f.create_dataset("/ds_attrs", data=np.zeros(3, dtype="<i2"))
    vals = attr_values(12, 12)
    vals.append(("mid", np.arange(1500, dtype="<i4")))  # 6000 bytes: huge object
    vals.append(("big", np.arange(20000, dtype="<f8")))  # 160000 bytes: above 64 KiB
    objs["/ds_attrs"] = put_attrs(ds, vals)
    f.close()
    exp["attrs.h5"] = {"attributes": objs}


def make_sohm(exp):
    fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
    c = ctypes.c_int64(fcpl.id)
    if H5.H5Pset_shared_mesg_nindexes(c, ctypes.c_uint(1)) < 0:
        raise SystemExit("H5Pset_shared_mesg_nindexes failed")
    if H5.H5Pset_shared_mesg_index(c, ctypes.c_uint(0), ctypes.c_uint(H5O_SHMESG_ATTR_FLAG), ctypes.c_uint(1)) < 0:
        raise SystemExit("H5Pset_shared_mesg_index failed")
    f = new_file("sohm.h5", fcpl=fcpl)
    objs = {}
    vals = attr_values(20, 3)
    for path in ("/s1", "/s2"):
        objs[path] = put_attrs(f.create_group(path), vals)
    f.close()
    exp["sohm.h5"] = {"attributes": objs}


def chunk_list(ds):
    out = []
    for i in range(ds.id.get_num_chunks()):
        c = ds.id.get_chunk_info(i)
        out.append({"offset": list(c.chunk_offset), "addr": c.byte_offset, "size": c.size, "mask": c.filter_mask})
    out.sort(key=lambda c: c["offset"])
    return out


def make_chunks(exp):
    f = new_file("chunks.h5")
    dsets = {}
    for name, comp in (("plain", None), ("gzip", "gzip")):
        ds = f.create_dataset(name, shape=(10, 12), maxshape=(None, None), chunks=(4, 5),
                              dtype="<i4", fillvalue=-7, compression=comp)
        data = np.arange(120, dtype="<i4").reshape(10, 12)
        ds[0:4, 0:10] = data[0:4, 0:10]    # chunks (0,0) and (0,1)
        ds[4:8, 5:10] = data[4:8, 5:10]    # chunk (1,1)
        ds[8:10, 10:12] = data[8:10, 10:12]  # chunk (2,2), partial edge chunk
        dsets["/" + name] = {"shape": list(ds.shape), "chunks": list(ds.chunks),
                             "filtered": comp is not None, "raw_hex": ds[...].tobytes().hex(),
                             "chunk_list": chunk_list(ds)}
    ds = f.create_dataset("many", shape=(60, 60), maxshape=(None, None), chunks=(1, 1), dtype="<i4", fillvalue=0)
    data = np.arange(3600, dtype="<i4").reshape(60, 60)
    ds[...] = data
    ds.resize((60, 61))  # a column of chunks never written
    dsets["/many"] = {"shape": list(ds.shape), "chunks": list(ds.chunks), "filtered": False,
                      "raw_hex": ds[...].tobytes().hex(), "chunk_list": chunk_list(ds)}
    f.close()
    exp["chunks.h5"] = {"datasets": dsets}


def make_small(exp):
    f = new_file("small.h5")
    target = f.create_dataset("target", data=np.arange(2, dtype="<i4"))
    g = f.create_group("/g")
    links = fill_links(f, g, 12, target)
    vals = attr_values(10, 1)
    vals.append(("mid", np.arange(1100, dtype="<i4")))  # a huge object
    attrs = put_attrs(g, vals)
    ds = f.create_dataset("d", shape=(6, 6), maxshape=(None, None), chunks=(3, 3), dtype="<i2", fillvalue=5)
    ds[0:3, 0:6] = np.arange(18, dtype="<i2").reshape(3, 6)
    exp["small.h5"] = {"groups": {"/g": {"track_order": False, "links": links}},
                       "attributes": {"/g": attrs},
                       "datasets": {"/d": {"shape": list(ds.shape), "chunks": list(ds.chunks), "filtered": False,
                                           "raw_hex": ds[...].tobytes().hex(), "chunk_list": chunk_list(ds)}}}
    f.close()


def main():
    os.makedirs(OUT, exist_ok=True)
    exp = {"made_by": "h5py %s / libhdf5 %s" % (h5py.version.version, h5py.version.hdf5_version)}
    make_links(exp)
    make_attrs(exp)
    make_sohm(exp)
    make_chunks(exp)
    make_small(exp)
    with open(os.path.join(OUT, "expected.json"), "w") as fh:
        json.dump(exp, fh, sort_keys=True, separators=(",", ":"))
        fh.write("\n")


if __name__ == "__main__":
    main()
