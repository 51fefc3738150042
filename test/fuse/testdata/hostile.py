"""Writes the hostile corpus into the directory named by argv[1]: HDF5
files crafted to misbehave (link names holding '/', '.', '..' or nothing,
soft links aimed outside the mount, external links, soft-link bombs, hard
link diamonds, ...), for test/fuse/hostile_test.go. h5py writes what it
can; names h5py refuses are written as same-length markers and then edited
in the file's bytes (old-style groups keep names NUL-terminated in a local
heap, so a marker becomes a shorter name by NUL-padding it).
Run with Debian's /usr/bin/python3."""
import os
import sys
import zlib

import h5py
import numpy as np

out = sys.argv[1]


def edit(name, edits):
    """Replaces each marker (which must occur, and be no part of another)
    by its name, NUL-padded to the marker's length."""
    with open(name, "rb") as f:
        b = f.read()
    for marker, new in edits.items():
        m, n = marker.encode(), new.encode("utf-8", "surrogateescape")
        assert len(n) <= len(m), (marker, new)
        assert b.count(m) >= 1, (name, marker)
        b = b.replace(m, n + b"\0" * (len(m) - len(n)))
    with open(name, "wb") as f:
        f.write(b)


def small(g, name):
    g.create_dataset(name, data=np.arange(3, dtype="<i4"))


# slashname.h5: a group whose name holds '/', with a hard link back to the
# root and soft links to /etc and beyond; groups named '.', '..' and '', and
# a dataset named ''.
p = os.path.join(out, "slashname.h5")
with h5py.File(p, "w", libver="earliest") as f:
    etc = f.create_group("etc")
    small(etc, "passwd")
    x = f.create_group("x:")
    d1 = x.create_group("QUPAQ")
    d2 = d1.create_group("QUPBQ")
    small(d2.create_group("etc"), "passwd")
    deep = f.create_group("aXbXcXdXeXfXgXh")
    deep.attrs["deepattr"] = 3
    deep["r"] = f["/"]
    deep["s"] = h5py.SoftLink("/etc")
    deep["rel"] = h5py.SoftLink("../../../../../../../../etc")
    deep["x"] = h5py.SoftLink("x:/../../../../../../../../etc/passwd")
    deep["up"] = h5py.SoftLink("/x:/QUPAQ")
    small(deep, "data")
    f["t"] = h5py.SoftLink("/x:/../../etc")
    f["abs"] = h5py.SoftLink("/etc/passwd:/")
    dot = f.create_group("QDOTQ")
    dot.attrs["dotattr"] = 1
    small(dot, "v")
    small(f.create_group("QNILQ"), "w")
    small(f.create_group("nd"), "QNIDQ")  # a dataset named ''
    small(f, "QESCAPEQ")
    f.attrs["rootattr"] = 2
    small(f, "good")
edit(p, {"aXbXcXdXeXfXgXh": "a/b/c/d/e/f/g/h", "QUPAQ": "..", "QUPBQ": "..",
         "QDOTQ": ".", "QNILQ": "", "QNIDQ": "", "QESCAPEQ": "\x1b[31mred"})

# external.h5: external links to host files and to files beside it.
p = os.path.join(out, "external.h5")
with h5py.File(p, "w", libver="latest") as f:
    f.create_group("x:")
    f["passwd"] = h5py.ExternalLink("/etc/passwd", "/")
    f["other"] = h5py.ExternalLink("../../other.h5", "/g")
    f["xp"] = h5py.ExternalLink("x", "/../../../etc/passwd")
    small(f, "good")

# softbomb.h5: soft links l0..l15 each naming the next one four times;
# l16 is the group itself. Following them path by path takes 4^16 steps.
p = os.path.join(out, "softbomb.h5")
with h5py.File(p, "w", libver="latest") as f:
    g = f.create_group("bomb")
    for i in range(16):
        n = "l%d" % (i + 1)
        g["l%d" % i] = h5py.SoftLink("/".join([n] * 4))
    g["l16"] = h5py.SoftLink(".")
    f["top"] = h5py.SoftLink("/bomb/l0")
    small(f, "good")


def str_attr(obj, name, value, size=None):
    """A scalar fixed-length ASCII string attribute, as HEP001 wants."""
    b = value.encode()
    size = size or len(b) + 1
    tid = h5py.h5t.C_S1.copy()
    tid.set_size(size)
    a = h5py.h5a.create(obj.id, name.encode(), tid, h5py.h5s.create(h5py.h5s.SCALAR))
    a.write(np.array(b, dtype="S%d" % size), mtype=tid)


# collide.h5: a root table whose column "_table" would make the files the
# root table's own views are called, a group "b.csv" beside column b, and
# a group "x.csv" beside dataset x.
p = os.path.join(out, "collide.h5")
with h5py.File(p, "w", libver="latest") as f:
    str_attr(f, "CLASS", "COLUMN_TABLE", size=13)
    str_attr(f, "VERSION", "1.0")
    f.attrs.create("NROWS", np.uint64(3))
    f.attrs["column-order"] = np.array([b"_table", b"b"], dtype="S7")
    f.create_dataset("_table", data=np.array([1, 2, 3], dtype="<i4"))
    f.create_dataset("b", data=np.array([4, 5, 6], dtype="<i4"))
    g = f.create_group("b.csv")
    small(g, "x")
    g.create_group("x.csv").attrs["mine"] = 7
    # soft links to respelled groups: they lead to the names shown
    f["sl"] = h5py.SoftLink("/b.csv")
    g["sx"] = h5py.SoftLink("x.csv")
    g["sxa"] = h5py.SoftLink("/b.csv/x.csv")

# attrs.h5: attribute names with a newline, bytes that are not UTF-8, a
# leading dot; an attribute too long for an extended attribute; an object
# with 3,000 attributes.
p = os.path.join(out, "attrs.h5")
with h5py.File(p, "w", libver="latest") as f:
    g = f.create_group("odd")
    for name in [b"new\nline", b"\xff\xfebad", b".dot", b"\x1b[31mred", b"plain"]:
        h5py.h5a.create(g.id, name, h5py.h5t.STD_I32LE, h5py.h5s.create(h5py.h5s.SCALAR)).write(np.array(5, dtype="<i4"))
    g.attrs["big"] = np.arange(100000, dtype="<i4")
    m = f.create_group("many")
    for i in range(3000):
        m.attrs["a%04d" % i] = np.float64(i) / 7
    small(m, "d")

# huge.h5: a 2^40-element dataset never written (a few hundred bytes on
# disk), and a table whose NROWS is 2^40 over such columns.
p = os.path.join(out, "huge.h5")
with h5py.File(p, "w", libver="latest") as f:
    f.create_dataset("huge", shape=(1 << 40,), dtype="<f8", chunks=(1 << 20,))
    g = f.create_group("big")
    str_attr(g, "CLASS", "COLUMN_TABLE", size=13)
    str_attr(g, "VERSION", "1.0")
    g.attrs.create("NROWS", np.uint64(1 << 40))
    g.create_dataset("x", shape=(1 << 40,), dtype="<i4", chunks=(1 << 20,), fillvalue=7)
    small(f, "good")
    # 2^30 elements never written: under the text-view limit, sized from
    # the fill value alone
    f.create_dataset("mid", shape=(1 << 30,), dtype="<f8", chunks=(1 << 20,))
    # a table of 2^30 rows whose first 1000 only were written: its views
    # are sized from the never-written rows' first row (all missing)
    w = f.create_group("wide")
    str_attr(w, "CLASS", "COLUMN_TABLE", size=13)
    str_attr(w, "VERSION", "1.0")
    w.attrs.create("NROWS", np.uint64(1 << 30))
    x = w.create_dataset("x", shape=(1 << 30,), dtype="<i4", chunks=(1 << 20,), fillvalue=-1)
    x[:1000] = np.arange(1000)
    y = w.create_dataset("y", shape=(1 << 30,), dtype="<f8", chunks=(1 << 20,), fillvalue=0.5)
    y[:1000] = np.arange(1000) / 4

# diamond.h5: 40 levels of groups, each holding two hard links ("a", "b")
# to the next: 2^40 paths to the last level.
p = os.path.join(out, "diamond.h5")
with h5py.File(p, "w", libver="latest") as f:
    levels = [f.create_group("L%02d" % i) for i in range(41)]
    for i in range(40):
        levels[i]["a"] = levels[i + 1]
        levels[i]["b"] = levels[i + 1]
    small(levels[40], "end")
    f["top"] = levels[0]

# chunks.h5: a million chunks of one element, indexed by a v1 B-tree
# (h5py's default): the chunk index the daemon holds must stay small.
p = os.path.join(out, "chunks.h5")
with h5py.File(p, "w") as f:
    f.create_dataset("many", data=np.arange(1000000, dtype="<i4"), chunks=(1,))

# bomb.h5: gzip bombs, chunks of zeros that inflate a thousandfold: one of
# 1 GiB (over h5core's 256 MiB chunk limit) and one of 192 MiB (under it).
p = os.path.join(out, "bomb.h5")
with h5py.File(p, "w", libver="latest") as f:
    for name, n in (("bomb", 1 << 30), ("big", 192 << 20)):
        ds = f.create_dataset(name, shape=(n // 8,), dtype="<f8", chunks=(n // 8,), compression="gzip")
        z, zero = zlib.compressobj(1), bytes(16 << 20)
        ds.id.write_direct_chunk((0,), b"".join([z.compress(zero) for _ in range(n // len(zero))] + [z.flush()]))
