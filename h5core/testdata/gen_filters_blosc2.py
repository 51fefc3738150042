#!/usr/bin/python3
"""Writes testdata/filters_blosc2/: chunks of the Blosc2 filter (32026), in
gen_filters.py's format (<case>.chunk.bin, expect_<sha1>.bin, manifest.json).

The writer is the HDF Group's Blosc2 plugin as npm's h5wasm-plugins builds it
for libhdf5 2.0 (h5wasm), through test/h5wasm/write.mjs; Debian has no Blosc2
plugin. The expected bytes are what libhdf5 2.0 reads back through the same
plugin (test/h5wasm/dump.mjs). Debian's h5py reads the stored chunks and the
pipeline message (the files are written with libver v110 so that libhdf5
1.10 opens them).

    npm ci --prefix test/h5wasm
    /usr/bin/python3 h5core/testdata/gen_filters_blosc2.py

Cases: the codecs blosclz, lz4, lz4hc and zstd (zlib fails in this build
of the plugin: h5wasm exports no compress2), no shuffle, byte and
bit shuffle (with items past the last multiple of 8), delta, compression
level 0 (stored), incompressible and tiny chunks (stored), all-zero and
constant chunks (runs), blocks of a set size (many blocks, a short last
one), and 2-, 3- and 4-D chunks, which the plugin stores as B2ND arrays cut
into N-D blocks (chunk dimensions that are not multiples of the block's).
"""

import base64
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
H5WASM = os.path.join(HERE, "..", "..", "test", "h5wasm")
sys.argv = sys.argv[:1]
sys.path.insert(0, HERE)
import gen_filters_plugins as plug  # noqa: E402  (its record(); loads no plugin for these files)
from gen_filters import smooth  # noqa: E402

import h5py  # noqa: E402,F401  (read by plug.record)
import numpy as np  # noqa: E402

plug.OUT = os.path.join(HERE, "filters_blosc2")
RNG = np.random.RandomState(20261128)
BLOSCLZ, LZ4, LZ4HC, ZSTD = 0, 1, 2, 5
NOSHUFFLE, SHUFFLE, BITSHUFFLE, DELTA = 0, 1, 2, 3


def case(name, data, clevel=5, shuffle=SHUFFLE, codec=BLOSCLZ, blocksize=0):
    data = np.ascontiguousarray(data)
    return name, data, [0, blocksize, 0, 0, clevel, shuffle, codec]


def cases():
    n = 2000
    f8 = smooth(n)
    yield case("blosc2_blosclz_f8", f8)
    yield case("blosc2_lz4_f8", f8, codec=LZ4)
    yield case("blosc2_lz4hc_f8", f8, codec=LZ4HC)
    yield case("blosc2_zstd_f8", f8, codec=ZSTD)
    yield case("blosc2_noshuffle_i4", (smooth(n) * 10).astype("<i4"), shuffle=NOSHUFFLE, codec=LZ4)
    yield case("blosc2_bitshuffle_f4_1003", smooth(1003).astype("<f4"), shuffle=BITSHUFFLE, codec=ZSTD)
    yield case("blosc2_bitshuffle_u2_blocks", (smooth(3001) + 1000).astype("<u2"), shuffle=BITSHUFFLE, blocksize=250)
    yield case("blosc2_delta_i8", np.arange(4000, dtype="<i8") * 3 + 7, shuffle=DELTA)
    yield case("blosc2_delta_u2_blocks", (np.arange(3001) // 3).astype("<u2"), shuffle=DELTA, codec=LZ4HC, blocksize=512)
    yield case("blosc2_clevel0_f8", f8[:1000], clevel=0)
    yield case("blosc2_random_u1", RNG.randint(0, 256, 3000).astype("u1"), codec=LZ4)
    yield case("blosc2_tiny_i2", np.array([1, -2, 3], dtype="<i2"))
    yield case("blosc2_zeros_f4", np.zeros(2000, dtype="<f4"))
    yield case("blosc2_constant_i4", np.full(2000, 77, dtype="<i4"))
    yield case("blosc2_runs_i4_blocks", np.repeat(np.arange(8, dtype="<i4") * 0x01010101, 500), blocksize=1024)
    yield case("blosc2_many_blocks_f8", smooth(6000), codec=ZSTD, blocksize=4096)
    yield case("blosc2_2d_f4", smooth(600).astype("<f4").reshape(30, 20))
    yield case("blosc2_2d_i4_blocks", (smooth(41 * 37) * 7).astype("<i4").reshape(41, 37), codec=LZ4, blocksize=256)
    yield case("blosc2_3d_i2", (smooth(7 * 9 * 11) * 3).astype("<i2").reshape(7, 9, 11), codec=ZSTD, blocksize=64)
    yield case("blosc2_3d_f8_bitshuffle", smooth(5 * 6 * 13).reshape(5, 6, 13), shuffle=BITSHUFFLE, blocksize=200)
    yield case("blosc2_4d_u1", (np.arange(3 * 5 * 4 * 7) % 11).astype("u1").reshape(3, 5, 4, 7), blocksize=32)
    yield case("blosc2_2d_zeros_f8", np.zeros((16, 16), dtype="<f8"))


def node(script, *args):
    return subprocess.run(["node", os.path.join(H5WASM, script), *args], check=True, capture_output=True).stdout


def main():
    os.makedirs(plug.OUT, exist_ok=True)
    tmp = tempfile.mkdtemp()
    manifest = []
    for name, data, cd in cases():
        path = os.path.join(tmp, name + ".h5")
        spec = os.path.join(tmp, name + ".json")
        with open(spec, "w") as fh:
            json.dump({"file": path, "libver": ["earliest", "v110"], "objects": [
                {"kind": "dataset", "path": "/" + name, "dtype": data.dtype.str, "shape": list(data.shape),
                 "chunks": list(data.shape), "compression": 32026, "compression_opts": cd,
                 "raw": base64.b64encode(data.tobytes()).decode()}]}, fh)
        node("write.mjs", spec)
        # what libhdf5 2.0 reads through the plugin
        got = base64.b64decode(json.loads(node("dump.mjs", path, "/" + name))["objects"]["/" + name]["raw"])
        assert got == data.tobytes(), name  # the plugin is lossless
        plug.record(manifest, path, name, got)
    with open(os.path.join(plug.OUT, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
