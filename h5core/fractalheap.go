package h5core

import (
	"math/bits"
	"sync"
)

// Fractal heap ID types: bits 4-5 of an ID's first byte (bits 6-7 are the
// ID version, 0).
const (
	heapIDManaged = 0x00
	heapIDHuge    = 0x10
	heapIDTiny    = 0x20
)

// Bounds on hostile fractal heaps (the first two are libhdf5's limits).
const (
	maxHeapWidth    = 1 << 16  // H5HF_WIDTH_LIMIT
	maxHeapDirect   = 1 << 31  // H5HF_MAX_DIRECT_SIZE_LIMIT
	heapBlockBudget = 16 << 20 // bytes of decoded direct blocks kept per heap
	maxCachedHeaps  = 1 << 10
)

// fractalHeap is a decoded fractal heap header ("FRHP") with the doubling
// table values derived from it, and a cache of the heap's blocks.
type fractalHeap struct {
	addr         uint64
	idLen        int
	checksummed  bool // direct blocks carry a checksum
	maxManSize   uint64
	hugeBtree    uint64
	manSize      uint64 // managed space: the heap's linear address space
	width        uint64
	startBlock   uint64
	maxDirect    uint64
	heapBits     int
	rootAddr     uint64
	rootRows     int
	rootFiltered uint64 // stored size of a filtered root direct block
	rootMask     uint32
	filters      []Filter // nil when the heap has no I/O filters

	startBits, firstRowBits    int
	maxDirectRows, maxRootRows int
	offSize, lenSize           int    // field widths of managed object IDs
	blockPrefix                uint64 // bytes before object data in a direct block

	mu      sync.Mutex
	blocks  map[uint64][]byte // decoded direct blocks by file address
	iblocks map[uint64]*heapIBlock
	cached  int // bytes in blocks
}

// heapIBlock is a decoded indirect block ("FHIB").
type heapIBlock struct {
	nrows    int
	off      uint64 // heap offset of the block
	addrs    []uint64
	filtered []uint64 // stored sizes of filtered direct children
	masks    []uint32 // their filter masks
}

// heapDBlock locates a direct block.
type heapDBlock struct {
	addr, off, size uint64 // file address, heap offset, size in the heap
	filtered        uint64 // stored size when the heap is filtered
	mask            uint32
}

// fractalHeap returns the (cached) fractal heap whose header is at addr.
func (f *File) fractalHeap(addr uint64) (*fractalHeap, error) {
	f.mu.Lock()
	h := f.fheaps[addr]
	f.mu.Unlock()
	if h != nil {
		return h, nil
	}
	h, err := f.readFractalHeap(addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if f.fheaps == nil || len(f.fheaps) >= maxCachedHeaps {
		f.fheaps = map[uint64]*fractalHeap{}
	}
	f.fheaps[addr] = h
	f.mu.Unlock()
	return h, nil
}

func (f *File) readFractalHeap(addr uint64) (*fractalHeap, error) {
	fixed := 4 + 1 + 2 + 2 + 1 + 4 + 12*f.sl + 3*f.so + 2 + 2 + 2 + 2
	b, err := f.read(addr, uint64(fixed+4))
	if err != nil {
		return nil, err
	}
	filterLen := int(b[7]) | int(b[8])<<8
	if filterLen > 0 {
		if b, err = f.read(addr, uint64(fixed+f.sl+4+filterLen+4)); err != nil {
			return nil, err
		}
	}
	if err := verifyChecksum(b, addr, "fractal heap header"); err != nil {
		return nil, err
	}
	d := f.decoder(b, addr)
	if !d.signature("FRHP") {
		return nil, d.err
	}
	if v := d.u8(); v != 0 {
		return nil, formatErr(addr, "fractal heap header version %d unknown", v)
	}
	h := &fractalHeap{addr: addr, idLen: int(d.u16())}
	d.u16() // filter length, read above
	h.checksummed = d.u8()&2 != 0
	h.maxManSize = uint64(d.u32())
	d.length() // next huge object ID
	h.hugeBtree = d.offset()
	d.length() // free space in managed blocks
	d.offset() // free-space manager
	h.manSize = d.length()
	d.skip(7 * f.sl) // allocated space, iterator offset, object counts and sizes
	h.width = uint64(d.u16())
	h.startBlock = d.length()
	h.maxDirect = d.length()
	h.heapBits = int(d.u16())
	d.u16() // starting rows of the root indirect block
	h.rootAddr = d.offset()
	h.rootRows = int(d.u16())
	if filterLen > 0 {
		h.rootFiltered = d.length()
		h.rootMask = d.u32()
		at := d.addr()
		pipe := d.bytes(filterLen)
		if d.err == nil {
			if h.filters, err = parsePipeline(pipe, at); err != nil {
				return nil, err
			}
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	return h, h.init(f.so)
}

// init checks the doubling table parameters and derives its geometry
// (H5HF__dtable_init and H5HF__hdr_finish_init_phase1 in libhdf5).
func (h *fractalHeap) init(so int) error {
	pow2 := func(v uint64) bool { return v != 0 && v&(v-1) == 0 }
	switch {
	case !pow2(h.width) || h.width > maxHeapWidth:
		return formatErr(h.addr, "fractal heap table width %d is not a power of two up to %d", h.width, maxHeapWidth)
	case !pow2(h.startBlock) || !pow2(h.maxDirect) || h.maxDirect < h.startBlock || h.maxDirect > maxHeapDirect:
		return formatErr(h.addr, "fractal heap block sizes %d..%d invalid", h.startBlock, h.maxDirect)
	case h.idLen < 1:
		return formatErr(h.addr, "fractal heap ID length %d", h.idLen)
	}
	h.startBits = bits.TrailingZeros64(h.startBlock)
	h.firstRowBits = h.startBits + bits.TrailingZeros64(h.width)
	if h.heapBits < h.firstRowBits || h.heapBits > 64 {
		return formatErr(h.addr, "fractal heap of %d address bits cannot hold its first row (%d bits)", h.heapBits, h.firstRowBits)
	}
	maxDirectBits := bits.TrailingZeros64(h.maxDirect)
	h.maxRootRows = h.heapBits - h.firstRowBits + 1
	h.maxDirectRows = maxDirectBits - h.startBits + 2
	if h.rootRows > h.maxRootRows {
		return formatErr(h.addr, "fractal heap root block has %d rows, at most %d", h.rootRows, h.maxRootRows)
	}
	h.offSize = (h.heapBits + 7) / 8
	h.lenSize = min((maxDirectBits+7)/8, bytesFor(h.maxManSize))
	h.blockPrefix = uint64(4 + 1 + so + h.offSize)
	if h.checksummed {
		h.blockPrefix += 4
	}
	return nil
}

// rowSize is the size of the blocks of a doubling table row; rowOff the
// heap offset of the row within its indirect block.
func (h *fractalHeap) rowSize(row int) uint64 {
	if row == 0 {
		return h.startBlock
	}
	return h.startBlock << (row - 1)
}

func (h *fractalHeap) rowOff(row int) uint64 {
	if row == 0 {
		return 0
	}
	return h.startBlock * h.width << (row - 1)
}

// lookup returns the row and column of the block holding heap offset off
// of an indirect block (H5HF__dtable_lookup).
func (h *fractalHeap) lookup(off uint64) (row int, col uint64) {
	if off < h.startBlock*h.width {
		return 0, off / h.startBlock
	}
	high := bits.Len64(off) - 1
	row = high - h.firstRowBits + 1
	return row, (off - 1<<high) / h.rowSize(row)
}

// fractalHeapObject returns a copy of the object with heap ID id in the
// fractal heap whose header is at heapAddr.
func (f *File) fractalHeapObject(heapAddr uint64, id []byte) ([]byte, error) {
	b, _, err := f.heapObject(heapAddr, id)
	return b, err
}

// heapObject is fractalHeapObject that also returns the file address of
// the object's bytes (the heap's address when they were filtered).
func (f *File) heapObject(heapAddr uint64, id []byte) ([]byte, uint64, error) {
	h, err := f.fractalHeap(heapAddr)
	if err != nil {
		return nil, 0, err
	}
	if len(id) == 0 {
		return nil, 0, formatErr(heapAddr, "empty fractal heap ID")
	}
	if id[0]&0xC0 != 0 {
		return nil, 0, formatErr(heapAddr, "fractal heap ID version %d unknown", id[0]>>6)
	}
	switch id[0] & 0x30 {
	case heapIDManaged:
		return f.heapManaged(h, id)
	case heapIDHuge:
		return f.heapHuge(h, id)
	case heapIDTiny:
		b, err := h.tiny(id)
		return b, heapAddr, err
	}
	return nil, 0, formatErr(heapAddr, "fractal heap ID type 3 is reserved")
}

// tiny returns an object stored inside its heap ID. The length takes one
// byte's low nibble, or 12 bits over two bytes when IDs are longer than 18
// bytes (libhdf5 writes the high nibble of those but its reader drops it;
// this follows the specification).
func (h *fractalHeap) tiny(id []byte) ([]byte, error) {
	n, at := int(id[0]&0x0F)+1, 1
	if h.idLen > 18 {
		if len(id) < 2 {
			return nil, formatErr(h.addr, "tiny heap ID of %d bytes", len(id))
		}
		n, at = int(id[0]&0x0F)<<8|int(id[1])+1, 2
	}
	if at+n > len(id) {
		return nil, formatErr(h.addr, "tiny object of %d bytes in a heap ID of %d", n, len(id))
	}
	return append([]byte(nil), id[at:at+n]...), nil
}

// heapManaged returns a managed object: an offset and length in the heap's
// linear address space, stored in a direct block.
func (f *File) heapManaged(h *fractalHeap, id []byte) ([]byte, uint64, error) {
	d := f.decoder(id, h.addr)
	d.skip(1)
	off, n := d.uN(h.offSize), d.uN(h.lenSize)
	if d.err != nil {
		return nil, 0, formatErr(h.addr, "fractal heap ID of %d bytes too short for a managed object", len(id))
	}
	if n == 0 || n > h.maxManSize || off > h.manSize || n > h.manSize-off {
		return nil, 0, formatErr(h.addr, "managed object of %d bytes at heap offset %d outside the heap's %d bytes", n, off, h.manSize)
	}
	loc, err := f.locateDirect(h, off)
	if err != nil {
		return nil, 0, err
	}
	blk, err := f.heapDirect(h, loc)
	if err != nil {
		return nil, 0, err
	}
	rel := off - loc.off
	if rel < h.blockPrefix || rel > loc.size || n > loc.size-rel {
		return nil, 0, formatErr(loc.addr, "managed object at heap offset %d (%d bytes) outside its direct block", off, n)
	}
	at := h.addr
	if h.filters == nil {
		at = loc.addr + rel
	}
	return append([]byte(nil), blk[rel:rel+n]...), at, nil
}

// locateDirect finds the direct block holding heap offset off, descending
// from the root through indirect blocks (H5HF__man_dblock_locate).
func (f *File) locateDirect(h *fractalHeap, off uint64) (heapDBlock, error) {
	if h.rootAddr == undefAddr {
		return heapDBlock{}, formatErr(h.addr, "object in an empty fractal heap")
	}
	if h.rootRows == 0 {
		return heapDBlock{addr: h.rootAddr, size: h.startBlock, filtered: h.rootFiltered, mask: h.rootMask}, nil
	}
	addr, nrows, base, rel := h.rootAddr, h.rootRows, uint64(0), off
	var path []uint64
	for {
		for _, a := range path {
			if a == addr {
				return heapDBlock{}, formatErr(addr, "fractal heap indirect block loops back to %#x", addr)
			}
		}
		path = append(path, addr)
		ib, err := f.heapIBlock(h, addr, nrows, base)
		if err != nil {
			return heapDBlock{}, err
		}
		row, col := h.lookup(rel)
		if row >= nrows {
			return heapDBlock{}, formatErr(addr, "heap offset %d beyond the %d rows of its indirect block", off, nrows)
		}
		e := uint64(row)*h.width + col
		start := h.rowOff(row) + col*h.rowSize(row)
		if row < h.maxDirectRows {
			loc := heapDBlock{addr: ib.addrs[e], off: base + start, size: h.rowSize(row)}
			if h.filters != nil {
				loc.filtered, loc.mask = ib.filtered[e], ib.masks[e]
			}
			return loc, nil
		}
		// A child indirect block covering rowSize(row) bytes of the heap.
		child := row - bits.TrailingZeros64(h.width)
		if child < 1 {
			return heapDBlock{}, formatErr(addr, "fractal heap row %d cannot hold an indirect block", row)
		}
		addr, nrows, base, rel = ib.addrs[e], child, base+start, rel-start
	}
}

// heapIBlock reads (or takes from the cache) the indirect block at addr
// with nrows rows at heap offset off.
func (f *File) heapIBlock(h *fractalHeap, addr uint64, nrows int, off uint64) (*heapIBlock, error) {
	h.mu.Lock()
	ib := h.iblocks[addr]
	h.mu.Unlock()
	if ib != nil {
		if ib.nrows != nrows || ib.off != off {
			return nil, formatErr(addr, "fractal heap indirect block reached as two different blocks")
		}
		return ib, nil
	}
	n := uint64(nrows) * h.width
	direct := uint64(min(nrows, h.maxDirectRows)) * h.width
	entry := uint64(f.so)
	if h.filters != nil {
		entry += uint64(f.sl) + 4
	}
	size := uint64(4+1+f.so+h.offSize) + direct*entry + (n-direct)*uint64(f.so) + 4
	b, err := f.read(addr, size)
	if err != nil {
		return nil, err
	}
	if err := verifyChecksum(b, addr, "fractal heap indirect block"); err != nil {
		return nil, err
	}
	d := f.decoder(b, addr)
	if err := h.blockHeader(d, "FHIB", off); err != nil {
		return nil, err
	}
	ib = &heapIBlock{nrows: nrows, off: off, addrs: make([]uint64, n)}
	if h.filters != nil {
		ib.filtered, ib.masks = make([]uint64, direct), make([]uint32, direct)
	}
	for i := range ib.addrs {
		ib.addrs[i] = d.offset()
		if h.filters != nil && uint64(i) < direct {
			ib.filtered[i], ib.masks[i] = d.length(), d.u32()
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	h.mu.Lock()
	if h.iblocks == nil || len(h.iblocks) >= 1<<12 {
		h.iblocks = map[uint64]*heapIBlock{}
	}
	h.iblocks[addr] = ib
	h.mu.Unlock()
	return ib, nil
}

// blockHeader checks the prefix shared by direct and indirect blocks:
// signature, version, heap header address and the block's heap offset.
func (h *fractalHeap) blockHeader(d *decoder, sig string, off uint64) error {
	at := d.addr()
	if !d.signature(sig) {
		return d.err
	}
	if v := d.u8(); v != 0 {
		return formatErr(at, "fractal heap block version %d unknown", v)
	}
	heap, got := d.offset(), d.uN(h.offSize)
	if d.err != nil {
		return d.err
	}
	if heap != h.addr {
		return formatErr(at, "fractal heap block belongs to the heap at %#x, not %#x", heap, h.addr)
	}
	if got != off {
		return formatErr(at, "fractal heap block at heap offset %d, expected %d", got, off)
	}
	return nil
}

// heapDirect returns the decoded bytes of a direct block, whole (object
// offsets count from the block's start).
func (f *File) heapDirect(h *fractalHeap, loc heapDBlock) ([]byte, error) {
	h.mu.Lock()
	b := h.blocks[loc.addr]
	h.mu.Unlock()
	if b != nil {
		if uint64(len(b)) != loc.size {
			return nil, formatErr(loc.addr, "fractal heap direct block reached with two sizes")
		}
		return b, nil
	}
	if loc.addr == undefAddr {
		return nil, formatErr(h.addr, "object in an unallocated fractal heap direct block")
	}
	var err error
	if h.filters == nil {
		b, err = f.read(loc.addr, loc.size)
	} else {
		b, err = f.readFilteredBlock(h, loc)
	}
	if err != nil {
		return nil, err
	}
	if uint64(len(b)) < h.blockPrefix {
		return nil, formatErr(loc.addr, "fractal heap direct block of %d bytes", len(b))
	}
	d := f.decoder(b, loc.addr)
	if err := h.blockHeader(d, "FHDB", loc.off); err != nil {
		return nil, err
	}
	if h.checksummed {
		sum := b[h.blockPrefix-4 : h.blockPrefix]
		stored := uint32(sum[0]) | uint32(sum[1])<<8 | uint32(sum[2])<<16 | uint32(sum[3])<<24
		clear(sum)
		got := lookup3(b, 0)
		sum[0], sum[1], sum[2], sum[3] = byte(stored), byte(stored>>8), byte(stored>>16), byte(stored>>24)
		if got != stored {
			return nil, formatErr(loc.addr, "fractal heap direct block checksum mismatch (stored %#08x, computed %#08x)", stored, got)
		}
	}
	h.mu.Lock()
	if h.blocks == nil || h.cached+len(b) > heapBlockBudget {
		h.blocks, h.cached = map[uint64][]byte{}, 0
	}
	if len(b) <= heapBlockBudget {
		h.blocks[loc.addr] = b
		h.cached += len(b)
	}
	h.mu.Unlock()
	return b, nil
}

// readFilteredBlock reads a direct block through the heap's I/O filters.
func (f *File) readFilteredBlock(h *fractalHeap, loc heapDBlock) ([]byte, error) {
	if loc.filtered == 0 {
		return nil, formatErr(loc.addr, "filtered fractal heap direct block of size 0")
	}
	raw, err := f.read(loc.addr, loc.filtered)
	if err != nil {
		return nil, err
	}
	b, err := decodeChunk(h.filters, loc.mask, raw, int(loc.size))
	if err != nil {
		return nil, formatErr(loc.addr, "fractal heap direct block: %v", err)
	}
	if uint64(len(b)) != loc.size {
		return nil, formatErr(loc.addr, "fractal heap direct block decodes to %d bytes, expected %d", len(b), loc.size)
	}
	return b, nil
}

// heapHuge returns a huge object: stored on its own in the file, found
// through the ID itself (directly accessed) or through the heap's v2
// B-tree of huge objects, keyed by an ID number.
func (f *File) heapHuge(h *fractalHeap, id []byte) ([]byte, uint64, error) {
	filtered := h.filters != nil
	d := f.decoder(id[1:], h.addr)
	var addr, size, memSize uint64
	var mask uint32
	direct := h.idLen-1 >= f.so+f.sl
	if filtered {
		direct = h.idLen-1 >= f.so+f.sl+4+f.sl
	}
	if direct {
		addr, size = d.offset(), d.length()
		if filtered {
			mask, memSize = d.u32(), d.length()
		}
		if d.err != nil {
			return nil, 0, formatErr(h.addr, "huge object heap ID of %d bytes too short", len(id))
		}
	} else {
		key := d.uN(min(h.idLen-1, 8))
		if d.err != nil {
			return nil, 0, formatErr(h.addr, "huge object heap ID of %d bytes too short", len(id))
		}
		typ, recSize := uint8(bt2HugeIndirect), f.so+2*f.sl
		if filtered {
			typ, recSize = bt2HugeIndirectFiltered, f.so+3*f.sl+4
		}
		t, err := f.readBtree2(h.hugeBtree, typ, recSize)
		if err != nil {
			return nil, 0, err
		}
		rec, err := f.findBtree2(t, func(rec []byte) int {
			r := f.decoder(rec[recSize-f.sl:], 0)
			v := r.length()
			switch {
			case key < v:
				return -1
			case key > v:
				return 1
			}
			return 0
		})
		if err != nil {
			return nil, 0, err
		}
		if rec == nil {
			return nil, 0, formatErr(t.addr, "huge object %d is not in its heap's B-tree", key)
		}
		r := f.decoder(rec, t.addr)
		addr, size = r.offset(), r.length()
		if filtered {
			mask, memSize = r.u32(), r.length()
		}
	}
	raw, err := f.read(addr, size)
	if err != nil {
		return nil, 0, err
	}
	if !filtered {
		return raw, addr, nil
	}
	if memSize > uint64(f.maxChunk) {
		return nil, 0, formatErr(addr, "filtered huge object of %d bytes exceeds the %d-byte limit", memSize, f.maxChunk)
	}
	b, err := decodeChunk(h.filters, mask, raw, int(memSize))
	if err != nil {
		return nil, 0, formatErr(addr, "huge heap object: %v", err)
	}
	return b, h.addr, nil
}
