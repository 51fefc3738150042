#!/usr/bin/python3
"""Writes the fixed array / extensible array chunk index test files.

Run with Debian's /usr/bin/python3 (h5py 3.7, libhdf5 1.10) from this
directory:

    /usr/bin/python3 gen_arrays.py

It writes arrays/<name>.h5 (one dataset, /<name>, per file, libver latest)
and arrays/expected.json: for every dataset its shape, the chunk index kind
it must use and its stored chunks as libhdf5 lists them (offset, address,
stored size, filter mask), plus the sha256 of its raw bytes (ds[...]).
Long chunk listings are given as a digest (see listing). When the shared
fixture hep001/latest_layouts.h5 exists (../../../shared/fixtures from
here) it also writes arrays/latest_layouts.json: the object header address
and chunk listing of each of its fixed and extensible array datasets.
"""

import hashlib
import json
import os

import h5py
import numpy as np

OUT = "arrays"
LIST_MAX = 2000
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "../../../shared/fixtures/hep001/latest_layouts.h5")


def listing(ds):
    """The stored chunks of ds in row-major order.

    libhdf5 1.10 finds the i-th chunk (and a chunk by its coordinates) by
    iterating over the index, so a full listing costs O(n^2): above LIST_MAX
    chunks (all of them written) the listing is the sha256 of one line per
    chunk, "offsets:stored size:filter mask:sha256 of the stored bytes\n",
    read chunk by chunk with read_direct_chunk, and the addresses of a sample
    of chunks."""
    n = ds.id.get_num_chunks()
    grid = [-(-n // c) for n, c in zip(ds.shape, ds.chunks)]
    if n <= LIST_MAX:
        chunks = [{"offset": [int(v) for v in i.chunk_offset], "addr": int(i.byte_offset),
                   "size": int(i.size), "mask": int(i.filter_mask)}
                  for i in (ds.id.get_chunk_info(i) for i in range(n))]
        if chunks:
            fix_offsets(ds, grid, chunks)
        return {"chunks": sorted(chunks, key=lambda c: c["offset"])}
    lines = []
    for scaled in np.ndindex(*grid):
        offset = tuple(int(s * c) for s, c in zip(scaled, ds.chunks))
        mask, raw = ds.id.read_direct_chunk(offset)
        lines.append("%s:%d:%d:%s\n" % (",".join(map(str, offset)), len(raw), mask,
                                         hashlib.sha256(raw).hexdigest()))
    assert len(lines) == n, ds.name
    samples = (ds.id.get_chunk_info(i) for i in range(0, n, n // 40))
    return {"chunks_sha256": hashlib.sha256("".join(lines).encode()).hexdigest(),
            "addr_samples": [{"offset": [int(v) for v in i.chunk_offset], "addr": int(i.byte_offset)}
                             for i in samples]}


def fix_offsets(ds, grid, chunks):
    """Checks the offset of each listed chunk against the bytes stored at
    its address, and corrects it. libhdf5 1.10 lists the chunks of an
    extensible array whose unlimited dimension is not the first at wrong
    offsets (its iteration does not undo the dimension swap); the addresses
    are right, and read_direct_chunk looks chunks up as reads do."""
    stored = {}
    for scaled in np.ndindex(*grid):
        offset = [int(s * c) for s, c in zip(scaled, ds.chunks)]
        try:
            stored.setdefault(ds.id.read_direct_chunk(tuple(offset))[1], []).append(offset)
        except (OSError, RuntimeError):
            pass  # not allocated
    with open(ds.file.filename, "rb") as fh:
        for c in chunks:
            fh.seek(c["addr"])
            candidates = stored[fh.read(c["size"])]
            if c["offset"] not in candidates:
                assert len(candidates) == 1, (ds.name, c, candidates)
                c["offset"] = candidates[0]


def describe(ds, index):
    d = {"path": ds.name, "index": index, "shape": list(ds.shape),
         "maxshape": [-1 if m is None else m for m in ds.maxshape],
         "chunk_shape": list(ds.chunks), "elem_size": ds.dtype.itemsize,
         "filtered": ds.id.get_create_plist().get_nfilters() > 0, "num_chunks": int(ds.id.get_num_chunks()),
         "sha256": hashlib.sha256(ds[...].tobytes()).hexdigest()}
    d.update(listing(ds))
    return d


def seq(n, dtype, mod=251):
    return (np.arange(n) % mod + 1).astype(dtype)


def make(name, index, write, **kw):
    """Creates arrays/<name>.h5 holding /<name>, filled by write(ds)."""
    path = os.path.join(OUT, name + ".h5")
    with h5py.File(path, "w", libver="latest") as f:
        ds = f.create_dataset(name, **kw)
        write(ds)
    with h5py.File(path, "r") as f:
        return describe(f[name], index)


def fill_all(ds):
    ds[...] = seq(ds.size, ds.dtype).reshape(ds.shape)


def fixed_arrays():
    fa = "fixed_array"
    rng = np.random.default_rng(7)

    def gaps_1d(ds):  # whole pages of the 5 never written
        ds[0:10] = 1
        ds[3000:3005] = 2
        ds[4999] = 3

    def partial(ds):
        ds[4:8] = [1, 2, 3, 4]
        ds[16:18] = [5, 6]

    def gzip_2d(ds):
        ds[...] = (rng.standard_normal(ds.shape) * 100).round().astype("f4")
        raw = np.arange(100, dtype="<f4").tobytes()  # stored with deflate skipped
        ds.id.write_direct_chunk((40, 20), raw, filter_mask=1)

    def gzip_paged(ds):
        ds[...] = seq(ds.size, ds.dtype, 7)
        ds.id.write_direct_chunk((2000,), b"\x2a", filter_mask=1)

    return [
        make("fa_few", fa, fill_all, shape=(10,), chunks=(3,), dtype="i4"),
        make("fa_1025", fa, fill_all, shape=(1025,), chunks=(1,), dtype="u1"),
        make("fa_5000", fa, fill_all, shape=(5000,), chunks=(1,), dtype="u1"),
        make("fa_70000", fa, fill_all, shape=(350, 200), chunks=(1, 1), dtype="u1"),
        make("fa_paged_gaps", fa, gaps_1d, shape=(5000,), chunks=(1,), dtype="u1", fillvalue=9),
        make("fa_partial", fa, partial, shape=(20,), chunks=(4,), dtype="i2", fillvalue=-7),
        make("fa_2d", fa, fill_all, shape=(10, 7), chunks=(3, 4), dtype="i4"),
        make("fa_3d", fa, fill_all, shape=(5, 6, 7), chunks=(2, 4, 3), dtype="i2"),
        make("fa_maxshape", fa, fill_all, shape=(10, 7), maxshape=(20, 15), chunks=(3, 4), dtype="i4"),
        make("fa_gzip", fa, gzip_2d, shape=(100, 50), chunks=(10, 10), dtype="f4", compression="gzip"),
        make("fa_gzip_paged", fa, gzip_paged, shape=(3000,), chunks=(1,), dtype="u1", compression="gzip"),
        make("fa_empty", fa, lambda ds: None, shape=(30,), chunks=(4,), dtype="i4", fillvalue=5),
    ]


def extensible_arrays():
    ea = "extensible_array"

    def grow(n):
        def write(ds):
            ds.resize((n,))
            ds[...] = seq(n, ds.dtype)
        return write

    def sparse_paged(ds):  # chunks in the paged data blocks of super block 13
        ds[0:3] = 1
        ds[500:505] = 2
        ds[131070:131080] = 3
        ds[132089] = 4
        ds[140000] = 5
        ds[149999] = 6

    def gaps(ds):
        ds[0:5] = 1
        ds[40:52] = 2
        ds[97:] = 3

    def gzip(ds):
        ds[...] = seq(ds.size, ds.dtype, 1000) * 3
        ds.id.write_direct_chunk((5000,), np.arange(10, dtype="<i4").tobytes(), filter_mask=1)

    unl = dict(chunks=(1,), dtype="u1", maxshape=(None,), shape=(0,))
    return [
        make("ea_1", ea, grow(1), **unl),
        make("ea_10", ea, grow(10), **unl),
        make("ea_100", ea, grow(100), **unl),
        make("ea_1000", ea, grow(1000), **unl),
        make("ea_20000", ea, grow(20000), **unl),
        make("ea_sparse_paged", ea, sparse_paged, shape=(150000,), maxshape=(None,), chunks=(1,),
             dtype="u1", fillvalue=8),
        make("ea_gaps", ea, gaps, shape=(100,), maxshape=(None,), chunks=(5,), dtype="i2", fillvalue=3),
        make("ea_gzip", ea, gzip, shape=(6000,), maxshape=(None,), chunks=(10,), dtype="i4",
             compression="gzip"),
        make("ea_2d_first", ea, fill_all, shape=(30, 7), maxshape=(None, 7), chunks=(4, 3), dtype="i2"),
        make("ea_2d_second", ea, fill_all, shape=(7, 30), maxshape=(10, None), chunks=(2, 4), dtype="i2"),
        make("ea_3d_middle", ea, fill_all, shape=(4, 10, 5), maxshape=(4, None, 5), chunks=(2, 3, 2),
             dtype="i4"),
        make("ea_empty", ea, lambda ds: None, shape=(50,), maxshape=(None,), chunks=(4,), dtype="i4",
             fillvalue=5),
    ]


def fixture():
    """Chunk listings of the array-indexed columns of the shared fixture."""
    names = {"c02_fixed_array": "fixed_array"}
    with h5py.File(FIXTURE, "r") as f:
        out = []
        for name, ds in f["wide"].items():
            index = names.get(name)
            if index is None and ds.chunks and len(ds.maxshape) == 1 and ds.maxshape[0] is None:
                index = "extensible_array"
            if index is None:
                continue
            d = describe(ds, index)
            d["addr"] = h5py.h5o.get_info(ds.id).addr
            out.append(d)
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    data = fixed_arrays() + extensible_arrays()
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"made_by": "h5py %s / libhdf5 %s" % (h5py.version.version, h5py.version.hdf5_version),
                   "datasets": data}, f, indent=1)
    if os.path.exists(FIXTURE):
        with open(os.path.join(OUT, "latest_layouts.json"), "w") as f:
            json.dump({"file": "hep001/latest_layouts.h5", "datasets": fixture()}, f, indent=1)


if __name__ == "__main__":
    main()
