package h5core

import "sync"

// Fixed array chunk index (layout v4 index type 3): a header (FAHD) names
// a data block (FADB) holding one entry per chunk of the maximum extent,
// in row-major chunk order. Above 2^page_bits entries the data block holds
// only a bitmap of initialised pages; the pages follow it in the file.

// maxArrayEntries bounds the entry count of fixed and extensible arrays
// (libhdf5 refuses chunk indexes of 2^32 chunks or more).
const maxArrayEntries = 1 << 40

// maxPageBits bounds the page size exponent of both array kinds (libhdf5
// uses 10), which bounds the size of any one block read.
const maxPageBits = 16

// fixedArrayIndex is a fixed array chunk index. Blocks are read when a
// chunk in them is asked for and kept in a small cache.
type fixedArrayIndex struct {
	f       *File
	g       *chunkGeom
	hdr     uint64   // header address
	grid    []uint64 // chunks per dimension of the maximum extent
	nchunks uint64   // chunks of the maximum extent

	version, client uint8
	elems           arrayElems
	n               uint64 // entries
	dblk            uint64 // data block address (undefAddr: none yet)
	pageElems       uint64 // entries per page, 0 when not paged
	npages          uint64

	cache blockCache
}

func (f *File) newFixedArrayIndex(l *layout, g *chunkGeom) (chunkIndex, error) {
	grid := g.grid(g.maxDims)
	nchunks, ok := numChunks(grid)
	for _, c := range grid {
		ok = ok && c != unlimited
	}
	if !ok {
		return nil, formatErr(l.addr, "fixed array chunk index needs fixed maximum dimensions, found %v", g.maxDims)
	}
	x := &fixedArrayIndex{f: f, g: g, hdr: l.addr, grid: grid, nchunks: nchunks, dblk: undefAddr}
	if l.addr == undefAddr {
		return x, nil // no chunk written yet
	}
	b, err := f.read(l.addr, uint64(12+f.sl+f.so))
	if err != nil {
		return nil, err
	}
	d := f.decoder(b, l.addr)
	d.signature("FAHD")
	x.version, x.client = d.u8(), d.u8()
	size, pageBits := d.u8(), d.u8()
	x.n, x.dblk = d.length(), d.offset()
	if d.err != nil {
		return nil, d.err
	}
	if err := verifyChecksum(b, l.addr, "fixed array header"); err != nil {
		return nil, err
	}
	if x.version > 1 {
		return nil, formatErr(l.addr, "fixed array header version %d unknown", x.version)
	}
	if x.elems, err = newArrayElems(f, l, x.client, size, g); err != nil {
		return nil, err
	}
	if pageBits > maxPageBits {
		return nil, formatErr(l.addr, "fixed array page size of 2^%d entries", pageBits)
	}
	if x.n < nchunks || x.n > maxArrayEntries {
		return nil, formatErr(l.addr, "fixed array of %d entries for %d chunks", x.n, nchunks)
	}
	if page := uint64(1) << pageBits; x.n > page {
		x.pageElems, x.npages = page, (x.n+page-1)/page
	}
	// libhdf5 allocates the data block with all its pages at once.
	if x.dblk != undefAddr && !f.holds(x.dblk, x.prefixSize()+x.n*uint64(size)+x.npages*4) {
		return nil, formatErr(l.addr, "fixed array data block of %d entries at %#x runs past the end of the file", x.n, x.dblk)
	}
	return x, nil
}

// prefixSize is the size of the data block before its first page, or of
// the whole data block without its elements when it is not paged.
func (x *fixedArrayIndex) prefixSize() uint64 {
	return uint64(10 + x.f.so + bitsToBytes(x.npages))
}

// checkBlock checks the fields of a data block that repeat the header's:
// signature, a known version (0 or 1, format doc U2), the header's client
// and the header's address.
func (x *fixedArrayIndex) checkBlock(b []byte, at uint64) error {
	d := x.f.decoder(b, at)
	d.signature("FADB")
	version, client, hdr := d.u8(), d.u8(), d.offset()
	switch {
	case d.err != nil:
		return d.err
	case version > 1 || client != x.client:
		return formatErr(at, "fixed array data block version %d client %d, header has %d and %d", version, client, x.version, x.client)
	case hdr != x.hdr:
		return formatErr(at, "fixed array data block belongs to the header at %#x, not %#x", hdr, x.hdr)
	}
	return nil
}

// page returns the encoded entries of page p (of the whole data block when
// it is not paged) and their file address; nil when the page was never
// initialised.
func (x *fixedArrayIndex) page(p uint64) ([]byte, uint64, error) {
	es := uint64(x.elems.size)
	head := uint64(6 + x.f.so)
	if x.pageElems == 0 {
		b, err := x.cache.get(x.f, x.dblk, x.prefixSize()+x.n*es, "fixed array data block", x.checkBlock)
		if err != nil {
			return nil, 0, err
		}
		return b[head : len(b)-4], x.dblk + head, nil
	}
	pre, err := x.cache.get(x.f, x.dblk, x.prefixSize(), "fixed array data block", x.checkBlock)
	if err != nil || !bitSet(pre[head:len(pre)-4], p) {
		return nil, 0, err
	}
	cnt := min(x.pageElems, x.n-p*x.pageElems)
	at := x.dblk + x.prefixSize() + p*(x.pageElems*es+4)
	b, err := x.cache.get(x.f, at, cnt*es+4, "fixed array data block page", nil)
	if err != nil {
		return nil, 0, err
	}
	return b[:len(b)-4], at, nil
}

func (x *fixedArrayIndex) chunk(scaled []uint64) (chunkLoc, error) {
	missing := chunkLoc{scaled: scaled, addr: undefAddr}
	if x.dblk == undefAddr || !inside(scaled, x.grid) {
		return missing, nil
	}
	idx, p := linear(scaled, x.grid), uint64(0)
	if x.pageElems != 0 {
		p, idx = idx/x.pageElems, idx%x.pageElems
	}
	b, at, err := x.page(p)
	if err != nil || b == nil {
		return missing, err
	}
	loc := x.elems.at(x.f, b, at, idx)
	loc.scaled = scaled
	return loc, nil
}

func (x *fixedArrayIndex) forEach(fn func(chunkLoc) error) error {
	if x.dblk == undefAddr {
		return nil
	}
	cur := x.g.grid(x.g.dims)
	per := x.pageElems
	if per == 0 {
		per = x.n
	}
	for p := uint64(0); p < max(x.npages, 1) && p*per < x.nchunks; p++ {
		b, at, err := x.page(p)
		if err != nil {
			return err
		}
		if b == nil {
			continue
		}
		err = x.elems.each(x.f, b, at, func(i uint64, loc chunkLoc) error {
			idx := p*per + i
			if idx >= x.nchunks || loc.addr == undefAddr {
				return nil
			}
			if loc.scaled = unravel(idx, x.grid); inside(loc.scaled, cur) {
				return fn(loc)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// arrayElems decodes the entries of a chunk index array. Client 0
// (unfiltered chunks) stores a chunk address; client 1 (filtered chunks)
// an address, the stored size in sizeLen bytes and a filter mask. In
// structured-chunk layouts (clients 2 and 3) an entry is a structured
// chunk record (stcLayout.decodeIndexRecord).
type arrayElems struct {
	size      int // bytes per entry
	filtered  bool
	sizeLen   int
	chunkSize uint64     // stored size of an unfiltered chunk
	stc       *stcLayout // structured chunks: the record layout
}

func newArrayElems(f *File, l *layout, client, size uint8, g *chunkGeom) (arrayElems, error) {
	e := arrayElems{size: int(size), chunkSize: g.chunkBytes()}
	if l.stc != nil {
		// The client id is not checked (format doc U1): whether records
		// carry filter fields follows from the filter pipeline.
		e.stc, e.filtered = l.stc, g.filtered
		if want := f.so + l.stc.recordSize(g.filtered); e.size != want {
			return e, formatErr(l.addr, "chunk index entries of %d bytes, structured-chunk records need %d", size, want)
		}
		return e, nil
	}
	switch client {
	case 0:
		if e.size != f.so {
			return e, formatErr(l.addr, "unfiltered chunk entries of %d bytes, expected %d", size, f.so)
		}
	case 1:
		e.filtered, e.sizeLen = true, e.size-f.so-4
		if e.sizeLen < 1 || e.sizeLen > 8 {
			return e, formatErr(l.addr, "filtered chunk entries of %d bytes", size)
		}
	default:
		return e, formatErr(l.addr, "chunk index entries of client %d in a layout without structured chunks", client)
	}
	return e, nil
}

// at decodes entry i of the encoded entries b, read at address addr.
func (e *arrayElems) at(f *File, b []byte, addr, i uint64) chunkLoc {
	off := i * uint64(e.size)
	d := f.decoder(b[off:off+uint64(e.size)], addr+off)
	return e.next(d)
}

// each decodes the encoded entries b, read at addr, in order.
func (e *arrayElems) each(f *File, b []byte, addr uint64, fn func(i uint64, loc chunkLoc) error) error {
	d := f.decoder(b, addr)
	for i := uint64(0); d.remaining() >= e.size; i++ {
		if err := fn(i, e.next(d)); err != nil {
			return err
		}
	}
	return nil
}

func (e *arrayElems) next(d *decoder) chunkLoc {
	if e.stc != nil {
		return e.stc.decodeIndexRecord(d, e.filtered, 0)
	}
	loc := chunkLoc{addr: d.offset(), size: e.chunkSize}
	if e.filtered {
		loc.size, loc.mask = d.uN(e.sizeLen), d.u32()
	}
	return loc
}

// blockCache keeps the most recently read blocks of one array index,
// checked and verified. It is safe for concurrent use.
type blockCache struct {
	mu    sync.Mutex
	m     map[blockKey][]byte
	order []blockKey // oldest first
	bytes int
}

type blockKey struct {
	addr, size uint64
	what       string
}

// Bounds of one index's block cache.
const (
	blockCacheEntries = 32
	blockCacheBytes   = 4 << 20
)

// get returns the n bytes at addr, a structure named what. On a miss it
// reads them, calls check (if not nil) and verifies the trailing checksum.
func (c *blockCache) get(f *File, addr, n uint64, what string, check func([]byte, uint64) error) ([]byte, error) {
	k := blockKey{addr, n, what}
	c.mu.Lock()
	b, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := f.read(addr, n)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(b, addr); err != nil {
			return nil, err
		}
	}
	if err := verifyChecksum(b, addr, what); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok || len(b) > blockCacheBytes {
		return b, nil
	}
	if c.m == nil {
		c.m = map[blockKey][]byte{}
	}
	for len(c.order) >= blockCacheEntries || c.bytes+len(b) > blockCacheBytes {
		old := c.order[0]
		c.order = c.order[1:]
		c.bytes -= len(c.m[old])
		delete(c.m, old)
	}
	c.m[k] = b
	c.order = append(c.order, k)
	c.bytes += len(b)
	return b, nil
}

// bitSet reports bit i of a bitmap stored most significant bit first.
func bitSet(bitmap []byte, i uint64) bool {
	return i/8 < uint64(len(bitmap)) && bitmap[i/8]&(0x80>>(i%8)) != 0
}

// inside reports whether scaled lies in a grid of the given chunk counts.
func inside(scaled, grid []uint64) bool {
	for i, s := range scaled {
		if s >= grid[i] {
			return false
		}
	}
	return true
}

// unravel is the inverse of linear: the scaled coordinates of row-major
// index idx in a grid of the given chunk counts.
func unravel(idx uint64, grid []uint64) []uint64 {
	s := make([]uint64, len(grid))
	for i := len(grid) - 1; i >= 0; i-- {
		if grid[i] != 0 {
			s[i], idx = idx%grid[i], idx/grid[i]
		}
	}
	return s
}
