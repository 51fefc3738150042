#!/usr/bin/python3
"""Writes testdata/filters_plugins/: chunks of the third-party filters that
libhdf5 reads only through plugins or PyTables, in gen_filters.py's format
(<case>.chunk.bin, expect_<sha1>.bin, manifest.json; see there).

Writers: Debian's bitshuffle package (its HDF5 plugin libh5bshuf.so, id
32008: bit shuffle alone and with LZ4; `import bitshuffle.h5` alone does
not register it with Debian's h5py), PyTables
(python3-tables: LZO 305 and its own bzip2 307, in CArrays and a Table),
and hdf5-filter-plugin-zfp-serial (zfp 32013, reversible; every zfp mode is
in gen_filters_zfp.py). The expected bytes are what libhdf5
reads back through the same filter (h5py or PyTables), as packed
little-endian values of the file's datatype.

    apt-get install python3-h5py python3-tables bitshuffle \
        hdf5-filter-plugin-zfp-serial

HDF5_PLUGIN_PATH points at a folder of links to the plugins needed (Debian's
liblzf_filter.so fails to load and would stop libhdf5's plugin search).

Usage: /usr/bin/python3 gen_filters_plugins.py [outdir]
"""

import hashlib
import json
import os
import sys
import tempfile

PLUGINS = "/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins"
_plugdir = tempfile.mkdtemp()
for so in ("libh5zzfp.so", "libh5bshuf.so"):
    os.symlink(os.path.join(PLUGINS, so), os.path.join(_plugdir, so))
os.environ["HDF5_PLUGIN_PATH"] = _plugdir

import bitshuffle.h5  # noqa: E402  (its constants; the filter comes from the plugin)
import h5py  # noqa: E402
import numpy as np  # noqa: E402
import tables  # noqa: E402

sys.argv = sys.argv[:1]  # gen_filters reads its own output folder from argv
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_filters import find_pipeline_message, parse_pipeline, smooth  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "filters_plugins")
RNG = np.random.RandomState(20261127)
BSHUF_LZ4 = bitshuffle.h5.H5_COMPRESS_LZ4
ZFP = 32013


def record(manifest, path, name, expect):
    """Saves chunk 0 of dataset name with its pipeline message; expect is
    what libhdf5 decoded it to."""
    raw = open(path, "rb").read()
    with h5py.File(path, "r") as f:
        ds = f[name]
        pl = ds.id.get_create_plist()
        msg = find_pipeline_message(raw, pl.get_nfilters())
        assert msg is not None, name
        filters = parse_pipeline(msg)
        for i, got in enumerate(filters):
            fid, flags, cd, _ = pl.get_filter(i)
            assert (got["id"], got["flags"], got["cd"][:16]) == (fid, flags, list(cd)[:16]), (name, got)
        assert ds.chunks == ds.shape, (name, ds.chunks, ds.shape)
        mask, chunk = ds.id.read_direct_chunk((0,) * len(ds.shape))
    with open(os.path.join(OUT, name + ".chunk.bin"), "wb") as fh:
        fh.write(chunk)
    expect_name = "expect_%s.bin" % hashlib.sha1(expect).hexdigest()[:12]
    with open(os.path.join(OUT, expect_name), "wb") as fh:
        fh.write(expect)
    manifest.append({"name": name, "filters": filters, "mask": mask, "size": len(expect),
                     "expect": expect_name, "pipeline_msg": msg.hex()})


def h5py_case(manifest, tmp, name, data, **kw):
    path = os.path.join(tmp, name + ".h5")
    with h5py.File(path, "w", libver="earliest") as f:
        f.create_dataset(name, data=data, chunks=data.shape, **kw)
    with h5py.File(path, "r") as f:  # read back through the plugin
        got = f[name][...]
    record(manifest, path, name, np.ascontiguousarray(got).tobytes())


def tables_case(manifest, tmp, name, data, complib, shuffle=False, table=False):
    path = os.path.join(tmp, name + ".h5")
    filters = tables.Filters(complevel=5, complib=complib, shuffle=shuffle)
    with tables.open_file(path, "w") as f:
        if table:
            f.create_table("/", name, obj=data, filters=filters, chunkshape=data.shape)
        else:
            f.create_carray("/", name, obj=data, filters=filters, chunkshape=data.shape)
    with tables.open_file(path, "r") as f:  # read back through PyTables' filter
        got = f.get_node("/" + name).read()
    record(manifest, path, name, np.ascontiguousarray(got).tobytes())


def main():
    os.makedirs(OUT, exist_ok=True)
    tmp = tempfile.mkdtemp()
    manifest = []
    n = 1500
    # bitshuffle: compression_opts = (block size in elements, 0 or LZ4)
    h5py_case(manifest, tmp, "bshuf_f32", smooth(n).astype("<f4"), compression=32008, compression_opts=(0, 0))
    h5py_case(manifest, tmp, "bshuf_lz4_f64", smooth(n), compression=32008, compression_opts=(0, BSHUF_LZ4))
    # 1003 elements in blocks of 64: a partial last block and 3 leftover elements
    h5py_case(manifest, tmp, "bshuf_lz4_i16_block64", (smooth(1003) * 10).astype("<i2"),
              compression=32008, compression_opts=(64, BSHUF_LZ4))
    h5py_case(manifest, tmp, "bshuf_u8_block16", (np.arange(205) % 13).astype("u1"),
              compression=32008, compression_opts=(16, 0))
    h5py_case(manifest, tmp, "bshuf_lz4_u32_random", RNG.randint(0, 2**32, 4100, dtype=np.uint64).astype("<u4"),
              compression=32008, compression_opts=(0, BSHUF_LZ4))
    h5py_case(manifest, tmp, "bshuf_lz4_compound12", compression=32008, compression_opts=(0, BSHUF_LZ4),
              data=np.array(list(zip(np.arange(n, dtype="<i4"), smooth(n))), dtype=[("a", "<i4"), ("b", "<f8")]))
    # tiny: fewer than 8 elements, all leftover
    h5py_case(manifest, tmp, "bshuf_lz4_tiny", np.array([1.5, -2.5, 3.25], dtype="<f8"),
              compression=32008, compression_opts=(0, BSHUF_LZ4))
    # PyTables' LZO: CArrays (checksum and size appended), shuffled, a Table
    tables_case(manifest, tmp, "lzo_f64", np.tile(smooth(100), n // 100), "lzo")
    tables_case(manifest, tmp, "lzo_i32_shuffle", (smooth(n) * 3).astype("<i4"), "lzo", shuffle=True)
    tables_case(manifest, tmp, "lzo_random_u8", RNG.randint(0, 256, 3000).astype("u1"), "lzo")
    tables_case(manifest, tmp, "lzo_runs_i16", np.repeat(np.arange(30, dtype="<i2"), 200), "lzo")
    rows = np.zeros(400, dtype=[("t", "<i8"), ("x", "<f4"), ("s", "S6")])
    rows["t"] = np.arange(400) * 1000
    rows["x"] = smooth(400).astype("<f4")
    rows["s"] = [("r%03d" % (i % 50)).encode() for i in range(400)]
    tables_case(manifest, tmp, "lzo_table", rows, "lzo", table=True)
    tables_case(manifest, tmp, "bzip2_tables_i32", (smooth(n) * 3).astype("<i4"), "bzip2")
    # zfp, reversible mode
    h5py_case(manifest, tmp, "zfp_reversible_f64", smooth(n), compression=ZFP, compression_opts=(5, 0, 0, 0, 0, 0))
    with open(os.path.join(OUT, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
