#!/usr/bin/python3
"""Writes the filter-pipeline test corpus in testdata/filters/.

Needs Debian's h5py (run with /usr/bin/python3, not a venv python) and the
HDF5 filter plugins packaged by Debian:

    apt-get install python3-h5py hdf5-plugin-lzf hdf5-filter-plugin \
        hdf5-filter-plugin-blosc-serial

(hdf5-filter-plugin brings LZ4 (32004) and BZip2 (307); the blosc package
brings Blosc (32001) built with blosclz, lz4, snappy, zlib and zstd; Debian's
libhdf5 has SZIP (4) built in, through libaec.) Debian
has no zstd (32015) plugin: the Go tests make those streams with
klauspost/compress instead.

For every case the script writes one small HDF5 file (not kept), then saves:

    <case>.chunk.bin     the stored bytes of chunk 0 (read_direct_chunk)
    expect_<sha1>.bin    what the chunk decodes to: the raw bytes of the same
                         values written to an unfiltered twin dataset of the
                         same file datatype (so n-bit padding, big-endian
                         types and lossy scale-offset are all as libhdf5
                         stores them); named by content, so cases with the
                         same values share one file
    manifest.json        per case: the raw filter pipeline message found in
                         the file's object header and the pipeline decoded
                         from it (checked against h5py's get_filter), the
                         chunk's filter mask and the decoded size.

Usage: /usr/bin/python3 gen_filters.py [outdir]
"""

import hashlib
import json
import os
import re
import sys
import tempfile

PLUGINS = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"
os.environ.setdefault("HDF5_PLUGIN_PATH", PLUGINS)

import h5py  # noqa: E402
import numpy as np  # noqa: E402

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "filters")
RNG = np.random.RandomState(20240611)
SZ_RNG = np.random.RandomState(20261126)  # for the szip cases, added later


def smooth(n, scale=1000.0, rng=RNG):
    """A smooth, compressible series."""
    x = np.linspace(0, 12, n)
    return np.sin(x) * scale + rng.normal(0, scale / 200, n)


def find_pipeline_message(raw, nfilters):
    """Returns the filter pipeline message bytes from an object header.

    Version 1 object headers: type u16=0x000B, size u16, flags u8, 3 reserved,
    then the message (version 1). Version 2 headers: type u8=0x0B, size u16,
    flags u8, then the message (version 2). The message length comes from the
    header, not from our own idea of the layout.
    """
    for m in re.finditer(rb"\x0b\x00(..)(.)\x00\x00\x00\x01", raw, re.S):
        size = int.from_bytes(m.group(1), "little")
        start = m.end() - 1
        msg = raw[start:start + size]
        if len(msg) == size and msg[1] == nfilters:
            return msg
    for m in re.finditer(rb"\x0b(..)([\x00-\x0f])\x02", raw, re.S):
        size = int.from_bytes(m.group(1), "little")
        start = m.end() - 1
        msg = raw[start:start + size]
        if len(msg) == size and msg[1] == nfilters:
            return msg
    return None


def parse_pipeline(msg):
    """Decodes a version 1 or 2 filter pipeline message (for the manifest:
    h5py's get_filter garbles client data past 16 values)."""
    u16 = lambda p: int.from_bytes(msg[p:p + 2], "little")
    u32 = lambda p: int.from_bytes(msg[p:p + 4], "little")
    version, count = msg[0], msg[1]
    p = 8 if version == 1 else 2
    out = []
    for _ in range(count):
        fid = u16(p)
        p += 2
        name_len = 0
        if version == 1 or fid >= 256:
            name_len = u16(p)
            p += 2
        flags, ncd = u16(p), u16(p + 2)
        p += 4
        name = msg[p:p + name_len].split(b"\0")[0].decode()
        p += name_len
        cd = [u32(p + 4 * i) for i in range(ncd)]
        p += 4 * ncd
        if version == 1 and ncd % 2:
            p += 4
        out.append({"id": fid, "flags": flags, "cd": cd, "name": name})
    return out


def twin(f, ds, values):
    """Writes values to an unfiltered twin of ds: same datatype and chunks."""
    space = h5py.h5s.create_simple(ds.shape)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(ds.chunks)
    t = h5py.h5d.create(f.id, ("twin_" + ds.name.strip("/")).encode(), ds.id.get_type(), space, dcpl=dcpl)
    t.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(values))


def create_lowlevel(f, name, tid, shape, chunks, setup, values):
    """Creates a dataset with a low-level dcpl (for n-bit) and writes values."""
    space = h5py.h5s.create_simple(shape)
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    setup(dcpl)
    dsid = h5py.h5d.create(f.id, name.encode(), tid, space, dcpl=dcpl)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.ascontiguousarray(values))


CASES = []


def case(name, **kw):
    CASES.append((name, kw))


n = 1500
# deflate and shuffle
case("gzip1_f64", data=smooth(n), compression="gzip", compression_opts=1)
case("gzip9_i32", data=(smooth(n) * 10).astype("<i4"), compression="gzip", compression_opts=9)
case("shuffle_gzip4_f64", data=smooth(n), shuffle=True, compression="gzip", compression_opts=4)
case("shuffle_gzip_i16", data=smooth(n).astype("<i2"), shuffle=True, compression="gzip")
case("shuffle_gzip_f32", data=smooth(n).astype("<f4"), shuffle=True, compression="gzip")
case("shuffle_gzip_compound12", shuffle=True, compression="gzip",
     data=np.array(list(zip(np.arange(n, dtype="<i4"), smooth(n))), dtype=[("a", "<i4"), ("b", "<f8")]))
case("shuffle_u8", data=np.arange(n, dtype="u1"), shuffle=True)
# fletcher32, even and odd byte counts
case("fletcher_i32", data=np.arange(n, dtype="<i4") * 7919, fletcher32=True)
case("fletcher_odd_u8", data=(np.arange(1001) * 37 % 251).astype("u1"), fletcher32=True)
case("shuffle_gzip_fletcher_f64", data=smooth(n), shuffle=True, compression="gzip", fletcher32=True)
# scale-offset, integers (scaleoffset=0: minimum bits computed)
ints = (smooth(n) * 3).astype("<i4")
case("so_i32", data=ints, scaleoffset=0)
case("so_i32_be", data=ints.astype(">i4"), scaleoffset=0)
case("so_u16", data=(smooth(n) + 2000).astype("<u2"), scaleoffset=0)
case("so_u16_be", data=(smooth(n) + 2000).astype(">u2"), scaleoffset=0)
case("so_i8", data=(smooth(n, 60)).astype("i1"), scaleoffset=0)
case("so_u8", data=(smooth(n, 60) + 100).astype("u1"), scaleoffset=0)
case("so_i64", data=(smooth(n) * 1e6).astype("<i8") - 10**15, scaleoffset=0)
case("so_i32_fullrange", data=np.array([-2**31, 2**31 - 1] * (n // 2), dtype="<i4"), scaleoffset=0)
case("so_i32_fill", data=np.where(np.arange(n) % 7 == 0, -5, ints), scaleoffset=0, fillvalue=-5)
case("so_i16_bits12", data=(smooth(n) + 1000).astype("<i2"), scaleoffset=12)
case("so_i32_gzip", data=ints, scaleoffset=0, compression="gzip")
# scale-offset, floating point (scaleoffset=D: D decimal digits kept)
case("so_f64_d3", data=smooth(n), scaleoffset=3)
case("so_f32_d2", data=smooth(n).astype("<f4"), scaleoffset=2)
case("so_f64_be_d4", data=smooth(n, 10).astype(">f8"), scaleoffset=4)
case("so_f32_fill", data=np.where(np.arange(n) % 5 == 0, np.float32(-999.0), smooth(n).astype("<f4")),
     scaleoffset=1, fillvalue=np.float32(-999.0))
case("so_f64_fill_be", data=np.where(np.arange(n) % 5 == 0, 7.5, smooth(n)).astype(">f8"),
     scaleoffset=2, fillvalue=7.5)
# LZF
case("lzf_f64", data=np.tile(smooth(100), n // 100), compression="lzf")
case("lzf_shuffle_i32", data=ints, compression="lzf", shuffle=True)
case("lzf_incompressible", data=RNG.randint(0, 256, 4000).astype("u1"), compression="lzf")
# LZ4 (HDF Group plugin framing)
case("lz4_f64", data=smooth(n), compression=32004, compression_opts=(0,))
case("lz4_blocks_shuffle", data=smooth(4000), shuffle=True, compression=32004, compression_opts=(4096,))
case("lz4_random", data=RNG.randint(0, 256, 5000).astype("u1"), compression=32004, compression_opts=(2048,))
# Blosc: cd = (rev, version, typesize, size, clevel, shuffle, compressor)
bl = np.tile(smooth(500), 20)  # 80000 bytes: two 32 KiB blocks plus a leftover block
case("blosc_blosclz_shuffle", data=bl, compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 0))
case("blosc_blosclz_noshuffle_i16", data=np.tile(smooth(100), n // 100).astype("<i2"), compression=32001,
     compression_opts=(0, 0, 0, 0, 9, 0, 0))
case("blosc_lz4_shuffle", data=bl, compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 1))
case("blosc_lz4hc", data=bl, compression=32001, compression_opts=(0, 0, 0, 0, 7, 1, 2))
case("blosc_zlib", data=bl, compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 4))
case("blosc_zstd", data=bl, compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 5))
case("blosc_bitshuffle_lz4", data=bl, compression=32001, compression_opts=(0, 0, 0, 0, 5, 2, 1))
# 4001 elements: not a multiple of 8, so blosc leaves the bitshuffled block as is
case("blosc_bitshuffle_odd", data=(np.arange(4001) % 50).astype("<f4"), compression=32001,
     compression_opts=(0, 0, 0, 0, 5, 2, 0))
# several blocks and a leftover block: 32 KiB blocks for zstd at clevel 1,
# 64 KiB split blocks for blosclz on 2-byte items
case("blosc_zstd_blocks", data=bl, compression=32001, compression_opts=(0, 0, 0, 0, 1, 0, 5))
case("blosc_blosclz_i16_blocks", data=np.tile(smooth(1000) * 10, 40).astype("<i2"), compression=32001,
     compression_opts=(0, 0, 0, 0, 1, 1, 0))
case("blosc_snappy", data=smooth(n), compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 3))
# SZIP through libaec: cd = (options mask, pixels per block, bits per pixel,
# pixels per scanline). libhdf5 sets the scanline to the chunk's last
# dimension, at most 128 blocks: 1-D chunks of n give one scanline whose last
# block is padded (n % ppb != 0); 2-D chunks give one padded scanline per row;
# 5000 and 4100 elements give full scanlines of 1024 and 4096 pixels and a
# partial last one. 32- and 64-bit types are coded as byte planes of 8-bit
# samples. Every case must compress (szip is optional: a chunk it cannot
# shrink would be stored raw).
def smooth_sz(n, scale=1000.0):
    return smooth(n, scale, SZ_RNG)


def noise(n, amp):
    return SZ_RNG.randint(-amp, amp + 1, n)


def zero_runs(n, scale):
    """Long runs of zeros and of constants between short smooth stretches."""
    v = smooth_sz(n, scale)
    v[: n // 3] = 0
    v[n // 2: n // 2 + n // 5] = v[n // 2]
    v[-n // 8:] = 0
    return v


case("szip_nn8_i8", data=smooth_sz(n, 60).astype("i1"), compression="szip", compression_opts=("nn", 8))
case("szip_ec16_u8_noise", data=noise(n, 20).astype("u1") + 20, compression="szip", compression_opts=("ec", 16))
case("szip_ec8_u8_lowentropy", data=(SZ_RNG.rand(n) < 0.1).astype("u1"), compression="szip",
     compression_opts=("ec", 8))
case("szip_nn16_i16", data=smooth_sz(n, 3000).astype("<i2"), compression="szip", compression_opts=("nn", 16))
case("szip_nn32_i16_slow", data=(np.arange(n) // 7 + noise(n, 1)).astype("<i2"), compression="szip",
     compression_opts=("nn", 32))
case("szip_ec32_i16_be_noise", data=(noise(n, 3000) + 4000).astype(">i2"), compression="szip",
     compression_opts=("ec", 32))
case("szip_nn16_u16_be", data=(smooth_sz(n, 20000) + 30000).astype(">u2"), compression="szip",
     compression_opts=("nn", 16))
case("szip_nn32_i32", data=(smooth_sz(n) * 1000).astype("<i4"), compression="szip", compression_opts=("nn", 32))
case("szip_ec8_i32_be_noise", data=(noise(n, 100000) + 200000).astype(">i4"), compression="szip",
     compression_opts=("ec", 8))
case("szip_nn8_i64", data=(smooth_sz(n) * 1e6).astype("<i8") - 10**12, compression="szip",
     compression_opts=("nn", 8))
case("szip_ec16_i64_be", data=(smooth_sz(n) * 1e4).astype(">i8"), compression="szip", compression_opts=("ec", 16))
case("szip_nn32_f32", data=smooth_sz(n).astype("<f4"), compression="szip", compression_opts=("nn", 32))
# (EC on byte planes needs floats with short mantissas to compress at all)
case("szip_ec16_f32_be", data=(np.round(smooth_sz(n) * 4) / 4).astype(">f4"), compression="szip",
     compression_opts=("ec", 16))
case("szip_nn8_f64", data=smooth_sz(n), compression="szip", compression_opts=("nn", 8))
case("szip_ec32_f64_be", data=(np.round(smooth_sz(n) * 4) / 4).astype(">f8"), compression="szip",
     compression_opts=("ec", 32))
case("szip_nn8_zeros_i32", data=zero_runs(5000, 1000).astype("<i4"), compression="szip",
     compression_opts=("nn", 8))
case("szip_ec16_zeros_u16", data=zero_runs(5000, 1000).astype("<u2"), compression="szip",
     compression_opts=("ec", 16))
case("szip_ec32_zeros_f64", data=zero_runs(4100, 1), compression="szip", compression_opts=("ec", 32))
case("szip_nn16_2d_f32", data=smooth_sz(1000).astype("<f4").reshape(20, 50), compression="szip",
     compression_opts=("nn", 16))
case("szip_ec8_2d_i16_small", data=np.arange(18, dtype="<i2").reshape(6, 3) * 3, compression="szip",
     compression_opts=("ec", 8))
# an unsupported filter, for the error path
case("bzip2_f64", data=smooth(n), compression=307, compression_opts=(9,))
# libver latest: version 2 pipeline messages
# (two chunks each: HDF5 1.10 cannot read a filtered single-chunk-index chunk directly)
case("latest_shuffle_gzip_fletcher", data=smooth(2 * n), chunks=(n,), shuffle=True, compression="gzip",
     fletcher32=True, libver="latest")
case("latest_lzf", data=np.tile(smooth(100), 2 * n // 100), chunks=(n,), compression="lzf", libver="latest")


def nbit_type(base, precision, offset):
    t = base.copy()
    t.set_precision(precision)
    t.set_offset(offset)
    return t


def set_nbit(dcpl):
    """H5Pset_nbit, which this h5py does not wrap."""
    dcpl.set_filter(h5py.h5z.FILTER_NBIT, h5py.h5z.FLAG_OPTIONAL)


def nbit_cases():
    """n-bit datasets need the low-level API: (name, make(f)) pairs."""
    out = []

    def add(name, tid, values, setup=set_nbit):
        out.append((name, lambda f: create_lowlevel(f, name, tid, values.shape, values.shape, setup, values)))

    i12 = nbit_type(h5py.h5t.STD_I16LE, 12, 2)
    add("nbit_i16_p12_o2", i12, smooth(n, 1500).astype("<i2"))
    add("nbit_u32be_p20_o5", nbit_type(h5py.h5t.STD_U32BE, 20, 5), (smooth(n, 400000) + 500000).astype("<u4"))
    add("nbit_u8_p3_o3", nbit_type(h5py.h5t.STD_U8LE, 3, 3), (np.arange(n) % 8).astype("u1"))

    def nbit_gzip(p):
        set_nbit(p)
        p.set_deflate(6)
    add("nbit_gzip_i32_p13", nbit_type(h5py.h5t.STD_I32LE, 13, 0), smooth(n, 3000).astype("<i4"), nbit_gzip)
    add("nbit_fullprec_i32", h5py.h5t.STD_I32LE.copy(), np.arange(n, dtype="<i4"))
    # compound: 12-bit int, full float, array of three 10-bit BE ints, 3-byte string
    a10 = h5py.h5t.array_create(nbit_type(h5py.h5t.STD_I16BE, 10, 3), (3,))
    s3 = h5py.h5t.C_S1.copy()
    s3.set_size(3)
    ct = h5py.h5t.create(h5py.h5t.COMPOUND, 2 + 4 + 6 + 3)
    ct.insert(b"a", 0, i12)
    ct.insert(b"b", 2, h5py.h5t.IEEE_F32LE)
    ct.insert(b"c", 6, a10)
    ct.insert(b"s", 12, s3)
    m = 700
    v = np.zeros(m, dtype=[("a", "<i2"), ("b", "<f4"), ("c", "<i2", (3,)), ("s", "S3")])
    v["a"] = smooth(m, 1500).astype("<i2")
    v["b"] = smooth(m).astype("<f4")
    v["c"] = np.stack([np.arange(m) % 500 - 250, np.arange(m) % 300, -(np.arange(m) % 200)], axis=1)
    v["s"] = [("k%02d" % (i % 100)).encode() for i in range(m)]
    add("nbit_compound", ct, v)

    # SZIP on types of less than full precision (bits per pixel 12 and 20)
    def szip(options, ppb):
        return lambda p: p.set_szip(options, ppb)
    add("szip_nn16_i16_p12", nbit_type(h5py.h5t.STD_I16LE, 12, 0), smooth_sz(n, 1500).astype("<i2"),
        szip(h5py.h5z.SZIP_NN_OPTION_MASK, 16))
    add("szip_ec32_u32be_p20", nbit_type(h5py.h5t.STD_U32BE, 20, 0),
        (smooth_sz(n, 400000) + 500000).astype("<u4"), szip(h5py.h5z.SZIP_EC_OPTION_MASK, 32))
    return out


def record(manifest, path, name):
    """Saves chunk 0 of name and of its twin, with the pipeline as stored."""
    raw = open(path, "rb").read()
    with h5py.File(path, "r") as f:
        ds = f[name]
        pl = ds.id.get_create_plist()
        msg = find_pipeline_message(raw, pl.get_nfilters())
        filters = parse_pipeline(msg)
        for i, got in enumerate(filters):  # cross-check with the library's view
            fid, flags, cd, fname = pl.get_filter(i)
            assert (got["id"], got["flags"], got["cd"][:16]) == (fid, flags, list(cd)[:16]), (name, got)
            assert got["name"] in ("", fname.decode()), (name, got)
        mask, chunk = ds.id.read_direct_chunk((0,) * len(ds.shape))
        assert not name.startswith("szip") or mask == 0, (name, "szip could not compress")
        tmask, expect = f["twin_" + name].id.read_direct_chunk((0,) * len(ds.shape))
        assert tmask == 0
    with open(os.path.join(OUT, name + ".chunk.bin"), "wb") as fh:
        fh.write(chunk)
    expect_name = "expect_%s.bin" % hashlib.sha1(expect).hexdigest()[:12]
    with open(os.path.join(OUT, expect_name), "wb") as fh:
        fh.write(expect)
    manifest.append({"name": name, "filters": filters, "mask": mask, "size": len(expect),
                     "expect": expect_name, "pipeline_msg": msg.hex()})


def main():
    os.makedirs(OUT, exist_ok=True)
    jobs = []
    for name, kw in CASES:
        kw = dict(kw)
        data = kw.pop("data")
        libver = kw.pop("libver", "earliest")
        chunks = kw.pop("chunks", data.shape)
        jobs.append((name, libver, lambda f, name=name, data=data, chunks=chunks, kw=kw:
                     f.create_dataset(name, data=data, chunks=chunks, **kw)))
    jobs += [(name, "earliest", make) for name, make in nbit_cases()]
    manifest = []
    tmp = tempfile.mkdtemp()
    for name, libver, make in jobs:
        path = os.path.join(tmp, name + ".h5")
        with h5py.File(path, "w", libver=libver) as f:
            make(f)
        # read back through the filters (not the chunk cache of the writing
        # handle), and store what was read unfiltered beside it
        with h5py.File(path, "r+") as f:
            ds = f[name]
            twin(f, ds, ds[...])
        record(manifest, path, name)
    with open(os.path.join(OUT, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
