package h5core

import (
	"math/bits"
	"sort"
)

// Extensible array chunk index (layout v4 index type 4), for datasets with
// exactly one unlimited dimension. Entry idx describes chunk idx of the
// maximum extent in row-major order once the unlimited dimension is moved
// ("swizzled") to the front. The header (EAHD) names an index block (EAIB)
// that holds the first entries, the addresses of the first data blocks
// (EADB) and those of the super blocks (EASB). Super block u stands for
// 2^(u/2) data blocks of 2^((u+1)/2) * min_elmts entries each; the first
// super blocks exist only in the index block's data block addresses. Data
// blocks of more than a page of entries are paged, their pages tracked by
// bitmaps in the super block.

// extensibleArrayIndex is an extensible array chunk index. Blocks are read
// when a chunk in them is asked for and kept in a small cache.
type extensibleArrayIndex struct {
	f   *File
	g   *chunkGeom
	hdr uint64 // header address

	unlim  int      // the unlimited dimension
	grid   []uint64 // chunks per dimension of the maximum extent
	others []uint64 // grid without the unlimited dimension
	inner  uint64   // chunks of the maximum extent per unlimited step

	version, client uint8
	elems           arrayElems
	idxBlkElmts     uint64 // entries in the index block
	minElmts        uint64 // entries of the smallest data blocks
	pageElems       uint64 // entries per data block page
	offSize         int    // bytes of a block's offset field
	nsblks          int    // super blocks of the whole array
	iblkSblks       int    // super blocks whose data blocks the index block addresses
	ndblkAddrs      int    // data block addresses in the index block
	maxIdx          uint64 // entries at or past this index were never set
	iblk            uint64 // index block address

	cache blockCache
}

func (f *File) newExtensibleArrayIndex(l *layout, g *chunkGeom) (chunkIndex, error) {
	x := &extensibleArrayIndex{f: f, g: g, hdr: l.addr, unlim: -1, grid: g.grid(g.maxDims), iblk: undefAddr}
	for i, m := range g.maxDims {
		if m != unlimited {
			x.others = append(x.others, x.grid[i])
		} else if x.unlim < 0 {
			x.unlim = i
		} else {
			x.unlim = len(g.maxDims) // two unlimited dimensions
		}
	}
	var ok bool
	x.inner, ok = numChunks(x.others)
	if x.unlim < 0 || x.unlim == len(g.maxDims) || !ok {
		return nil, formatErr(l.addr, "extensible array chunk index needs one unlimited dimension, found maximum dimensions %v", g.maxDims)
	}
	if l.addr == undefAddr {
		return x, nil // no chunk written yet
	}
	if err := x.readHeader(l); err != nil {
		return nil, err
	}
	return x, nil
}

func (x *extensibleArrayIndex) readHeader(l *layout) error {
	f := x.f
	b, err := f.read(x.hdr, uint64(16+6*f.sl+f.so))
	if err != nil {
		return err
	}
	d := f.decoder(b, x.hdr)
	d.signature("EAHD")
	x.version, x.client = d.u8(), d.u8()
	size, maxBits, idxElmts, minElmts, minPtrs, pageBits := d.u8(), d.u8(), d.u8(), d.u8(), d.u8(), d.u8()
	for range 4 {
		d.length() // super and data block statistics
	}
	x.maxIdx = d.length()
	d.length() // entries realised
	x.iblk = d.offset()
	if d.err != nil {
		return d.err
	}
	if err := verifyChecksum(b, x.hdr, "extensible array header"); err != nil {
		return err
	}
	if x.version > 1 {
		return formatErr(x.hdr, "extensible array header version %d unknown", x.version)
	}
	if x.elems, err = newArrayElems(f, l, x.client, size, x.g); err != nil {
		return err
	}
	minLog, ptrLog := bits.Len8(minElmts)-1, bits.Len8(minPtrs)-1
	switch {
	case maxBits == 0 || maxBits > 64:
		return formatErr(x.hdr, "extensible array of 2^%d entries", maxBits)
	case !powerOfTwo(minElmts) || !powerOfTwo(minPtrs) || minLog > int(maxBits):
		return formatErr(x.hdr, "extensible array data blocks of %d entries, super blocks of %d", minElmts, minPtrs)
	case pageBits > maxPageBits:
		return formatErr(x.hdr, "extensible array page size of 2^%d entries", pageBits)
	case x.maxIdx > maxArrayEntries || (maxBits < 64 && x.maxIdx > 1<<maxBits):
		return formatErr(x.hdr, "extensible array of %d entries", x.maxIdx)
	}
	x.idxBlkElmts, x.minElmts, x.pageElems = uint64(idxElmts), uint64(minElmts), 1<<pageBits
	x.offSize = (int(maxBits) + 7) / 8
	x.nsblks = 1 + int(maxBits) - minLog
	x.iblkSblks, x.ndblkAddrs = 2*ptrLog, 2*(int(minPtrs)-1)
	if x.iblkSblks > x.nsblks || (x.iblkSblks > 0 && x.paged(x.iblkSblks-1)) {
		return formatErr(x.hdr, "extensible array index block addresses %d super blocks' data blocks, of %d", x.iblkSblks, x.nsblks)
	}
	return nil
}

func powerOfTwo(v uint8) bool { return v != 0 && v&(v-1) == 0 }

// Geometry of super block u.

func (x *extensibleArrayIndex) sblkStart(u int) uint64 { return x.minElmts * (1<<u - 1) }
func (x *extensibleArrayIndex) dblkElmts(u int) uint64 { return x.minElmts << ((u + 1) / 2) }
func (x *extensibleArrayIndex) paged(u int) bool       { return x.dblkElmts(u) > x.pageElems }
func ndblks(u int) uint64                              { return 1 << (u / 2) }

// npages is the page count of super block u's data blocks (1: not paged).
func (x *extensibleArrayIndex) npages(u int) uint64 {
	if x.paged(u) {
		return x.dblkElmts(u) / x.pageElems
	}
	return 1
}

// bitmapSize is the size of super block u's page bitmaps.
func (x *extensibleArrayIndex) bitmapSize(u int) uint64 {
	if x.paged(u) {
		return ndblks(u) * uint64(bitsToBytes(x.npages(u)))
	}
	return 0
}

// check returns a check of a block's prefix: signature, a known version
// (0 or 1, format doc U2), the header's client and the header's address. (Super and data blocks then
// hold their offset in the array, which libhdf5 neither checks nor, for the
// data blocks of the index block, writes as the offset of their first
// entry.)
func (x *extensibleArrayIndex) check(sig string) func([]byte, uint64) error {
	return func(b []byte, at uint64) error {
		d := x.f.decoder(b, at)
		d.signature(sig)
		version, client, hdr := d.u8(), d.u8(), d.offset()
		switch {
		case d.err != nil:
			return d.err
		case version > 1 || client != x.client:
			return formatErr(at, "extensible array block version %d client %d, header has %d and %d", version, client, x.version, x.client)
		case hdr != x.hdr:
			return formatErr(at, "extensible array block belongs to the header at %#x, not %#x", hdr, x.hdr)
		}
		return nil
	}
}

func (x *extensibleArrayIndex) iblock() ([]byte, error) {
	es, so := uint64(x.elems.size), uint64(x.f.so)
	n := 10 + so + x.idxBlkElmts*es + uint64(x.ndblkAddrs+x.nsblks-x.iblkSblks)*so
	return x.cache.get(x.f, x.iblk, n, "extensible array index block", x.check("EAIB"))
}

func (x *extensibleArrayIndex) sblock(u int, addr uint64) ([]byte, error) {
	so := uint64(x.f.so)
	n := 10 + so + uint64(x.offSize) + x.bitmapSize(u) + ndblks(u)*so
	return x.cache.get(x.f, addr, n, "extensible array super block", x.check("EASB"))
}

// addrAt decodes the address at byte offset off of block b.
func (x *extensibleArrayIndex) addrAt(b []byte, off uint64) uint64 {
	return x.f.decoder(b[off:], 0).offset()
}

// sblkAddr returns the address of super block u from the index block ib.
func (x *extensibleArrayIndex) sblkAddr(ib []byte, u int) uint64 {
	so := uint64(x.f.so)
	return x.addrAt(ib, 6+so+x.idxBlkElmts*uint64(x.elems.size)+uint64(x.ndblkAddrs+u-x.iblkSblks)*so)
}

// dblkAddr returns the address of data block k of super block u, from the
// index block ib or from the super block sb.
func (x *extensibleArrayIndex) dblkAddr(u int, k uint64, ib, sb []byte) uint64 {
	so := uint64(x.f.so)
	if u >= x.iblkSblks {
		return x.addrAt(sb, 6+so+uint64(x.offSize)+x.bitmapSize(u)+k*so)
	}
	first := uint64(0) // data blocks of the super blocks before u
	for v := range u {
		first += ndblks(v)
	}
	return x.addrAt(ib, 6+so+x.idxBlkElmts*uint64(x.elems.size)+(first+k)*so)
}

// leaf returns the encoded entries of data block k of super block u, at
// addr (of its page p when it is paged), and their file address; nil when
// the page was never initialised.
func (x *extensibleArrayIndex) leaf(u int, k, p, addr uint64, sb []byte) ([]byte, uint64, error) {
	es, head := uint64(x.elems.size), uint64(6+x.f.so+x.offSize)
	check := x.check("EADB")
	if !x.paged(u) {
		b, err := x.cache.get(x.f, addr, head+x.dblkElmts(u)*es+4, "extensible array data block", check)
		if err != nil {
			return nil, 0, err
		}
		return b[head : len(b)-4], addr + head, nil
	}
	if !bitSet(sb[head:head+x.bitmapSize(u)], k*x.npages(u)+p) {
		return nil, 0, nil
	}
	if _, err := x.cache.get(x.f, addr, head+4, "extensible array data block", check); err != nil {
		return nil, 0, err
	}
	at := addr + head + 4 + p*(x.pageElems*es+4)
	b, err := x.cache.get(x.f, at, x.pageElems*es+4, "extensible array data block page", nil)
	if err != nil {
		return nil, 0, err
	}
	return b[:len(b)-4], at, nil
}

// index returns the array index of the chunk at scaled, false if no entry
// was ever set for it.
func (x *extensibleArrayIndex) index(scaled []uint64) (uint64, bool) {
	var rest uint64
	for i, s := range scaled {
		if i == x.unlim {
			continue
		}
		if s >= x.grid[i] {
			return 0, false
		}
		rest = rest*x.grid[i] + s
	}
	top := scaled[x.unlim]
	if x.inner == 0 || top > x.maxIdx/x.inner || rest >= x.maxIdx-top*x.inner {
		return 0, false
	}
	return top*x.inner + rest, true
}

// scaledOf is the inverse of index.
func (x *extensibleArrayIndex) scaledOf(idx uint64) []uint64 {
	rest := unravel(idx%x.inner, x.others)
	s := make([]uint64, 0, len(x.grid))
	s = append(s, rest[:x.unlim]...)
	s = append(s, idx/x.inner)
	return append(s, rest[x.unlim:]...)
}

func (x *extensibleArrayIndex) chunk(scaled []uint64) (chunkLoc, error) {
	missing := chunkLoc{scaled: scaled, addr: undefAddr}
	idx, ok := x.index(scaled)
	if !ok || x.iblk == undefAddr {
		return missing, nil
	}
	b, at, pos, err := x.find(idx)
	if err != nil || b == nil {
		return missing, err
	}
	loc := x.elems.at(x.f, b, at, pos)
	loc.scaled = scaled
	return loc, nil
}

// find returns the encoded entries holding entry idx, their file address
// and idx's position among them; nil when idx lies in a block or page
// never allocated.
func (x *extensibleArrayIndex) find(idx uint64) ([]byte, uint64, uint64, error) {
	ib, err := x.iblock()
	if err != nil {
		return nil, 0, 0, err
	}
	if idx < x.idxBlkElmts {
		head := uint64(6 + x.f.so)
		return ib[head : head+x.idxBlkElmts*uint64(x.elems.size)], x.iblk + head, idx, nil
	}
	j := idx - x.idxBlkElmts
	u := bits.Len64(j/x.minElmts+1) - 1
	k, pos := (j-x.sblkStart(u))/x.dblkElmts(u), (j-x.sblkStart(u))%x.dblkElmts(u)
	var sb []byte
	if u >= x.iblkSblks {
		a := x.sblkAddr(ib, u)
		if a == undefAddr {
			return nil, 0, 0, nil
		}
		if sb, err = x.sblock(u, a); err != nil {
			return nil, 0, 0, err
		}
	}
	a := x.dblkAddr(u, k, ib, sb)
	if a == undefAddr {
		return nil, 0, 0, nil
	}
	p := uint64(0)
	if x.paged(u) {
		p, pos = pos/x.pageElems, pos%x.pageElems
	}
	b, at, err := x.leaf(u, k, p, a, sb)
	return b, at, pos, err
}

// walk calls visit with every run of encoded entries the array holds, in
// index order, with the index of the first.
func (x *extensibleArrayIndex) walk(visit func(first uint64, b []byte, at uint64) error) error {
	if x.iblk == undefAddr {
		return nil
	}
	ib, err := x.iblock()
	if err != nil {
		return err
	}
	es := uint64(x.elems.size)
	head := uint64(6 + x.f.so)
	if err := visit(0, ib[head:head+x.idxBlkElmts*es], x.iblk+head); err != nil {
		return err
	}
	budget := uint64(x.f.Size()) / es // distinct entries the file has room for
	for u := 0; u < x.nsblks && x.idxBlkElmts+x.sblkStart(u) < x.maxIdx; u++ {
		start := x.idxBlkElmts + x.sblkStart(u)
		var sb []byte
		if u >= x.iblkSblks {
			a := x.sblkAddr(ib, u)
			if a == undefAddr {
				continue
			}
			if sb, err = x.sblock(u, a); err != nil {
				return err
			}
		}
		for k := uint64(0); k < ndblks(u) && start+k*x.dblkElmts(u) < x.maxIdx; k++ {
			a := x.dblkAddr(u, k, ib, sb)
			for p := uint64(0); a != undefAddr && p < x.npages(u); p++ {
				first := start + k*x.dblkElmts(u) + p*x.pageElems
				if first >= x.maxIdx {
					break
				}
				b, at, err := x.leaf(u, k, p, a, sb)
				if err != nil {
					return err
				}
				n := uint64(len(b)) / es
				if n > budget {
					return formatErr(a, "extensible array blocks overlap or repeat")
				}
				budget -= n
				if err := visit(first, b, at); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (x *extensibleArrayIndex) forEach(fn func(chunkLoc) error) error {
	if x.inner == 0 {
		return nil // a fixed dimension of size 0: no chunks
	}
	cur := x.g.grid(x.g.dims)
	var locs []chunkLoc // when the unlimited dimension is not the first, to sort
	err := x.walk(func(first uint64, b []byte, at uint64) error {
		return x.elems.each(x.f, b, at, func(i uint64, loc chunkLoc) error {
			idx := first + i
			if idx >= x.maxIdx || loc.addr == undefAddr {
				return nil
			}
			if loc.scaled = x.scaledOf(idx); !inside(loc.scaled, cur) {
				return nil
			}
			if x.unlim == 0 {
				return fn(loc)
			}
			locs = append(locs, loc)
			return nil
		})
	})
	if err != nil {
		return err
	}
	sort.Slice(locs, func(i, j int) bool { return linear(locs[i].scaled, cur) < linear(locs[j].scaled, cur) })
	for _, loc := range locs {
		if err := fn(loc); err != nil {
			return err
		}
	}
	return nil
}
