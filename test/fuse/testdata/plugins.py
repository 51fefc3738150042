"""Writes DIR/plugins.h5 with Debian's third-party HDF5 filter plugins
(bitshuffle alone and with LZ4, bzip2, Blosc with its snappy codec, all
through h5py and HDF5_PLUGIN_PATH; LZO with shuffle through PyTables),
datasets of several chunks with partial edge chunks, and beside it
DIR/plugins.h5.NAME, each dataset's elements as libhdf5 reads them back
through the same filter. For test/fuse/plugins_test.go.

Usage: HDF5_PLUGIN_PATH=... /usr/bin/python3 plugins.py DIR"""
import os
import sys

import h5py
import numpy as np
import tables

name = os.path.join(sys.argv[1], "plugins.h5")
x = np.linspace(0, 30, 203 * 37)
with h5py.File(name, "w") as f:
    # bitshuffle: (block size, 0 = no compression | 2 = LZ4)
    f.create_dataset("bshuf", data=(np.sin(x) * 1e4).astype("<i4").reshape(203, 37), chunks=(50, 16),
                     compression=32008, compression_opts=(0, 0))
    f.create_dataset("g/bshuf_lz4", data=np.cos(x).reshape(203, 37), chunks=(64, 10),
                     compression=32008, compression_opts=(128, 2))
    f.create_dataset("bzip2", data=(np.sin(x) * 100).astype("<i2"), chunks=(1000,),
                     compression=307, compression_opts=(9,))
    # Blosc: level 5, byte shuffle, codec 3 = snappy
    f.create_dataset("blosc_snappy", data=np.sin(x).astype("<f4"), chunks=(700,),
                     compression=32001, compression_opts=(0, 0, 0, 0, 5, 1, 3))
with tables.open_file(name, "a") as f:
    f.create_carray("/", "lzo", obj=np.tan(x).reshape(203, 37), chunkshape=(40, 20),
                    filters=tables.Filters(complevel=5, complib="lzo", shuffle=True))
with h5py.File(name, "r") as f:
    for p in ("bshuf", "g/bshuf_lz4", "bzip2", "blosc_snappy"):
        f[p][...].tofile(name + "." + p.replace("/", "_"))
with tables.open_file(name, "r") as f:
    f.root.lzo.read().tofile(name + ".lzo")
