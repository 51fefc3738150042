#!/usr/bin/python3
"""Independent decoder of structured-chunk sparse datasets, for tests.

Written from shared/docs/sparse-structured-chunk-format.md, without h5core:
it finds the dataset's object header through libhdf5 (h5py link info; the
dataset itself cannot be opened by libhdf5 1.10), then parses the object
header (v1 or v2, with continuations), the dataspace, the layout message
v5 class 4 and the 0x0019 section pipeline, walks the chunk index (single
chunk, fixed array, extensible array, v2 B-tree), unfilters each section
(deflate, shuffle) and decodes the encoded selections (every version).

usage: sparse_decode.py FILE DATASET DTYPE   (DTYPE a numpy dtype, e.g. <i4)
prints JSON: shape, maxshape, chunk, index, chunks [{scaled, kind, n}],
coo [[i0, ..., value], ...] sorted row-major (positions outside the
extent dropped).
"""
import json
import math
import struct
import sys
import zlib

import h5py
import numpy as np

UNDEF = 0xFFFFFFFFFFFFFFFF


def u(b, off, n):
    return int.from_bytes(b[off:off + n], "little")


def lookup3(data, init=0):
    """Jenkins lookup3 hashlittle, as HDF5's H5_checksum_lookup3."""
    M = 0xFFFFFFFF

    def rot(x, k):
        return ((x << k) | (x >> (32 - k))) & M

    n = len(data)
    a = b = c = (0xDEADBEEF + n + init) & M
    p = 0
    while n > 12:
        a = (a + u(data, p, 4)) & M
        b = (b + u(data, p + 4, 4)) & M
        c = (c + u(data, p + 8, 4)) & M
        a = (a - c) & M; a ^= rot(c, 4); c = (c + b) & M
        b = (b - a) & M; b ^= rot(a, 6); a = (a + c) & M
        c = (c - b) & M; c ^= rot(b, 8); b = (b + a) & M
        a = (a - c) & M; a ^= rot(c, 16); c = (c + b) & M
        b = (b - a) & M; b ^= rot(a, 19); a = (a + c) & M
        c = (c - b) & M; c ^= rot(b, 4); b = (b + a) & M
        p += 12
        n -= 12
    if n == 0:
        return c
    tail = data[p:] + bytes(12 - n)
    a = (a + u(tail, 0, 4)) & M
    b = (b + u(tail, 4, 4)) & M
    c = (c + u(tail, 8, 4)) & M
    c ^= b; c = (c - rot(b, 14)) & M
    a ^= c; a = (a - rot(c, 11)) & M
    b ^= a; b = (b - rot(a, 25)) & M
    c ^= b; c = (c - rot(b, 16)) & M
    a ^= c; a = (a - rot(c, 4)) & M
    b ^= a; b = (b - rot(a, 14)) & M
    c ^= b; c = (c - rot(b, 24)) & M
    return c


class Reader:
    def __init__(self, path):
        with open(path, "rb") as fh:
            self.b = fh.read()

    def at(self, addr, n):
        if addr + n > len(self.b):
            raise ValueError("read of %d bytes at %d beyond end of file" % (n, addr))
        return self.b[addr:addr + n]


def messages(r, addr):
    """Yield (type, body) of every message of the object header at addr."""
    b = r.b
    out = []
    if b[addr:addr + 4] == b"OHDR":
        flags = b[addr + 5]
        p = addr + 6
        if flags & 0x20:
            p += 16
        if flags & 0x10:
            p += 4
        w = 1 << (flags & 3)
        size = u(b, p, w)
        p += w
        blocks = [(p, p + size)]
        while blocks:
            s, e = blocks.pop(0)
            while s + 4 <= e:
                mt, ms, mf = b[s], u(b, s + 1, 2), b[s + 3]
                s += 4 + (2 if flags & 0x04 else 0)
                body = b[s:s + ms]
                s += ms
                if mt == 0x10:
                    ca, cl = u(body, 0, 8), u(body, 8, 8)
                    assert b[ca:ca + 4] == b"OCHK"
                    blocks.append((ca + 4, ca + cl - 4))
                else:
                    out.append((mt, body))
        return out
    assert b[addr] == 1, "object header version %d" % b[addr]
    nmsg, size = u(b, addr + 2, 2), u(b, addr + 8, 4)
    blocks = [(addr + 16, addr + 16 + size)]
    while blocks:
        s, e = blocks.pop(0)
        while s + 8 <= e:
            mt, ms = u(b, s, 2), u(b, s + 2, 2)
            body = b[s + 8:s + 8 + ms]
            s += 8 + ms
            if mt == 0x10:
                blocks.append((u(body, 0, 8), u(body, 0, 8) + u(body, 8, 8)))
            else:
                out.append((mt, body))
    return out


def dataspace(body):
    ver, rank, flags = body[0], body[1], body[2]
    p = 8 if ver == 1 else 4
    dims = [u(body, p + 8 * i, 8) for i in range(rank)]
    maxd = [u(body, p + 8 * (rank + i), 8) for i in range(rank)] if flags & 1 else dims
    return dims, maxd


def layout(body):
    assert body[0] == 5 and body[1] == 4, "not a structured-chunk layout"
    assert body[2] == 0
    L = {"type": u(body, 3, 2), "flags": body[5]}
    n, e = body[6], body[7]
    p = 8
    stored = [u(body, p + e * i, e) for i in range(n)]
    p += n * e
    L["chunk"], L["elem"] = stored[:-1], stored[-1]
    assert body[p] == 8
    L["nsec"], nmeta = body[p + 1], body[p + 2]
    p += 3 + nmeta
    S = 1
    for v in stored:
        S *= v
    L["csl"] = 8 if L["nsec"] == 3 else min(8, 1 + (int(math.log2(S)) + 8) // 8)
    L["index"] = body[p]
    p += 1
    if L["index"] == 1:
        size = u(body, p, L["csl"])
        p += L["csl"]
        rec, p = sections(body, p, L, L["flags"] & 2)
        rec["size"] = size
        L["single"] = rec
    elif L["index"] == 3:
        p += 1
    elif L["index"] == 4:
        p += 5
    elif L["index"] == 5:
        p += 6
    else:
        raise ValueError("index type %d" % L["index"])
    L["addr"] = u(body, p, 8)
    return L


def sections(b, p, L, filtered):
    n = L["nsec"]
    rec = {"offsets": [0] + [u(b, p + 8 * i, 8) for i in range(n - 1)]}
    p += 8 * (n - 1)
    if filtered:
        rec["unfiltered"] = [u(b, p + 8 * i, 8) for i in range(n)]
        p += 8 * n
        rec["masks"] = [u(b, p + 4 * i, 4) for i in range(n)]
        p += 4 * n
    return rec, p


def index_record(b, p, L, filtered, rank=0):
    addr, size = u(b, p, 8), u(b, p + 8, L["csl"])
    p += 8 + L["csl"]
    scaled = [u(b, p + 8 * i, 8) for i in range(rank)]
    p += 8 * rank
    rec, p = sections(b, p, L, filtered)
    rec.update(addr=addr, size=size, scaled=scaled)
    return rec, p


def section_pipeline(body):
    assert body[0] == 1
    out = {}
    p = 2
    for _ in range(body[1]):
        sec, nf, size = body[p], body[p + 1], u(body, p + 2, 2)
        p += 4
        q, filters = p, []
        for _ in range(nf):
            fid = u(body, q, 2)
            q += 2
            if fid >= 256:
                nl = u(body, q, 2)
                q += 2 + nl
            q += 2  # flags
            ncd = u(body, q, 2)
            q += 2
            filters.append((fid, [u(body, q + 4 * i, 4) for i in range(ncd)]))
            q += 4 * ncd
        out[sec] = filters
        p += size
    return out


def fixed_array(r, L, filtered, nchunks_hint):
    h = r.at(L["addr"], 28)
    assert h[:4] == b"FAHD"
    esize, pbits, n, dblk = h[6], h[7], u(h, 8, 8), u(h, 16, 8)
    if dblk == UNDEF:
        return []
    p = dblk + 14
    recs = []
    if n > (1 << pbits):
        pn = 1 << pbits
        npages = (n + pn - 1) // pn
        bitmap = r.at(p, (npages + 7) // 8)
        p += (npages + 7) // 8 + 4
        for pg in range(npages):
            k = min(pn, n - pg * pn)
            if bitmap[pg // 8] & (0x80 >> (pg % 8)):
                blk = r.at(p, k * esize)
                recs += [index_record(blk, i * esize, L, filtered)[0] for i in range(k)]
            else:
                recs += [None] * k
            p += k * esize + 4
    else:
        blk = r.at(p, n * esize)
        recs = [index_record(blk, i * esize, L, filtered)[0] for i in range(n)]
    return recs


def extensible_array(r, L, filtered):
    h = r.at(L["addr"], 12 + 6 * 8 + 8 + 4)
    assert h[:4] == b"EAHD"
    esize, mbits, ib_n, db_min, sb_min, pbits = h[6], h[7], h[8], h[9], h[10], h[11]
    iblk = u(h, 12 + 48, 8)
    if iblk == UNDEF:
        return []
    nsblks = 1 + mbits - int(math.log2(db_min))
    ndblk_ib = 2 * (sb_min - 1)
    nsblk_ib = nsblks - 2 * int(math.log2(sb_min))
    ib = r.at(iblk, 14 + ib_n * esize + 8 * (ndblk_ib + nsblk_ib))
    assert ib[:4] == b"EAIB"
    recs = [index_record(ib, 14 + i * esize, L, filtered)[0] for i in range(ib_n)]
    p = 14 + ib_n * esize
    dblks = [u(ib, p + 8 * i, 8) for i in range(ndblk_ib)]
    sblks = [u(ib, p + 8 * (ndblk_ib + i), 8) for i in range(nsblk_ib)]
    boff = (mbits + 7) // 8

    def read_dblk(addr, count):
        if addr == UNDEF:
            return [None] * count
        assert count <= (1 << pbits), "paged EA data block"
        d = r.at(addr, 14 + boff + count * esize)
        assert d[:4] == b"EADB"
        return [index_record(d, 14 + boff + i * esize, L, filtered)[0] for i in range(count)]

    di = 0
    for s in range(nsblks):
        nd, dn = 1 << (s // 2), (1 << ((s + 1) // 2)) * db_min
        if s < 2 * int(math.log2(sb_min)):
            for _ in range(nd):
                recs += read_dblk(dblks[di], dn)
                di += 1
        else:
            sa = sblks[s - 2 * int(math.log2(sb_min))]
            if sa == UNDEF:
                break
            sb = r.at(sa, 14 + boff + 8 * nd)
            assert sb[:4] == b"EASB"
            for k in range(nd):
                recs += read_dblk(u(sb, 14 + boff + 8 * k, 8), dn)
    return recs


def nbytes(x):
    return int(math.log2(x)) // 8 + 1 if x > 0 else 1


def btree2(r, L, filtered, rank):
    h = r.at(L["addr"], 38)
    assert h[:4] == b"BTHD"
    nsize, rsize, depth = u(h, 6, 4), u(h, 10, 2), u(h, 12, 2)
    root, nroot = u(h, 16, 8), u(h, 24, 2)
    if root == UNDEF:
        return []
    maxn, cum, cumsz = [(nsize - 10) // rsize], [], []
    cum.append(maxn[0])
    cumsz.append(nbytes(cum[0]))
    for lev in range(1, depth + 1):
        ptr = 8 + nbytes(maxn[lev - 1]) + (cumsz[lev - 1] if lev > 1 else 0)
        maxn.append((nsize - (10 + ptr)) // (rsize + ptr))
        cum.append((maxn[lev] + 1) * cum[lev - 1] + maxn[lev])
        cumsz.append(nbytes(cum[lev]))
    recs = []

    def node(addr, nrec, lev):
        b = r.at(addr, nsize)
        assert b[:4] == (b"BTLF" if lev == 0 else b"BTIN")
        p = 6
        mine = []
        for _ in range(nrec):
            mine.append(index_record(b, p, L, filtered, rank)[0])
            p += rsize
        if lev == 0:
            recs.extend(mine)
            return
        for i in range(nrec + 1):
            ca = u(b, p, 8)
            p += 8
            cn = u(b, p, nbytes(maxn[lev - 1]))
            p += nbytes(maxn[lev - 1])
            if lev > 1:
                p += cumsz[lev - 1]
            node(ca, cn, lev - 1)
            if i < nrec:
                recs.append(mine[i])

    node(root, nroot, depth)
    return recs


def unfilter(data, filters, mask, elem):
    for i in reversed(range(len(filters))):
        if mask & (1 << i):
            continue
        fid, cd = filters[i]
        if fid == 1:
            data = zlib.decompress(data)
        elif fid == 2:
            es = cd[0] if cd else elem
            n = len(data) // es
            arr = np.frombuffer(data[:n * es], np.uint8).reshape(es, n).T.copy()
            data = arr.tobytes() + data[n * es:]
        else:
            raise ValueError("filter %d not supported" % fid)
    return data


def decode_selection(b, chunk):
    assert b[0] == 1 and b[1] == 0, "envelope"
    xl = u(b, 3, 4)
    ext = b[7:7 + xl]
    ver, rank = ext[0], ext[1]
    p = 8 if ver == 1 else 4
    dims = [u(ext, p + 8 * i, 8) for i in range(rank)]
    assert dims == list(chunk), "selection extent %s, chunk %s" % (dims, chunk)
    s = b[7 + xl:]
    kind, sver = u(s, 0, 4), u(s, 4, 4)
    total = int(np.prod(chunk))
    strides = [int(np.prod(chunk[i + 1:])) for i in range(rank)]

    def lin(c):
        return sum(x * st for x, st in zip(c, strides))

    if kind == 0:
        return "none", []
    if kind == 3:
        return "all", list(range(total))
    if kind == 1:
        if sver == 1:
            w, p = 4, 16
            assert u(s, p, 4) == rank
            n, p = u(s, p + 4, 4), p + 8
        else:
            w = s[8]
            assert u(s, 9, 4) == rank
            n, p = u(s, 13, w), 13 + w
        pts = []
        for i in range(n):
            pts.append(lin([u(s, p + w * (i * rank + k), w) for k in range(rank)]))
        return "points", pts
    assert kind == 2
    if sver == 1:
        w, cw, p, regular = 4, 4, 16, False
    elif sver == 2:
        w, cw, p, regular = 8, 8, 13, bool(s[8] & 1)
    else:
        w = s[9]
        cw, p, regular = w, 10, bool(s[8] & 1)
    assert u(s, p, 4) == rank
    p += 4
    sel = set()
    if regular:
        axes = []
        for k in range(rank):
            st, sd, ct, bl = (u(s, p + w * j, w) for j in range(4))
            p += 4 * w
            axes.append(sorted({st + i * sd + j for i in range(ct) for j in range(bl)}))
        for c in np.array(np.meshgrid(*axes, indexing="ij")).reshape(rank, -1).T:
            sel.add(lin([int(x) for x in c]))
    else:
        n = u(s, p, cw)
        p += cw
        for _ in range(n):
            lo = [u(s, p + w * k, w) for k in range(rank)]
            hi = [u(s, p + w * (rank + k), w) for k in range(rank)]
            p += 2 * rank * w
            for c in np.array(np.meshgrid(*[range(a, z + 1) for a, z in zip(lo, hi)], indexing="ij")).reshape(rank, -1).T:
                sel.add(lin([int(x) for x in c]))
    return "hyper", sorted(sel)


def main():
    path, dset, dtype = sys.argv[1], sys.argv[2], np.dtype(sys.argv[3])
    with h5py.File(path, "r") as f:
        parent, _, name = dset.rstrip("/").rpartition("/")
        g = f[parent or "/"]
        addr = g.id.links.get_info(name.encode()).u
    r = Reader(path)
    msgs = messages(r, addr)
    dims = maxd = L = None
    pipes = {}
    for mt, body in msgs:
        if mt == 0x01:
            dims, maxd = dataspace(body)
        elif mt == 0x08:
            L = layout(body)
        elif mt == 0x19:
            pipes = section_pipeline(body)
    assert L["elem"] == dtype.itemsize, "element size %d, dtype %s" % (L["elem"], dtype)
    rank, chunk = len(dims), L["chunk"]
    filtered = bool(pipes)
    grid = [(m + c - 1) // c if m != UNDEF else None for m, c in zip(maxd, chunk)]
    if L["addr"] == UNDEF:
        recs = []
    elif L["index"] == 1:
        recs = [dict(L["single"], addr=L["addr"], scaled=[0] * rank)]
    elif L["index"] == 3:
        recs = fixed_array(r, L, filtered, grid)
    elif L["index"] == 4:
        recs = extensible_array(r, L, filtered)
    else:
        recs = btree2(r, L, filtered, rank)
    # linear index -> scaled for the arrays
    if L["index"] in (3, 4):
        unlim = [i for i, m in enumerate(maxd) if m == UNDEF]
        order = unlim + [i for i in range(rank) if i not in unlim]
        counts = [grid[i] if grid[i] is not None else 1 for i in order]
        for i, rec in enumerate(recs):
            if rec is None:
                continue
            sw, v = [0] * rank, i
            for k in reversed(range(rank)):
                if k == 0:
                    sw[k] = v
                else:
                    sw[k], v = v % counts[k], v // counts[k]
            rec["scaled"] = [0] * rank
            for k, d in enumerate(order):
                rec["scaled"][d] = sw[k]
    coo, chunks = [], []
    for rec in recs:
        if rec is None or rec["addr"] == UNDEF:
            continue
        raw = r.at(rec["addr"], rec["size"])
        offs = rec["offsets"] + [rec["size"]]
        secs = [raw[offs[i]:offs[i + 1]] for i in range(L["nsec"])]
        partial = bool(L["flags"] & 1) and any((s + 1) * c > d for s, c, d in zip(rec["scaled"], chunk, dims))
        for i in range(L["nsec"]):
            if i in pipes and not partial:
                secs[i] = unfilter(secs[i], pipes[i], rec["masks"][i], L["elem"])
                assert len(secs[i]) == rec["unfiltered"][i]
        s0 = secs[0]
        ck = struct.unpack("<I", s0[-4:])[0]
        assert ck == lookup3(s0[:-4]), "section 0 checksum of chunk %s" % rec["scaled"]
        kind, pos = decode_selection(s0[:-4], chunk)
        vals = np.frombuffer(secs[1], dtype)
        assert len(vals) == len(pos), "%d values, %d positions" % (len(vals), len(pos))
        chunks.append({"scaled": rec["scaled"], "kind": kind, "n": len(pos), "checksum": ck})
        for p, v in zip(pos, vals):
            c, q = [], p
            for k in reversed(range(rank)):
                c.insert(0, q % chunk[k])
                q //= chunk[k]
            g = [s * ch + x for s, ch, x in zip(rec["scaled"], chunk, c)]
            if all(x < d for x, d in zip(g, dims)):
                coo.append(g + [v.item()])
    coo.sort(key=lambda e: e[:rank])
    print(json.dumps({"shape": dims, "maxshape": [None if m == UNDEF else m for m in maxd], "chunk": chunk,
                      "index": L["index"], "chunks": chunks, "coo": coo}))


if __name__ == "__main__":
    main()
