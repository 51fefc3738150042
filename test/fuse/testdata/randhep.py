#!/usr/bin/python3
"""Random HEP001 files for the randomized conformance test (random_test.go).

    /usr/bin/python3 randhep.py OUTDIR SEED [SEED ...]

writes OUTDIR/randhep_SEED.h5 and OUTDIR/randhep_SEED.expected.json for each
seed. Run with Debian's Python (h5py 3.7 on libhdf5 1.10, numpy).

Each file holds one or more HEP001 tables (the root group, or groups nested
at random depths) whose every property is drawn at random from what a real
producer may write: libver bounds (so symbol-table, compact and dense
links; compact and dense attributes; v1 B-tree, single-chunk, implicit,
fixed-array and extensible-array chunk indexes), contiguous, compact and
chunked layouts with random chunk lengths, filters (deflate, shuffle,
fletcher32, scale-offset, n-bit, LZF, szip, chunks stored with their
filters skipped), columns written in appends, preallocated tails holding
garbage or nothing, every column type HEP001 allows with fills of every
kind, categoricals, row index columns, and the four search-index kinds of
section 10.

The expected JSON (the layout of shared/fixtures/*.expected.json, plus the
keys random_test.go reads) comes from the generator's own model of the
data: missing values as null, categoricals as codes plus labels, floats as
exact float64 values. It is never read back through h5fs. Before writing
it, the generator reopens the file with h5py and checks every column's
stored bytes against the model, so a difference found by the test is
h5fs's, not libhdf5's or the model's.

h5py on libhdf5 1.10 writes object references as H5T_STD_REF_OBJ, which
HEP001 section 5 deprecates: every table carries that (leniently accepted)
non-conformance, and h5fs reports it as warnings the test expects.
"""
import ctypes
import hashlib
import json
import math
import os
import random
import struct
import sys

import h5py
import numpy as np
from h5py import h5d, h5g, h5p, h5s, h5t, h5z

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "table", "testdata"))
from gen import murmur3_x64_128  # noqa: E402  (the repo's one MurmurHash3)

LIBHDF5 = ctypes.CDLL("libhdf5_serial.so.103")
REF = h5py.ref_dtype
BOOL_ENUM = h5py.enum_dtype({"FALSE": 0, "TRUE": 1}, basetype="i1")
SENTINEL = 9.9692099683868690e36
FILTER_LZF = 32000

INT_FILLS = {  # Table 1 of section 8.5
    ("i", 1): -127, ("i", 2): -32767, ("i", 4): -2147483647, ("i", 8): -9223372036854775807,
    ("u", 1): 255, ("u", 2): 65535, ("u", 4): 4294967295, ("u", 8): 18446744073709551615,
}

# Names: plain, unicode, spaces and characters CSV and file names must
# survive. Column names never begin with "_" (section 8.1).
NAME_POOL = ["energy", "ts", "run", "evt", "label", "x", "y", "pt", "eta", "phi", "charge", "flag", "det",
             "tag", "note", "hit", "blob", "w", "chan", "q", "Énergie", "größe", "наблюдение", "事件",
             "with space", "comma,name", 'quote"d', "dot.name", "semi;colon", "tab\tname", "new\nline",
             "a" * 40, "%percent", "..", "back\\slash", "µ", " lead", "trail ", "-dash", "#hash", "x.csv"]
WORDS = ["alpha", "beta", "gamma", "delta", "γάμμα", "εψ", "日本", "naïve", "x,y", 'say "hi"', "line\nbreak", "cr\rlf\r\n",
         "  lead", "mid dle", "tab\there", "émoji🙂", "a", "zz", "Z", "0", "-1", "nan", "NULL", "true", "#"]
ASCII_WORDS = [w for w in WORDS if w.isascii()]
GROUP_POOL = ["run1", "run2", "data", "analysis", "calib", "Ünïcode", "with space", "deep", "t", "events"]


def jfloat(x):
    """A float as JSON: exact, with NaN and the infinities as strings."""
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


# ---------------------------------------------------------------- HDF5 helpers


def str_type(size, cset="utf-8", pad="nullterm"):
    tid = h5t.C_S1.copy()
    tid.set_size(size)
    tid.set_cset(h5t.CSET_UTF8 if cset == "utf-8" else h5t.CSET_ASCII)
    tid.set_strpad({"nullterm": h5t.STR_NULLTERM, "nullpad": h5t.STR_NULLPAD, "spacepad": h5t.STR_SPACEPAD}[pad])
    return tid


def str_attr(obj, name, value, cset="utf-8", size=None):
    """A scalar fixed-length NULLTERM string attribute."""
    b = value.encode()
    size = size or len(b) + 1
    tid = str_type(size, cset)
    a = h5py.h5a.create(obj.id, name.encode(), tid, h5s.create(h5s.SCALAR))
    a.write(np.array(b, dtype="S%d" % size), mtype=tid)


def str_array_attr(obj, name, values):
    enc = [v.encode() for v in values]
    size = max(len(b) for b in enc) + 1
    tid = str_type(size)
    a = h5py.h5a.create(obj.id, name.encode(), tid, h5s.create_simple((len(enc),)))
    a.write(np.array(enc, dtype="S%d" % size), mtype=tid)


def set_fill_bytes(dcpl, tid, fill):
    """H5Pset_fill_value with the fill's exact bytes in the file type."""
    buf = ctypes.create_string_buffer(bytes(fill), len(fill))
    if LIBHDF5.H5Pset_fill_value(ctypes.c_int64(dcpl.id), ctypes.c_int64(tid.id), buf) < 0:
        raise RuntimeError("H5Pset_fill_value failed")


def ocpl_phase(plist, r, latest):
    """Random attribute storage thresholds: dense attributes even for a
    few (only with the 1.8+ object header)."""
    if latest and r.random() < 0.3:
        plist.set_attr_phase_change(0, 0)
    if latest and r.random() < 0.3:
        plist.set_attr_creation_order(h5p.CRT_ORDER_TRACKED | h5p.CRT_ORDER_INDEXED)


def make_group(parent, name, r, latest):
    """A group with random link storage (compact, dense, tracked order)."""
    if name == "/":
        return parent
    if name in parent:
        return parent[name]
    gcpl = h5p.create(h5p.GROUP_CREATE)
    gcpl.set_obj_track_times(False)
    ocpl_phase(gcpl, r, latest)
    if latest and r.random() < 0.4:
        gcpl.set_link_creation_order(h5p.CRT_ORDER_TRACKED | h5p.CRT_ORDER_INDEXED)
    if latest and r.random() < 0.3:
        LIBHDF5.H5Pset_link_phase_change(ctypes.c_int64(gcpl.id), ctypes.c_uint(0), ctypes.c_uint(0))
    gid = h5g.create(parent.id, name.encode(), gcpl=gcpl)
    return h5py.Group(gid)


# ---------------------------------------------------------------- column types
#
# A column type knows its file type (tid), the NumPy dtype of its stored
# elements (same bytes as the file; None for vlen strings), and turns a
# logical value into stored form, JSON, index key and Bloom bytes.


class CType:
    kind = ""
    orderable = True  # has a section 10.5 order (CHUNK_MINMAX, SORTED_ROWS)
    bloomable = True  # has a section 10.7 canonical form
    fixed = True  # fixed-width: a .raw view

    def dtype_json(self):
        return {}

    def stored_bytes(self, v):
        """The stored element of logical value v (file byte order)."""
        raise NotImplementedError

    def raw_le(self, v):
        """The packed little-endian element of .raw."""
        return self.stored_bytes(v)

    def key(self, v):
        return v

    def canon(self, v):
        return self.raw_le(v)

    def is_nan(self, v):
        return False

    def json(self, v):
        return v


class IntType(CType):
    def __init__(self, r, width=None, signed=None, order=None, precision=None):
        self.size = width or r.choice([1, 2, 4, 8])
        self.signed = r.random() < 0.5 if signed is None else signed
        self.order = order or ("<" if r.random() < 0.7 else ">")
        self.kind = "int"
        self.prec = precision or 8 * self.size
        self.offset = 0
        if precision is None and self.size > 1 and r.random() < 0.15:
            self.prec = r.randint(max(2, 8 * self.size - 12), 8 * self.size - 1)
            if not self.signed and r.random() < 0.4:
                self.offset = r.randint(1, 8 * self.size - self.prec)
        ch = "i" if self.signed else "u"
        self.np = np.dtype("%s%s%d" % (self.order, ch, self.size))
        base = {(1, True): h5t.STD_I8LE, (2, True): h5t.STD_I16LE, (4, True): h5t.STD_I32LE,
                (8, True): h5t.STD_I64LE, (1, False): h5t.STD_U8LE, (2, False): h5t.STD_U16LE,
                (4, False): h5t.STD_U32LE, (8, False): h5t.STD_U64LE}[(self.size, self.signed)]
        self.tid = base.copy()
        if self.order == ">":
            self.tid.set_order(h5t.ORDER_BE)
        if self.prec != 8 * self.size:
            self.tid.set_precision(self.prec)
            self.tid.set_offset(self.offset)

    @property
    def lo(self):
        return -(1 << (self.prec - 1)) if self.signed else 0

    @property
    def hi(self):
        return (1 << (self.prec - 1)) - 1 if self.signed else (1 << self.prec) - 1

    def bits(self, v):
        return ((v & ((1 << self.prec) - 1)) << self.offset)

    def stored_bytes(self, v):
        return self.bits(v).to_bytes(self.size, "little" if self.order == "<" else "big")

    def raw_le(self, v):
        # the value as libhdf5 reads it (shifted down, sign-extended), at
        # the storage width: <col>.raw packs like <dataset>.raw
        return self.canon(v)

    def canon(self, v):
        # section 10.7: the value's two's complement at the storage width
        return (v & ((1 << (8 * self.size)) - 1)).to_bytes(self.size, "little")

    def dtype_json(self):
        return {"class": "integer", "size": self.size, "signed": self.signed, "order": "BE" if self.order == ">" else "LE",
                "precision": self.prec, "offset": self.offset}


class FloatType(CType):
    kind = "float"
    scaleoffset_ok = False  # the values survive D-scale scale-offset

    def __init__(self, r, width=None):
        self.size = width or r.choice([2, 4, 4, 8, 8])
        self.order = "<" if r.random() < 0.7 else ">"
        self.np = np.dtype("%sf%d" % (self.order, self.size))
        self.tid = h5t.py_create(self.np)
        self.fnp = np.dtype("f%d" % self.size)

    def round(self, x):
        """x rounded to the column's width (a Python float)."""
        with np.errstate(over="ignore"):
            return float(np.array(x, dtype=self.fnp))

    def stored_bytes(self, v):
        # v is a float, or ("nan", bits) for a NaN with a given payload
        if isinstance(v, tuple):
            return v[1].to_bytes(self.size, "little" if self.order == "<" else "big")
        return np.array(v, dtype=self.np).tobytes()

    def raw_le(self, v):
        b = self.stored_bytes(v)
        return b[::-1] if self.order == ">" else b

    def val(self, v):
        return float("nan") if isinstance(v, tuple) else v

    def key(self, v):
        x = self.val(v)
        return 0.0 if x == 0 else x

    def canon(self, v):
        x = self.val(v)
        return bytes(self.size) if x == 0 else self.raw_le(v)

    def is_nan(self, v):
        return math.isnan(self.val(v))

    def json(self, v):
        return jfloat(self.val(v))

    def dtype_json(self):
        return {"class": "float", "size": self.size, "order": "BE" if self.order == ">" else "LE"}

    def nan_bits(self, r):
        """A random NaN bit pattern (quiet or signalling, either sign)."""
        e, m = {2: (5, 10), 4: (8, 23), 8: (11, 52)}[self.size]
        mant = r.randint(1, (1 << m) - 1)
        if r.random() < 0.5:
            mant = 1 << (m - 1)  # the canonical quiet NaN
        sign = r.random() < 0.3
        return (int(sign) << (8 * self.size - 1)) | (((1 << e) - 1) << m) | mant


def full_int(r, width=None, signed=None):
    """A random integer type of full precision (no n-bit packing)."""
    t = IntType(r, width=width, signed=signed)
    return IntType(r, width=t.size, signed=t.signed, order=t.order, precision=8 * t.size)


class Bool8Type(IntType):
    def __init__(self, r):
        super().__init__(r, width=1, signed=False, order="<", precision=8)
        self.kind = "bool8"

    def json(self, v):
        return v


class EnumType(CType):
    kind = "enum"
    bloomable = False

    def __init__(self, r):
        self.base = full_int(r)
        self.size = self.base.size
        self.np = np.dtype("V%d" % self.size)
        n = r.randint(1, 6)
        names = r.sample(["RED", "GREEN", "BLUE", "Up", "down", "Ünïcode", "with space", "a,b", 'q"uote', "x" * 20,
                          "TRUE", "FALSE", "NaN", "0", "ζ"], n)
        lo, hi = max(self.base.lo, -1000), min(self.base.hi, 1000)
        codes = r.sample(range(lo, hi + 1), n + 1)
        self.members = list(zip(names, codes[:n]))
        self.missing_code = codes[n]
        self.tid = h5t.enum_create(self.base.tid)
        decl = self.members + [("MISSING", self.missing_code)]
        r.shuffle(decl)
        for name, code in decl:
            self.tid.enum_insert(name.encode(), code)
        self.decl = decl
        self.by_name = dict(decl)

    def stored_bytes(self, v):
        return self.base.stored_bytes(self.by_name[v])

    def raw_le(self, v):
        return self.base.raw_le(self.by_name[v])

    def key(self, v):
        return self.by_name[v]

    def dtype_json(self):
        return {"class": "enum", "size": self.size, "base": self.base.dtype_json(), "members": self.decl}


class FixedStrType(CType):
    kind = "fstr"

    def __init__(self, r, size=None, cset=None, pad=None):
        self.size = size or r.choice([1, 2, 3, 5, 8, 12, 16, 24])
        self.cset = cset or r.choice(["ascii", "utf-8"])
        self.pad = pad or r.choice(["nullterm", "nullpad", "spacepad"])
        self.tid = str_type(self.size, self.cset, self.pad)
        self.np = np.dtype("S%d" % self.size)

    def padchar(self):
        return b" " if self.pad == "spacepad" else b"\0"

    def fit(self, s):
        """s cut to fit the element (whole characters), valid under the
        padding (SPACEPAD values do not end in a space)."""
        b = s.encode()
        while len(b) > self.size:
            s = s[:-1]
            b = s.encode()
        if self.pad == "spacepad":
            s = s.rstrip(" ")
        return s

    def stored_bytes(self, v):
        return v.encode().ljust(self.size, self.padchar())

    def key(self, v):
        return v.encode()

    def canon(self, v):
        return v.encode()

    def dtype_json(self):
        return {"class": "string", "size": self.size, "strpad": self.pad.upper(), "cset": self.cset.upper()}


class VlenStrType(CType):
    kind = "vstr"
    fixed = False

    def __init__(self, r, cset=None):
        self.cset = cset or r.choice(["ascii", "utf-8", "utf-8"])
        self.tid = h5t.py_create(h5py.string_dtype("utf-8" if self.cset == "utf-8" else "ascii"), logical=True)
        self.np = None

    def key(self, v):
        return v.encode()

    def canon(self, v):
        return v.encode()

    def dtype_json(self):
        return {"class": "string", "size": "variable", "cset": self.cset.upper()}


class OpaqueType(CType):
    kind = "opaque"

    def __init__(self, r):
        self.size = r.randint(1, 12)
        self.tid = h5t.create(h5t.OPAQUE, self.size)
        self.tag = r.choice(["hep001:blob", "raw bytes", "ü-tag", "t"])
        self.tid.set_tag(self.tag.encode())
        self.np = np.dtype("V%d" % self.size)

    def stored_bytes(self, v):
        return v

    def json(self, v):
        return v.hex()

    def dtype_json(self):
        return {"class": "opaque", "size": self.size, "tag": self.tag}


class CompoundType(CType):
    kind = "compound"
    orderable = False
    bloomable = False

    def __init__(self, r):
        n = r.randint(1, 4)
        names = r.sample(["x", "y", "z", "id", "weight", "Ä", "n,m", "t"], n)
        # full-precision integer fields and IEEE floats
        self.fields = [(nm, full_int(r) if r.random() < 0.5 else FloatType(r)) for nm in names]
        self.offsets = []
        off = 0
        for nm, t in self.fields:
            if r.random() < 0.3:
                off += r.randint(1, 3)  # padding between fields
            self.offsets.append(off)
            off += t.size
        self.size = off + (r.randint(0, 3) if r.random() < 0.3 else 0)
        self.tid = h5t.create(h5t.COMPOUND, self.size)
        for (nm, t), o in zip(self.fields, self.offsets):
            self.tid.insert(nm.encode(), o, t.tid)
        self.np = np.dtype("V%d" % self.size)

    def stored_bytes(self, v):
        b = bytearray(self.size)
        for (nm, t), o, x in zip(self.fields, self.offsets, v):
            b[o:o + t.size] = t.stored_bytes(x)
        return bytes(b)

    def raw_le(self, v):
        return b"".join(t.raw_le(x) for (nm, t), x in zip(self.fields, v))

    def key(self, v):
        return self.stored_bytes(v)

    def json(self, v):
        return {nm: t.json(x) for (nm, t), x in zip(self.fields, v)}

    def dtype_json(self):
        return {"class": "compound", "size": self.size,
                "fields": [{"name": nm, "offset": o, "type": t.dtype_json()} for (nm, t), o in zip(self.fields, self.offsets)]}


class ArrayType(CType):
    kind = "array"
    orderable = False
    bloomable = False

    def __init__(self, r):
        self.base = full_int(r) if r.random() < 0.5 else FloatType(r)
        self.n = r.randint(1, 4)
        self.size = self.n * self.base.size
        self.tid = h5t.array_create(self.base.tid, (self.n,))
        self.np = np.dtype("V%d" % self.size)

    def stored_bytes(self, v):
        return b"".join(self.base.stored_bytes(x) for x in v)

    def raw_le(self, v):
        return b"".join(self.base.raw_le(x) for x in v)

    def key(self, v):
        return self.stored_bytes(v)

    def json(self, v):
        return [self.base.json(x) for x in v]

    def dtype_json(self):
        return {"class": "array", "size": self.size, "dims": [self.n], "base": self.base.dtype_json()}


# ---------------------------------------------------------------- column values


class Column:
    """One column: its type, fill, the logical values of rows [0, extent)
    (the tail is garbage or unwritten) and what is missing."""

    def __init__(self, name, ct):
        self.name = name
        self.ct = ct
        self.kind = ct.kind
        self.fill = None  # logical fill value; None: no fill value (non-conformant)
        self.fill_nan = False
        self.values = []  # logical values of rows [0, nrows)
        self.missing = []
        self.tail = None  # logical values of rows [nrows, extent) written as garbage, or None
        self.valid = None  # (min, max) logical values
        self.attrs = {}
        self.cats = None  # categorical: the Categories it indexes
        self.indexes = []  # expected search-index entries
        self.findings = []

    def is_missing(self, v):
        if self.fill is None:
            return False
        if self.fill_nan:
            return self.ct.is_nan(v)
        if not self.ct.fixed:
            return v == self.fill
        return self.ct.stored_bytes(v) == self.ct.stored_bytes(self.fill)


def int_value(r, t, lo, hi):
    """A random integer in [lo, hi], biased towards edges and small values."""
    x = r.random()
    if x < 0.1:
        return lo
    if x < 0.2:
        return hi
    if x < 0.6:
        return max(lo, min(hi, r.randint(-100, 100)))
    return r.randint(lo, hi)


def gen_int(r, col, n, t):
    """Values of an integer column (also bool8, categorical codes)."""
    rec = INT_FILLS.get(("i" if t.signed else "u", t.size))
    lo, hi = t.lo, t.hi
    fill_kind = r.random()
    if t.prec != 8 * t.size or fill_kind < 0.35:
        # a fill at one end of the range, the values inside the rest
        col.fill = lo if t.signed or r.random() < 0.3 else hi
        if col.fill == lo:
            lo += 1
        else:
            hi -= 1
        if t.prec == 8 * t.size and col.fill != rec:
            col.valid = (lo, hi)
    elif fill_kind < 0.75 and t.prec == 8 * t.size:
        col.fill = rec  # Table 1: outside every value drawn below
        if t.signed:
            lo = rec + 1
        else:
            hi = rec - 1
        if r.random() < 0.3:
            a, b = sorted([int_value(r, t, lo, hi), int_value(r, t, lo, hi)])
            col.valid, lo, hi = (a, b), a, b
    else:
        # any fill, outside a declared [valid_min, valid_max]
        a, b = sorted([int_value(r, t, t.lo, t.hi), int_value(r, t, t.lo, t.hi)])
        outside = [x for x in (a - 1, b + 1) if t.lo <= x <= t.hi]
        if not outside:
            a += 1
            outside = [a - 1]
        col.fill = r.choice(outside)
        col.valid, lo, hi = (a, b), a, b
    pmiss = r.choice([0, 0.05, 0.3, 1.0]) if r.random() < 0.9 else 0
    vals = []
    for _ in range(n):
        vals.append(col.fill if r.random() < pmiss else int_value(r, t, lo, hi))
    return vals


def gen_float(r, col, n, t):
    if t.size > 2 and r.random() < 0.15:
        # whole numbers and a non-NaN fill: what the lossy D-scale
        # scale-offset filter keeps exactly
        t.scaleoffset_ok = True
        col.fill = t.round(SENTINEL)
        pmiss = r.choice([0, 0.1, 1.0])
        return [col.fill if r.random() < pmiss else float(r.randint(-1000, 1000)) for _ in range(n)]
    specials = [float("inf"), float("-inf"), -0.0, 0.0]
    big = {2: 65504.0, 4: 3.4028234663852886e38, 8: 1.7976931348623157e308}[t.size]
    tiny = {2: 5.960464477539063e-08, 4: 1.401298464324817e-45, 8: 5e-324}[t.size]
    specials += [big, -big, tiny, -tiny]
    fk = r.random()
    with_range = False
    if fk < 0.35 and t.size > 2:
        col.fill = t.round(SENTINEL)
    elif fk < 0.65:
        col.fill = ("nan", t.nan_bits(r))
        col.fill_nan = True
    else:
        col.fill = t.round(r.choice([-9999.0, -1.0, 65504.0 if t.size == 2 else 1e30, -big]))
        with_range = True
    pnan = r.choice([0, 0.05])
    pmiss = r.choice([0, 0.05, 0.3, 1.0]) if r.random() < 0.9 else 0
    lo, hi = -1000.0, 1000.0
    if with_range:
        if col.fill > 0:
            lo, hi = -1000.0, min(1000.0, col.fill / 2)
        else:
            lo, hi = max(-1000.0, col.fill / 2) if col.fill > -1000 else -100.0, 1000.0
            if col.fill >= lo:
                lo = col.fill + 1
        col.valid = (t.round(lo), t.round(hi))
    vals = []
    for _ in range(n):
        x = r.random()
        if x < pmiss:
            vals.append(col.fill)
        elif x < pmiss + pnan and not col.fill_nan:
            vals.append(("nan", t.nan_bits(r)))
        elif x < pmiss + pnan + 0.05 and not with_range:
            v = t.round(r.choice(specials))
            vals.append(v)
        else:
            v = t.round(r.uniform(lo, hi) if r.random() < 0.7 else r.randint(int(lo), int(hi)))
            vals.append(v)
    # values must not collide with a non-NaN fill unless missing
    if not col.fill_nan:
        vals = [col.fill if (v == col.fill and not isinstance(v, tuple)) else v for v in vals]
    return vals


def random_word(r, ascii_only):
    pool = ASCII_WORDS if ascii_only else WORDS
    w = r.choice(pool)
    if r.random() < 0.3:
        w += str(r.randint(0, 999))
    return w


def gen_fstr(r, col, n, t):
    ascii_only = t.cset == "ascii"
    words = sorted({t.fit(random_word(r, ascii_only)) for _ in range(r.randint(1, 12))})
    col.fill = t.fit(r.choice(["", "", "?", "N/A", "<NA>"]))
    words = [w for w in words if w != col.fill]
    if col.fill != "" and r.random() < 0.5:
        words.append("")  # the empty string is a value when it is not the fill
    if not words:
        words = ["v"]
    pmiss = r.choice([0, 0.1, 0.3, 1.0])
    return [col.fill if r.random() < pmiss else r.choice(words) for _ in range(n)]


def gen_vstr(r, col, n, t):
    ascii_only = t.cset == "ascii"
    col.fill = r.choice(["", "<NA>", "N/A"])
    words = sorted({random_word(r, ascii_only) for _ in range(r.randint(1, 20))} - {col.fill})
    if col.fill != "":
        words.append("")
    if r.random() < 0.3:
        words.append(("long %d " % r.randint(0, 9)) * r.randint(10, 200))
    pmiss = r.choice([0, 0.1, 0.3])
    return [col.fill if r.random() < pmiss else r.choice(words) for _ in range(n)]


def gen_enum(r, col, n, t):
    col.fill = "MISSING"
    names = [m for m, _ in t.members]
    pmiss = r.choice([0, 0.1, 0.5])
    return ["MISSING" if r.random() < pmiss else r.choice(names) for _ in range(n)]


def gen_opaque(r, col, n, t):
    col.fill = bytes([r.choice([0, 255])]) * t.size
    pool = [bytes(r.randint(0, 255) for _ in range(t.size)) for _ in range(r.randint(1, 8))]
    pool = [p for p in pool if p != col.fill] or [bytes([1]) * t.size]
    pmiss = r.choice([0, 0.1])
    return [col.fill if r.random() < pmiss else r.choice(pool) for _ in range(n)]


def field_value(r, t):
    if isinstance(t, FloatType):
        return t.round(r.choice([r.uniform(-10, 10), r.randint(-5, 5), 0.5]))
    return int_value(r, t, max(t.lo, -1000), min(t.hi, 1000))


def field_fill(t):
    if isinstance(t, FloatType):
        return t.round(SENTINEL) if t.size > 2 else 65504.0
    return INT_FILLS[("i" if t.signed else "u", t.size)]


def gen_compound(r, col, n, t):
    col.fill = tuple(field_fill(ft) for _, ft in t.fields)
    pool = [tuple(field_value(r, ft) for _, ft in t.fields) for _ in range(r.randint(1, 6))]
    pool = [p for p in pool if p != col.fill]
    pmiss = r.choice([0, 0.1])
    return [col.fill if r.random() < pmiss or not pool else r.choice(pool) for _ in range(n)]


def gen_array(r, col, n, t):
    col.fill = tuple(field_fill(t.base) for _ in range(t.n))
    pool = [tuple(field_value(r, t.base) for _ in range(t.n)) for _ in range(r.randint(1, 6))]
    pool = [p for p in pool if p != col.fill]
    pmiss = r.choice([0, 0.1])
    return [col.fill if r.random() < pmiss or not pool else r.choice(pool) for _ in range(n)]


def gen_bool8(r, col, n, t):
    col.fill = 2
    if r.random() < 0.2:
        col.fill = r.choice([2, 3, 255])
        col.valid = (0, 1)
    pmiss = r.choice([0, 0.1, 0.5])
    return [col.fill if r.random() < pmiss else r.randint(0, 1) for _ in range(n)]


class Categories:
    def __init__(self, r, name):
        self.name = name
        self.kind = r.choice(["vstr", "vstr", "fstr", "int", "float"])
        k = r.choice([1, 2, 3, 5, 8, 40])
        if self.kind == "float":
            self.type = FloatType(r, width=r.choice([4, 8]))
            self.labels = sorted({self.type.round(r.randint(-4000, 4000) / 4) for _ in range(k)})
        elif self.kind == "int":
            self.labels = r.sample(range(-10000, 10000), k)
            self.type = full_int(r, width=r.choice([2, 4, 8]), signed=True)
        else:
            self.labels = sorted({random_word(r, self.kind == "fstr") + str(i) for i in range(k)})
            if self.kind == "fstr":
                size = max(len(s.encode()) for s in self.labels) + r.choice([0, 1, 4])
                self.type = FixedStrType(r, size=size, cset="ascii", pad=r.choice(["nullterm", "nullpad"]))
            else:
                self.type = VlenStrType(r, cset="utf-8")
        self.ordered = r.choice([True, False, None])
        self.path = None


def gen_cat(r, col, n, t, cats):
    k = len(cats.labels)
    if t.signed:
        col.fill = r.choice([-1, t.lo])
    else:
        col.fill = t.hi
    if not (t.lo <= k - 1 <= t.hi) or (not t.signed and k - 1 >= t.hi):
        raise ValueError("too many categories for the code type")
    pmiss = r.choice([0, 0.1, 0.4])
    return [col.fill if r.random() < pmiss else r.randint(0, k - 1) for _ in range(n)]


def garbage(r, col, n):
    """n values for a preallocated tail: anything, including values that
    look valid, and the fill."""
    ct = col.ct
    out = []
    for _ in range(n):
        if isinstance(ct, EnumType):
            out.append(r.choice([m for m, _ in ct.decl]))
        elif isinstance(ct, FloatType) and ct.scaleoffset_ok:
            out.append(float(r.randint(-1000, 1000)))  # what scale-offset keeps (float32 math)
        elif isinstance(ct, FloatType):
            out.append(ct.round(r.uniform(-1e6, 1e6)))
        elif isinstance(ct, IntType):
            out.append(r.randint(ct.lo, ct.hi))
        elif isinstance(ct, FixedStrType):
            out.append(ct.fit("junk%d" % r.randint(0, 99)))
        elif isinstance(ct, VlenStrType):
            out.append("garbage %d" % r.randint(0, 99))
        elif isinstance(ct, OpaqueType):
            out.append(bytes([r.randint(0, 255)]) * ct.size)
        else:
            out.append(col.values[0] if col.values else col.fill)
    return out


# ---------------------------------------------------------------- writing columns


def write_rows(dsid, ct, start, vals):
    """Writes logical values vals at rows [start, start+len) with no
    conversion: the bytes stored are the model's."""
    if not vals:
        return
    if ct.np is None:
        # h5py's own conversion of Python strings to vlen strings
        arr = np.array([v.encode() if ct.cset == "ascii" else v for v in vals], dtype=object)
        h5py.Dataset(dsid)[start:start + len(vals)] = arr
        return
    fspace = dsid.get_space()
    fspace.select_hyperslab((start,), (len(vals),))
    mspace = h5s.create_simple((len(vals),))
    buf = b"".join(ct.stored_bytes(v) for v in vals)
    arr = np.frombuffer(buf, dtype="V%d" % len(ct.stored_bytes(vals[0]))).copy()
    dsid.write(mspace, fspace, arr, mtype=ct.tid)


class Layout:
    def __init__(self, r, ct, nrows, extent, latest, allow_compact=True):
        self.kind = "chunked"
        x = r.random()
        size = ct.size if ct.fixed else 16
        if x < 0.15 and allow_compact and extent * size < 30000:
            self.kind = "compact"
        elif x < 0.35:
            self.kind = "contiguous"
        self.chunk = None
        self.maxshape = extent
        self.filters = []
        self.alloc_early = False
        self.masked_chunks = False
        self.append = False
        if self.kind != "chunked":
            return
        c = r.random()
        if c < 0.2:
            self.chunk = r.randint(1, 8)
        elif c < 0.5:
            self.chunk = r.randint(1, 200)
        elif c < 0.8:
            self.chunk = r.randint(100, 5000)
        else:
            self.chunk = max(1, extent + r.choice([0, 0, 1, 17]))
        if r.random() < 0.6:
            self.maxshape = None
        elif r.random() < 0.3:
            self.maxshape = extent + r.randint(1, 100)
        if self.maxshape == 0:
            self.maxshape = None
        if self.maxshape is not None:
            self.chunk = min(self.chunk, self.maxshape)
        self.filters = self.pick_filters(r, ct)
        # (libhdf5 1.10 corrupts partial rewrites of early-allocated
        # chunks whose LZF filter was skipped or that szip compresses)
        if r.random() < 0.3 and not (self.maxshape is None and self.chunk < 20) and \
                not {"lzf", "szip"} & set(self.filters):
            self.alloc_early = True
        if self.maxshape is None and r.random() < 0.5:
            self.append = True
        if not self.append and not self.alloc_early and "deflate" in self.filters and \
                all(f in ("deflate", "shuffle") for f in self.filters) and r.random() < 0.3:
            self.masked_chunks = True

    def pick_filters(self, r, ct):
        if r.random() < 0.35:
            return []
        cands = ["deflate", "shuffle", "lzf"]
        if ct.fixed:
            cands.append("fletcher32")
        if isinstance(ct, IntType):
            cands += ["scaleoffset", "nbit", "szip"]
        if isinstance(ct, FloatType):
            cands += ["szip", "nbit"] + (["scaleoffset"] if ct.scaleoffset_ok else [])
        if isinstance(ct, (CompoundType, ArrayType)):
            cands += ["nbit"]
        fs = r.sample(cands, r.randint(1, min(3, len(cands))))
        # libhdf5 1.10 fails on scale-offset after n-bit, and on szip
        # together with either; szip needs a block of pixels per chunk
        if "scaleoffset" in fs and ("nbit" in fs or "szip" in fs):
            fs.remove("scaleoffset")
        if "szip" in fs and "nbit" in fs:
            fs.remove("nbit")
        if "szip" in fs and (isinstance(ct, IntType) and ct.prec != 8 * ct.size or self.chunk < 2):
            fs.remove("szip")
        # the type-aware filters come first, as their set_local expects
        for f in ("szip", "nbit", "scaleoffset"):
            if f in fs:
                fs.remove(f)
                fs.insert(0, f)
        return fs

    def describe(self):
        d = {"type": self.kind, "maxshape": self.maxshape}
        if self.kind == "chunked":
            d.update(chunks=[self.chunk], filters=self.filters, alloc_early=self.alloc_early, append=self.append,
                     masked_chunks=self.masked_chunks)
        return d


def create_column(g, col, nrows, extent, lay, r):
    ct = col.ct
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_obj_track_times(r.random() < 0.2)
    ocpl_phase(dcpl, r, g.file.libver[0] != "earliest")
    if lay.kind == "compact":
        dcpl.set_layout(h5d.COMPACT)
    elif lay.kind == "contiguous":
        dcpl.set_layout(h5d.CONTIGUOUS)
    else:
        dcpl.set_chunk((lay.chunk,))
        for f in lay.filters:
            if f == "deflate":
                dcpl.set_deflate(r.randint(0, 9))
            elif f == "shuffle":
                dcpl.set_shuffle()
            elif f == "fletcher32":
                dcpl.set_fletcher32()
            elif f == "lzf":
                dcpl.set_filter(FILTER_LZF, h5z.FLAG_OPTIONAL)
            elif f == "scaleoffset" and isinstance(ct, FloatType):
                dcpl.set_scaleoffset(h5z.SO_FLOAT_DSCALE, r.randint(0, 2))
            elif f == "scaleoffset":
                dcpl.set_scaleoffset(h5z.SO_INT, 0)  # the bits the values need
            elif f == "nbit":
                dcpl.set_filter(h5z.FILTER_NBIT)
            elif f == "szip":
                ppb = r.choice([p for p in (2, 4, 8, 16, 32) if p <= lay.chunk])
                dcpl.set_szip(r.choice([h5z.SZIP_NN_OPTION_MASK, h5z.SZIP_EC_OPTION_MASK]), ppb)
        if lay.alloc_early:
            dcpl.set_alloc_time(h5d.ALLOC_TIME_EARLY)
    if r.random() < 0.2:
        # (never filling is not allowed for vlen data)
        dcpl.set_fill_time(r.choice([h5d.FILL_TIME_NEVER, h5d.FILL_TIME_ALLOC]) if ct.fixed else h5d.FILL_TIME_ALLOC)
    if col.fill is not None:
        if ct.np is None:
            fv = col.fill.encode() if ct.cset == "ascii" else col.fill
            dcpl.set_fill_value(np.array(fv, dtype=h5py.string_dtype("ascii" if ct.cset == "ascii" else "utf-8")))
        else:
            set_fill_bytes(dcpl, ct.tid, ct.stored_bytes(col.fill))
    start_extent = 0 if lay.append else extent
    maxdim = h5s.UNLIMITED if lay.maxshape is None else lay.maxshape
    space = h5s.create_simple((start_extent,), (maxdim,))
    dsid = h5d.create(g.id, col.name.encode(), ct.tid, space, dcpl=dcpl)
    rows = col.values + (col.tail or [])
    if lay.append:
        # an appender: extend, write, repeat; then preallocate
        pos = 0
        while pos < nrows:
            k = min(nrows - pos, r.randint(1, max(1, nrows // 3 + 1)))
            dsid.set_extent((pos + k,))
            write_rows(dsid, ct, pos, rows[pos:pos + k])
            pos += k
        dsid.set_extent((extent,))
        if col.tail:
            write_rows(dsid, ct, nrows, col.tail)
    else:
        masked = set()
        if lay.masked_chunks and ct.np is not None:
            # some chunks stored with every filter skipped (filter mask
            # set), as writers of incompressible chunks do; written before
            # anything else (libhdf5 1.10 keeps the old mask when it
            # rewrites a chunk of the same size in place)
            nfilt = len(lay.filters)
            for ch in range(0, len(rows), lay.chunk):
                if r.random() < 0.5:
                    part = rows[ch:ch + lay.chunk]
                    data = b"".join(ct.stored_bytes(v) for v in part)
                    data += bytes(lay.chunk * ct.size - len(data))
                    dsid.write_direct_chunk((ch,), data, (1 << nfilt) - 1)
                    masked.add(ch)
        # the other rows, in a few writes
        segs, a = [], 0
        for ch in sorted(masked) + [len(rows)]:
            if a < ch:
                segs.append((a, ch))
            a = ch + lay.chunk if ch < len(rows) else ch
        for a, b in segs:
            cuts = sorted(r.sample(range(a + 1, b), min(b - a - 1, r.randint(0, 2)))) if b - a > 1 else []
            bounds = [a] + cuts + [b]
            for x, y in zip(bounds, bounds[1:]):
                write_rows(dsid, ct, x, rows[x:y])
    return h5py.Dataset(dsid)


# ---------------------------------------------------------------- search indexes


def chunk_spans(nrows, length):
    return [(s, min(s + length, nrows)) for s in range(0, nrows, length)] if nrows else []


def index_model(col):
    ct = col.ct
    keys = [ct.key(v) for v in col.values]
    nan = [ct.is_nan(v) for v in col.values]
    return keys, list(col.missing), nan


def minmax_entries(col, length):
    keys, missing, nan = index_model(col)
    out = []
    for s, e in chunk_spans(len(keys), length):
        ok = [i for i in range(s, e) if not missing[i] and not nan[i]]
        if ok:
            lo = min(ok, key=lambda i: (keys[i], i))
            hi = max(ok, key=lambda i: (keys[i], -i))
            mn, mx = col.values[lo], col.values[hi]
        else:
            mn = mx = col.fill
        out.append((mn, mx, sum(nan[s:e]), sum(missing[s:e]), e - s))
    return out


def sorted_perm(col):
    keys, missing, nan = index_model(col)
    n = len(keys)
    body = sorted((i for i in range(n) if not missing[i] and not nan[i]), key=lambda i: (keys[i], i))
    fills = [i for i in range(n) if missing[i] and not nan[i]]
    nans = [i for i in range(n) if nan[i]]
    return body + fills + nans, len(nans), len(fills)


def bloom_rows(col, length, k, m_bits, seed):
    ct = col.ct
    out = []
    for s, e in chunk_spans(len(col.values), length):
        f = bytearray(m_bits // 8)
        for i in range(s, e):
            if col.missing[i] or ct.is_nan(col.values[i]):
                continue
            ha, hb = murmur3_x64_128(ct.canon(col.values[i]), seed)
            for j in range(k):
                g = (ha + j * hb) % m_bits
                f[g >> 3] |= 1 << (g & 7)
        out.append(bytes(f))
    return out


def write_values_ds(si, name, ct, vals, r):
    """A dataset of logical values vals in the column's own type."""
    dcpl = h5p.create(h5p.DATASET_CREATE)
    dcpl.set_obj_track_times(False)
    if r.random() < 0.5 and vals:
        dcpl.set_chunk((r.randint(1, len(vals) + 3),))
        maxdim = h5s.UNLIMITED
    else:
        maxdim = len(vals)
    dsid = h5d.create(si.id, name.encode(), ct.tid, h5s.create_simple((len(vals),), (maxdim,)), dcpl=dcpl)
    write_rows(dsid, ct, 0, vals)
    return h5py.Dataset(dsid)


def index_dataset(si, name, data, r):
    """A search-index dataset of array data, contiguous or chunked."""
    kw = {}
    if data.size and r.random() < 0.5:
        kw["chunks"] = tuple(max(1, min(d, r.randint(1, 64))) for d in data.shape)
        kw["maxshape"] = (None,) + data.shape[1:]
        if r.random() < 0.5:
            kw["compression"] = "gzip"
    return si.create_dataset(name, data=data, track_times=False, **kw)


def write_minmax(si, name, col, length, nrows, r, tamper):
    """A CHUNK_MINMAX index; tamper swaps the min and max of one entry
    (tampered is then True)."""
    ct = col.ct
    ents = minmax_entries(col, length)
    stale = r.choice([0, 0, 1, 3]) if ents or r.random() < 0.5 else 0
    rows = ents + [(col.fill, col.fill, 7, 7, 7)] * stale
    tampered = False
    swappable = [i for i, e in enumerate(ents) if e[3] + e[2] < e[4] and ct.key(e[0]) != ct.key(e[1])]
    if tamper and swappable:
        i = r.choice(swappable)
        mn, mx, a, b, c = rows[i]
        rows[i] = (mx, mn, a, b, c)
        tampered = True
    if ct.np is None:
        dt = np.dtype([("min", h5py.string_dtype()), ("max", h5py.string_dtype()), ("nan_count", "<u8"),
                       ("fill_count", "<u8"), ("n", "<u8")])
        arr = np.array([(a, b, c, d, e) for a, b, c, d, e in rows], dtype=dt)
        ds = si.create_dataset(name, data=arr, track_times=False)
    else:
        size = 2 * ct.size + 24
        tid = h5t.create(h5t.COMPOUND, size)
        tid.insert(b"min", 0, ct.tid)
        tid.insert(b"max", ct.size, ct.tid)
        for i, f in enumerate([b"nan_count", b"fill_count", b"n"]):
            tid.insert(f, 2 * ct.size + 8 * i, h5t.STD_U64LE)
        buf = b"".join(ct.stored_bytes(a) + ct.stored_bytes(b) + struct.pack("<QQQ", c, d, e) for a, b, c, d, e in rows)
        dcpl = h5p.create(h5p.DATASET_CREATE)
        dcpl.set_obj_track_times(False)
        maxdim = len(rows)
        if rows and r.random() < 0.5:
            dcpl.set_chunk((r.randint(1, len(rows) + 2),))
            maxdim = h5s.UNLIMITED
        dsid = h5d.create(si.id, name.encode(), tid, h5s.create_simple((len(rows),), (maxdim,)), dcpl=dcpl)
        if rows:
            dsid.write(h5s.ALL, h5s.ALL, np.frombuffer(buf, dtype="V%d" % size).copy(), mtype=tid)
        ds = h5py.Dataset(dsid)
    return ds, tampered, {"chunk_length": length, "n_entries": len(ents), "stored_length": len(rows),
                          "entries": [{"min": ct.json(a), "max": ct.json(b), "nan_count": c, "fill_count": d, "n": e}
                                      for a, b, c, d, e in ents]}


def write_indexes(g, col, nrows, lay, r, names_used, findings):
    """Random search indexes on col, per section 10. A few are tampered
    with, each one's expected finding added to findings."""
    ct = col.ct
    kinds = []
    if ct.orderable:
        kinds += ["CHUNK_MINMAX", "SORTED_ROWS"]
    kinds.append("BITMAP")
    if ct.bloomable and not isinstance(ct, EnumType):
        kinds.append("CHUNK_BLOOM")
    if isinstance(ct, FloatType) and any(math.isnan(ct.val(v)) or v == 0 for v in col.values):
        kinds.remove("BITMAP")  # equality of NaN and -0 is not what a bitmap is for
    if isinstance(ct, (CompoundType, ArrayType)) and any(
            isinstance(x, float) and (x == 0 or math.isnan(x)) for v in col.values for x in v):
        kinds.remove("BITMAP")
    if not kinds:
        return []
    chosen = r.sample(kinds, r.randint(1, len(kinds)))
    if r.random() < 0.1:
        chosen.append("ZONE_MAP")  # a KIND from the future: ignored
    si = g.require_group("SEARCH_INDEXES")
    length = lay.chunk if lay.kind == "chunked" else max(nrows, 1)
    refs, exp = [], []
    for kind in chosen:
        name = "%s__%s" % (col.name, kind.lower())
        if r.random() < 0.3 or name in names_used:
            name = "idx%d_%s" % (len(names_used), kind.lower())
        names_used.add(name)
        e = {"name": name, "path": si.name + "/" + name, "kind": kind, "column": col.name}
        tamper, tampered = r.random() < 0.08, False
        if kind == "CHUNK_MINMAX":
            ds, tampered, extra = write_minmax(si, name, col, length, nrows, r, tamper)
            e.update(extra)
        elif kind == "SORTED_ROWS":
            perm, nt, ft = sorted_perm(col)
            keys = [ct.key(v) for v in col.values]
            body = len(perm) - nt - ft
            swappable = [i for i in range(body - 1) if keys[perm[i]] != keys[perm[i + 1]]]
            if tamper and swappable:
                i = r.choice(swappable)
                perm = perm[:i] + [perm[i + 1], perm[i]] + perm[i + 2:]
                tampered = True
            dt = r.choice(["<u8", "<u8", "<u4", ">u4", ">u8"])
            ds = index_dataset(si, name, np.array(perm, dtype=dt), r)
            ds.attrs.create("nan_tail_length", np.uint64(nt))
            ds.attrs.create("fill_tail_length", np.uint64(ft))
            ds.attrs.create("ordered", np.int8(1), dtype=BOOL_ENUM)
            e.update(permutation_len=len(perm), nan_tail_length=nt, fill_tail_length=ft)
        elif kind == "BITMAP":
            keyed = {}
            for v, m in zip(col.values, col.missing):
                if not m:
                    keyed.setdefault(ct.key(v), v)
            order = sorted(keyed) if r.random() < 0.5 else list(keyed)
            vals = [keyed[k] for k in order]
            nb = (nrows + 7) // 8 + r.choice([0, 0, 2])
            bits = np.zeros((len(vals), nb), dtype="u1")
            pos = {k: i for i, k in enumerate(order)}
            for row, (v, m) in enumerate(zip(col.values, col.missing)):
                if not m:
                    bits[pos[ct.key(v)], row >> 3] |= 1 << (row & 7)
            if nrows % 8 and len(vals) and r.random() < 0.5:
                bits[0, nrows >> 3] |= 0xFF << (nrows % 8) & 0xFF  # residue past NROWS
            if tamper and vals:
                row = r.randrange(nrows)
                bits[r.randrange(len(vals)), row >> 3] ^= 1 << (row & 7)
                tampered = True
            ds = index_dataset(si, name, bits, r)
            vname = name + "__values" if r.random() < 0.7 else "vals_of_%s" % name
            names_used.add(vname)
            vds = write_values_ds(si, vname, ct, vals, r)
            ds.attrs.create("VALUES", vds.ref, dtype=REF)
            if r.random() < 0.7:
                ds.attrs.create("ordered", np.int8(1 if order == sorted(keyed) else 0), dtype=BOOL_ENUM)
            e.update(values_path=vds.name, n_values=len(vals))
        elif kind == "CHUNK_BLOOM":
            k = r.randint(1, 7)
            m_bits = 8 * r.choice([1, 4, 16, 64, 128])
            seed = r.choice([0, r.randint(0, 2 ** 32 - 1)])
            filters = bloom_rows(col, length, k, m_bits, seed)
            full = [j for j, f in enumerate(filters) if any(f)]
            if tamper and full:
                filters[r.choice(full)] = bytes(m_bits // 8)  # false negatives
                tampered = True
            stale = r.choice([0, 0, 2])
            rows = filters + [bytes([0xAA]) * (m_bits // 8)] * stale
            data = np.frombuffer(b"".join(rows), dtype="u1").reshape(len(rows), m_bits // 8) if rows else \
                np.zeros((0, m_bits // 8), dtype="u1")
            ds = index_dataset(si, name, data, r)
            ds.attrs.create("k", np.uint16(k))
            ds.attrs.create("m_bits", np.uint64(m_bits))
            ds.attrs.create("seed", np.uint32(seed))
            str_attr(ds, "hash_family", "murmur3_x64_128_double", cset="ascii")
            e.update(k=k, m_bits=m_bits, seed=seed, n_chunks=len(filters))
        else:
            ds = index_dataset(si, name, np.arange(3, dtype="<i4"), r)
        str_attr(ds, "KIND", kind, cset="ascii")
        if tampered:
            rule = {"CHUNK_MINMAX": "§10.4", "SORTED_ROWS": "§10.5", "BITMAP": "§10.6", "CHUNK_BLOOM": "§10.7"}[kind]
            findings.append({"severity": "error", "rule": rule, "path": e["path"]})
            e["tampered"] = True
        if r.random() < 0.3:
            str_attr(ds, "description", "built by randhep.py")
        refs.append(ds.ref)
        exp.append(e)
    col.ds.attrs.create("SEARCH_INDEX_LIST", refs, dtype=REF)
    return exp


# ---------------------------------------------------------------- tables


def pick_type(r):
    x = r.random()
    if x < 0.25:
        return "int", IntType(r)
    if x < 0.45:
        return "float", FloatType(r)
    if x < 0.52:
        return "bool8", Bool8Type(r)
    if x < 0.59:
        return "enum", EnumType(r)
    if x < 0.69:
        return "fstr", FixedStrType(r)
    if x < 0.77:
        return "vstr", VlenStrType(r)
    if x < 0.87:
        return "cat", None
    if x < 0.92:
        return "compound", CompoundType(r)
    if x < 0.96:
        return "opaque", OpaqueType(r)
    return "array", ArrayType(r)


def make_table(f, path, r, latest, findings):
    """Writes one table at path ("/" for the root) and returns its
    expected entry and the model of its columns."""
    parts = [p for p in path.split("/") if p]
    parent = f
    for p in parts[:-1]:
        parent = make_group(parent, p, r, latest)
    g = make_group(parent, parts[-1], r, latest) if parts else f

    size_class = r.random()
    big = size_class > 0.985  # several CSV blocks, record batches, row groups
    if big:
        nrows = r.randint(65537, 140000)
    elif size_class < 0.1:
        nrows = 0
    elif size_class < 0.3:
        nrows = r.randint(1, 10)
    elif size_class < 0.85:
        nrows = r.randint(11, 700)
    else:
        nrows = r.randint(700, 4000)
    extent = nrows
    if r.random() < 0.3:
        extent = nrows + r.choice([1, 7, 64, r.randint(1, 500)])
    garbage_tail = extent > nrows and r.random() < 0.7

    wide = not big and nrows < 300 and r.random() < 0.03  # many links: B-tree splits, dense link heaps
    ncols = r.randint(40, 90) if wide else r.randint(1, 3 if big else 9)
    names = []
    while len(names) < ncols:
        nm = r.choice(NAME_POOL)
        if r.random() < 0.3:
            nm = "%s_%d" % (nm, len(names))
        if nm not in names:
            names.append(nm)

    cats_list = []
    cols = []
    for nm in names:
        kind, ct = pick_type(r)
        if kind == "cat":
            ct = full_int(r)
            if cats_list and r.random() < 0.4:
                cats = r.choice(cats_list)  # a shared code book
            else:
                cats = Categories(r, "labels%d" % len(cats_list) if r.random() < 0.5 else nm + "__CATEGORIES")
                if any(c.name == cats.name for c in cats_list):
                    cats.name += "_%d" % len(cats_list)
                cats_list.append(cats)
            if len(cats.labels) >= ct.hi:
                ct = full_int(r, width=8, signed=ct.signed)
            ct.kind = "cat"
        col = Column(nm, ct)
        col.kind = kind
        gens = {"int": gen_int, "float": gen_float, "bool8": gen_bool8, "enum": gen_enum, "fstr": gen_fstr,
                "vstr": gen_vstr, "opaque": gen_opaque, "compound": gen_compound, "array": gen_array}
        if kind == "cat":
            col.cats = cats
            col.values = gen_cat(r, col, nrows, ct, cats)
        else:
            col.values = gens[kind](r, col, nrows, ct)
        if kind == "int" and ct.size == 1 and not ct.signed and col.valid == (0, 1) and col.fill >= 2:
            col.kind = "bool8"  # what section 8.5's widened booleans look like
        if r.random() < 0.04 and kind in ("int", "float", "fstr", "opaque"):
            col.fill, col.fill_nan, col.valid = None, False, None  # no fill value: non-conformant
            col.findings.append({"severity": "error", "rule": "§8.5"})
        col.missing = [col.is_missing(v) for v in col.values]
        if garbage_tail:
            col.tail = garbage(r, col, extent - nrows)
        cols.append(col)

    # descriptive attributes
    ver = r.choice(["1.0", "1.0", "1.1", "1.0.0"])
    str_attr(g, "CLASS", "COLUMN_TABLE", cset="ascii", size=13)
    str_attr(g, "VERSION", ver, cset="ascii")
    g.attrs.create("NROWS", np.uint64(nrows))
    tattrs = {}
    if r.random() < 0.5:
        tattrs["TITLE"] = r.choice(["Events", "Ünïcode title", "a, b"])
    if r.random() < 0.4:
        tattrs["description"] = "random table %s" % path
    if r.random() < 0.3:
        tattrs["units_vocabulary"] = r.choice(["UDUNITS-2", "UCUM"])
    for i in range(r.choice([0, 0, 0, 3, 10])):
        tattrs["note%d" % i] = "n%d" % i
    if r.random() < 0.2:
        tattrs["encoding-type"], tattrs["encoding-version"] = "dataframe", "0.2.0"  # passed through (section 7.4)
    for k, v in tattrs.items():
        str_attr(g, k, v)

    for c in cols:
        lay = Layout(r, c.ct, nrows, extent, latest)
        c.layout = lay
        c.ds = create_column(g, c, nrows, extent, lay, r)
        c.path = c.ds.name
        if c.valid is not None:
            lo, hi = c.valid
            for nm_, v in (("valid_min", lo), ("valid_max", hi)):
                a = h5py.h5a.create(c.ds.id, nm_.encode(), c.ct.tid, h5s.create(h5s.SCALAR))
                a.write(np.frombuffer(c.ct.stored_bytes(v), dtype="V%d" % c.ct.size).copy().reshape(()), mtype=c.ct.tid)
        if r.random() < 0.4:
            c.attrs["units"] = r.choice(["MeV", "s", "m/s", "µm", "1"])
            if r.random() < 0.3:
                c.attrs["units_vocabulary"] = "UCUM"
        if r.random() < 0.3:
            c.attrs["description"] = "column %s" % c.name
        for i in range(r.choice([0, 0, 0, 2, 9, 40])):
            c.attrs["x%d" % i] = "v%d" % i
        if latest and r.random() < 0.02:
            # beyond the 64 KiB of an object header message: a huge object
            # of dense attribute storage
            c.attrs["description"] = "long " * r.randint(14000, 30000)
        for k, v in c.attrs.items():
            str_attr(c.ds, k, v)

    # categories
    cat_exp = []
    if cats_list:
        cg = make_group(g, "CATEGORIES", r, latest)
        for cats in cats_list:
            ds = write_values_ds(cg, cats.name, cats.type, cats.labels, r)
            if cats.ordered is not None:
                ds.attrs.create("ordered", np.int8(cats.ordered), dtype=BOOL_ENUM)
            cats.path = ds.name
            cats.ref = ds.ref
            cat_exp.append({"path": ds.name, "labels": [cats.type.json(x) for x in cats.labels],
                            "ordered": cats.ordered})
    for c in cols:
        if c.cats is not None:
            c.ds.attrs.create("CATEGORIES", c.cats.ref, dtype=REF)

    # search indexes
    idx_exp = []
    used = set()
    for c in cols:
        if r.random() < 0.35 and c.fill is not None and not big:
            c.indexes = write_indexes(g, c, nrows, c.layout, r, used, findings)
            idx_exp += c.indexes

    # column order and row index columns
    order = [c.name for c in cols]
    r.shuffle(order)
    has_order = r.random() < 0.8 or len(cols) == 1 and r.random() < 0.5
    if has_order:
        str_array_attr(g, "column-order", order)
    elif len(cols) > 1:
        findings.append({"severity": "warning", "rule": "§7.4", "path": g.name})
    index_cols = []
    x = r.random()
    if x < 0.4:
        index_cols = r.sample(order, r.randint(1, min(3, len(order))))
        g.attrs.create("INDEX_COLUMNS", [g[n].ref for n in index_cols], dtype=REF)
        if r.random() < 0.6:
            str_attr(g, "_index", index_cols[0])
    elif x < 0.5:
        g.attrs.create("INDEX_COLUMNS", np.zeros(0, dtype=REF), dtype=REF)
    elif x < 0.55:
        index_cols = [r.choice(order)]
        str_attr(g, "_index", index_cols[0])

    for c in cols:
        for fnd in c.findings:
            findings.append(dict(fnd, path=c.ds.name))

    return {
        "path": g.name, "kind": "hep001", "nrows": nrows, "extent": extent, "version": ver,
        "column_order": order if has_order else None, "index_columns": index_cols,
        "attributes": tattrs, "categories": cat_exp, "search_indexes": idx_exp,
        "columns": [col_expect(c) for c in cols],
    }, cols


def col_expect(c):
    ct = c.ct
    e = {"name": c.name, "kind": c.kind, "dtype": ct.dtype_json(), "layout": c.layout.describe(),
         "fill_value": None if c.fill is None else ct.json(c.fill), "fill_is_nan": c.fill_nan,
         "values": [None if m else ct.json(v) for v, m in zip(c.values, c.missing)],
         "missing_count": sum(c.missing), "attributes": c.attrs,
         "search_indexes": [x["path"] for x in c.indexes], "tail_is_garbage": c.tail is not None}
    if c.valid is not None:
        e["valid_min"], e["valid_max"] = ct.json(c.valid[0]), ct.json(c.valid[1])
    if ct.fixed:
        raw = b"".join(ct.raw_le(v) for v in c.values)
        e["elem_size"] = len(ct.raw_le(c.fill if c.fill is not None else c.values[0])) if (c.values or c.fill is not None) else None
        e["raw_le_sha256"] = hashlib.sha256(raw).hexdigest()
    if c.cats is not None:
        e["categories_path"] = c.cats.path
        e["ordered"] = c.cats.ordered
        e["labels"] = [None if m else c.cats.type.json(c.cats.labels[v]) for v, m in zip(c.values, c.missing)]
    return e


# ---------------------------------------------------------------- self-check


def self_check(path, tables_model):
    """Reopens the file with h5py and compares every column's stored
    bytes (or strings) with the model."""
    with h5py.File(path, "r") as f:
        for cols in tables_model:
            for c in cols:
                ds = f[c.path]
                rows = c.values + (c.tail or [])
                n = len(rows)
                if ds.shape[0] < n:
                    raise AssertionError("%s: extent %d < %d" % (ds.name, ds.shape[0], n))
                if n == 0:
                    continue
                if c.ct.np is None:
                    got = ds.asstr()[0:n] if c.ct.cset == "utf-8" else [x.decode() for x in ds[0:n]]
                    got = [g_ if isinstance(g_, str) else g_.decode() for g_ in got]
                    if list(got) != rows:
                        raise AssertionError("%s: strings differ from the model" % ds.name)
                    continue
                size = len(c.ct.stored_bytes(rows[0]))
                buf = np.zeros(n, dtype="V%d" % size)
                fspace = ds.id.get_space()
                fspace.select_hyperslab((0,), (n,))
                ds.id.read(h5s.create_simple((n,)), fspace, buf, mtype=c.ct.tid)
                want = b"".join(c.ct.stored_bytes(v) for v in rows)
                if buf.tobytes() != want:
                    bad = next(i for i in range(n) if buf[i].tobytes() != c.ct.stored_bytes(rows[i]))
                    raise AssertionError("%s: row %d stored %s, model %s" % (
                        ds.name, bad, buf[bad].tobytes().hex(), c.ct.stored_bytes(rows[bad]).hex()))


# ---------------------------------------------------------------- files


def table_paths(r):
    if r.random() < 0.15:
        return ["/"]
    paths = []
    for _ in range(r.randint(1, 4)):
        depth = r.choice([1, 1, 2, 3])
        comps = [r.choice(GROUP_POOL) for _ in range(depth - 1)]
        comps.append("table%d" % len(paths) if r.random() < 0.5 else r.choice(GROUP_POOL) + "_t%d" % len(paths))
        p = "/" + "/".join(comps)
        # no table below another (section 7.6)
        if any(p.startswith(q + "/") or q.startswith(p + "/") or p == q for q in paths):
            continue
        paths.append(p)
    return paths


def gen_file(seed, outdir):
    r = random.Random(seed)
    low = r.choice(["earliest", "earliest", "v108", "v110", "latest"])
    latest = low != "earliest"
    name = "randhep_%d" % seed
    path = os.path.join(outdir, name + ".h5")
    fapl_kw = {}
    if latest and r.random() < 0.4:
        fapl_kw["track_order"] = True
    if r.random() < 0.1:
        fapl_kw["userblock_size"] = r.choice([512, 1024, 4096])
    tables, models, findings, others = [], [], [], []
    with h5py.File(path, "w", libver=(low, "latest"), **fapl_kw) as f:
        paths = table_paths(r)
        for p in paths:
            t, cols = make_table(f, p, r, latest, findings)
            tables.append(t)
            models.append(cols)
        if paths != ["/"] and r.random() < 0.5:
            # a 2-D dataset beside the tables: with two unlimited
            # dimensions, libver latest indexes its chunks in a v2 B-tree
            a = np.arange(r.randint(1, 40) * 7, dtype="<i4").reshape(-1, 7) * r.randint(1, 9)
            maxshape = (None, None) if r.random() < 0.7 else a.shape
            chunks = (min(a.shape[0], r.randint(1, 8)), r.randint(1, 7))
            f.create_dataset("grid", data=a, chunks=chunks, maxshape=maxshape,
                             track_times=False, compression="gzip" if r.random() < 0.5 else None)
            others.append({"path": "/grid", "type": "dataset", "shape": list(a.shape), "dtype": "<i4",
                           "sha256_le": hashlib.sha256(a.tobytes()).hexdigest()})
    self_check(path, models)
    doc = {"file": name + ".h5", "kind": "hep001", "seed": seed, "libver": [low, "latest"],
           "made_by": "test/fuse/testdata/randhep.py", "tables": tables, "other_objects": others,
           "findings": findings}
    with open(os.path.join(outdir, name + ".expected.json"), "w") as fh:
        json.dump(doc, fh, indent=None, ensure_ascii=False, allow_nan=False)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: randhep.py OUTDIR SEED [SEED ...]")
    outdir = sys.argv[1]
    for s in sys.argv[2:]:
        try:
            gen_file(int(s), outdir)
        except Exception as e:
            raise RuntimeError("seed %s" % s) from e


if __name__ == "__main__":
    main()
