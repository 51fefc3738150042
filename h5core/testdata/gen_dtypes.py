#!/usr/bin/python3
"""Generate real-file test vectors for h5core's datatype and value decoding.

Run with Debian's interpreter from h5core/testdata:  /usr/bin/python3 gen_dtypes.py
(h5py 3.7 on libhdf5 1.10). It writes into dtypes/:

  dtypes.h5    one contiguous dataset per case (global heap for vlen data
               and region references lives here too)
  NAME.bin     H5Tencode of the dataset's datatype: a 2-byte header
               (H5O_DTYPE_ID = 3, encode version 0) and the datatype message.
               For variable-length types H5Tencode records the in-memory
               size (8 or 16), not the on-disk one; elem_size has the latter.
  dtypes.json  per case: bin file, expected Datatype.String(), the data's
               file offset, element count and on-disk element size, and the
               expected values in a JSON form (see expect() below).
"""

import json
import math
import os

import h5py
import numpy as np

h5t = h5py.h5t
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dtypes")


def expect(v):
    """Expected value as JSON: numbers, "nan"/"inf"/"-inf", strings,
    {"bytes": hex} for opaque, [[name, value], ...] for compounds,
    {"enum": name, "value": n}, lists for arrays and sequences,
    {"object": addr} and {"region": addr} for references."""
    if isinstance(v, (bool, np.bool_)):
        return {"enum": "TRUE" if v else "FALSE", "value": int(v)}
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, str):
        return v
    if isinstance(v, np.ndarray):
        return [expect(x) for x in v.ravel()]
    if isinstance(v, np.void) and v.dtype.names:
        return [[n, expect(v[n])] for n in v.dtype.names]
    if isinstance(v, np.void):
        return {"bytes": v.tobytes().hex()}
    raise TypeError(type(v))


class Gen:
    def __init__(self, path):
        self.f = h5py.File(path, "w")
        self.cases = []

    def add(self, name, desc, dset, values, n=None):
        """Record a dataset; values are already in expect() form."""
        self.f.flush()
        tid = dset.id.get_type()
        with open(os.path.join(OUT, name + ".bin"), "wb") as fh:
            fh.write(tid.encode())
        count = len(values) if n is None else n
        self.cases.append({
            "name": name,
            "bin": name + ".bin",
            "string": desc,
            "offset": dset.id.get_offset(),
            "count": count,
            "elem_size": dset.id.get_storage_size() // count,
            "values": values,
        })

    def simple(self, name, desc, data, dtype=None, values=None):
        """A dataset written through h5py; values default to what h5py
        reads back."""
        d = self.f.create_dataset(name, data=data, dtype=dtype, track_times=False)
        self.add(name, desc, d, values or [expect(x) for x in d[()]])

    def raw(self, name, desc, ftype, data, values, mtype=None):
        """Create a dataset of file type ftype and write data with memory
        type mtype (default ftype: bytes are stored as given)."""
        data = np.ascontiguousarray(data)
        space = h5py.h5s.create_simple((len(data),))
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_obj_track_times(False)
        dsid = h5py.h5d.create(self.f.id, name.encode(), ftype, space, dcpl=dcpl)
        dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, data, mtype=mtype or ftype)
        self.add(name, desc, h5py.Dataset(dsid), values)


def main():
    os.makedirs(OUT, exist_ok=True)
    for fn in os.listdir(OUT):
        os.remove(os.path.join(OUT, fn))
    g = Gen(os.path.join(OUT, "dtypes.h5"))

    # Integers of every size and both byte orders, at their extremes.
    for bits in (8, 16, 32, 64):
        for signed in (True, False):
            for order in ("<", ">"):
                if bits == 8 and order == ">":
                    continue
                code = ("i" if signed else "u") + str(bits // 8)
                info = np.iinfo(code)
                data = np.array([info.min, info.min + 1, 0, 1, info.max // 3, info.max], dtype=order + code)
                oname = "le" if order == "<" else "be"
                desc = ("" if signed else "u") + "int%d %s" % (bits, oname.upper())
                g.simple("%s%d%s" % ("i" if signed else "u", bits, oname), desc, data)

    # IEEE floats 16/32/64 in both orders, with specials and subnormals.
    for code in ("f2", "f4", "f8"):
        info = np.finfo(code)
        vals = [0.0, -0.0, 1.5, -2.25, 0.1, 1e-3, info.max, info.tiny, info.smallest_subnormal,
                np.inf, -np.inf, np.nan]
        for order in ("<", ">"):
            oname = "le" if order == "<" else "be"
            g.simple("f%d%s" % (8 * int(code[1]), oname), "float%d %s" % (8 * int(code[1]), oname.upper()),
                     np.array(vals, dtype=order + code))

    # Non-IEEE layouts converted by libhdf5 from float64 in memory: bfloat16
    # and an 80-bit x87 long double (explicit leading mantissa bit).
    bf16 = h5t.IEEE_F32LE.copy()
    bf16.set_fields(15, 7, 8, 0, 7)
    bf16.set_size(2)
    bf16.set_ebias(127)
    vals = [0.0, 1.5, -2.25, 3.0, 256.0, -1.0 / 64]
    g.raw("bfloat16", "float16 LE (sign 15, exp 7:8 bias 127, mant 0:7)", bf16,
          np.array(vals, dtype="<f8"), [expect(v) for v in vals], mtype=h5t.NATIVE_DOUBLE)
    vals = [0.0, 1.5, -2.25, 1.0 / 3, 1e300, np.inf]
    g.simple("longdouble", "float128 LE (sign 79, exp 64:15 bias 16383, mant 0:64, norm 0)",
             np.array(vals, dtype=np.longdouble))

    # Integers whose precision does not fill the element.
    for order, base in (("le", h5t.STD_I16LE), ("be", h5t.STD_I16BE)):
        t = base.copy()
        t.set_precision(12)
        t.set_offset(2)
        vals = [-2048, -1, 0, 1, 2047]
        g.raw("i12at2" + order, "int16 %s (12 bits at 2)" % order.upper(), t,
              np.array(vals, dtype="<i2"), vals, mtype=h5t.NATIVE_INT16)

    # Fixed strings of each padding and character set.
    words = [b"", b"a", b"hello", b"exactly10!"]
    utf = ["", "\u00e9t\u00e9", "\u65e5\u672c"]
    for pad, pname in ((h5t.STR_NULLTERM, "NULLTERM"), (h5t.STR_NULLPAD, "NULLPAD"), (h5t.STR_SPACEPAD, "SPACEPAD")):
        for cset, cname, items in ((h5t.CSET_ASCII, "ASCII", words), (h5t.CSET_UTF8, "UTF-8", [s.encode() for s in utf])):
            t = h5t.C_S1.copy()
            t.set_size(10)
            t.set_strpad(pad)
            t.set_cset(cset)
            raw = []
            for w in items:
                filler = b" " if pad == h5t.STR_SPACEPAD else b"\0"
                raw.append(w.ljust(10, filler)[:10])
            g.raw("str_%s_%s" % (pname.lower(), cname.lower().replace("-", "")),
                  "string(10, %s, %s)" % (pname, cname), t, np.array(raw, dtype="S10"),
                  [w.decode() for w in items])

    # Variable-length strings and sequences (global heap).
    g.simple("vlen_ascii", "vlen string ASCII", np.array([b"", b"x", b"global heap"], dtype=object),
             dtype=h5py.string_dtype("ascii"))
    g.simple("vlen_utf8", "vlen string UTF-8", np.array(["caf\u00e9", "", "\u00fcber"], dtype=object),
             dtype=h5py.string_dtype("utf-8"))
    seq = np.empty(3, dtype=object)
    seq[0], seq[1], seq[2] = np.array([1, -2, 3], "i4"), np.array([], "i4"), np.array([7], "i4")
    g.simple("vlen_i32", "vlen int32", seq, dtype=h5py.vlen_dtype("i4"))
    seq = np.empty(2, dtype=object)
    seq[0], seq[1] = np.array([0.5, 1e10], ">f8"), np.array([-1.25], ">f8")
    # (h5py 3.7 reads these back without swapping: expect what was written.)
    g.simple("vlen_f64be", "vlen float64 BE", seq, dtype=h5py.vlen_dtype(">f8"), values=[[0.5, 1e10], [-1.25]])

    # Compounds: flat, nested with an array member, big-endian fields.
    flat = np.array([(1.5, -2.0, 7), (0.0, 3.25, -1)], dtype=[("x", "<f4"), ("y", "<f4"), ("id", "<i4")])
    g.simple("cmp_flat", "compound{x float32; y float32; id int32}", flat)
    inner = np.dtype([("p", "<f8"), ("q", "u1")])
    nested = np.dtype([("a", "<i2"), ("inner", inner), ("s", "S4"), ("v", "<u2", (2, 2))])
    data = np.zeros(2, dtype=nested)
    data[0] = (-5, (0.25, 200), b"ab", [[1, 2], [3, 4]])
    data[1] = (32767, (-1e-3, 0), b"wxyz", [[5, 6], [7, 65535]])
    g.simple("cmp_nested", "compound{a int16; inner compound{p float64; q uint8}; s string(4, NULLPAD, ASCII); v array[2,2] uint16}", data)
    be = np.array([(1, 2.5), (-300, -0.125)], dtype=[("i", ">i4"), ("d", ">f8")])
    g.simple("cmp_be", "compound{i int32 BE; d float64 BE}", be)

    # Enums: numpy bool (h5py's enum FALSE/TRUE), int8, big-endian uint16.
    # (H5Tencode lists the members of a type it has looked up by name order.)
    g.simple("enum_bool", "enum int8 {FALSE=0,TRUE=1}", np.array([True, False, True]))
    e8 = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": -1}, basetype="i1")
    d = g.f.create_dataset("enum_i8", data=np.array([0, 1, -1, 5], dtype="i1"), dtype=e8, track_times=False)
    g.add("enum_i8", "enum int8 {BLUE=-1,GREEN=1,RED=0}", d,
          [{"enum": "RED", "value": 0}, {"enum": "GREEN", "value": 1}, {"enum": "BLUE", "value": -1},
           {"enum": "", "value": 5}])
    e16 = h5py.enum_dtype({"LOW": 1, "HIGH": 60000}, basetype=">u2")
    d = g.f.create_dataset("enum_u16be", data=np.array([60000, 1], dtype=">u2"), dtype=e16, track_times=False)
    g.add("enum_u16be", "enum uint16 BE {HIGH=60000,LOW=1}", d,
          [{"enum": "HIGH", "value": 60000}, {"enum": "LOW", "value": 1}])

    # Arrays as dataset element types.
    at = h5t.array_create(h5t.STD_I32LE, (2, 3))
    vals = np.arange(12, dtype="<i4").reshape(2, 2, 3) - 5
    g.raw("array_i32", "array[2,3] int32", at, vals, [expect(v) for v in vals])
    at = h5t.array_create(h5t.IEEE_F64BE, (2,))
    vals = np.array([[1.0, -0.5], [np.inf, 2e-308]], dtype=">f8")
    g.raw("array_f64be", "array[2] float64 BE", at, vals, [expect(v) for v in vals])

    # Opaque: numpy void, and a tagged one.
    g.simple("opaque_v4", "opaque(4)", np.array([b"\x00\x01\x02\x03", b"\xff\xfe\xfd\xfc"], dtype="V4"))
    ot = h5t.create(h5t.OPAQUE, 3)
    ot.set_tag(b"rgb pixel")
    raw = np.array([b"\x10\x20\x30", b"\xaa\xbb\xcc"], dtype="V3")
    g.raw("opaque_tag", 'opaque(3, "rgb pixel")', ot, raw, [{"bytes": "102030"}, {"bytes": "aabbcc"}])

    # Bitfields of several sizes and orders, stored as given.
    for t, code, desc in ((h5t.STD_B8LE, "u1", "bitfield8 LE"), (h5t.STD_B16BE, ">u2", "bitfield16 BE"),
                          (h5t.STD_B32LE, "<u4", "bitfield32 LE"), (h5t.STD_B64BE, ">u8", "bitfield64 BE")):
        info = np.iinfo(code)
        vals = np.array([0, 1, info.max // 7, info.max], dtype=code)
        g.raw("bitfield%d%s" % (8 * vals.itemsize, desc[-2:].lower()), desc, t, vals.view("V%d" % vals.itemsize),
              [int(v) for v in vals])

    # Time: 32-bit Unix seconds, stored as given.
    vals = np.array([0, 1700000000, -1], dtype=">i4")
    g.raw("time32be", "time32 BE", h5t.UNIX_D32BE, vals.view("V4"), [0, 1700000000, 4294967295])

    # References: object (to datasets and a group, plus a null one) and region.
    grp = g.f.create_group("grp")
    targets = [g.f["i32le"], g.f["cmp_flat"], grp]
    refs = np.array([t.ref for t in targets] + [h5py.Reference()], dtype=h5py.ref_dtype)
    d = g.f.create_dataset("ref_object", data=refs, track_times=False)
    g.add("ref_object", "reference(object)", d,
          [{"object": h5py.h5o.get_info(t.id).addr} for t in targets] + [{"object": 0}])
    src = g.f["f64le"]
    rr = np.array([src.regionref[1:4], src.regionref[0:1]], dtype=h5py.regionref_dtype)
    d = g.f.create_dataset("ref_region", data=rr, track_times=False)
    addr = h5py.h5o.get_info(src.id).addr
    g.add("ref_region", "reference(region)", d, [{"region": addr}, {"region": addr}])

    g.f.close()
    with open(os.path.join(OUT, "dtypes.json"), "w") as fh:
        json.dump(g.cases, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
