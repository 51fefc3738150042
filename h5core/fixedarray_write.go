package h5core

import (
	"fmt"
	"maps"
	"slices"
)

// faWriter writes a fixed array chunk index in place: an entry is patched
// in its data block (or page), rewritten whole with its checksum; a page
// never initialised is written and its bit set in the data block's
// bitmap. An array never created gets its header and its whole data block
// (libhdf5 allocates every page at once), and the layout message its
// address. A block read (and its checksum verified) is kept in blocks
// and patched there; the patched blocks are written, each once, at flush
// (before the barrier), so a transaction setting many chunks reads,
// verifies and journals each block once.
type faWriter struct {
	tx     *Tx
	d      *dsWriter
	x      *fixedArrayIndex
	isNew  bool
	blocks map[uint64][]byte // verified data block or pages, by address
	dirty  map[uint64]bool   // addresses of the blocks patched since flush
}

func (tx *Tx) newFixedArrayWriter(d *dsWriter) (chunkIndexWriter, error) {
	ix, err := tx.w.f.newFixedArrayIndex(d.ds.layout, d.ds.geom)
	if err != nil {
		return nil, err
	}
	return &faWriter{tx: tx, d: d, x: ix.(*fixedArrayIndex)}, nil
}

// create writes a header and its data block.
func (w *faWriter) create() error {
	tx, f, l, g := w.tx, w.tx.w.f, w.d.ds.layout, w.d.ds.geom
	client, size := uint8(0), f.so
	if g.filtered {
		client, size = 1, f.so+f.filteredSizeWidth(l, g)+4
	}
	if l.stc != nil {
		client, size = stcArrayEntry(l.stc, g.filtered, f.so)
	}
	n := w.x.nchunks
	hdr := make([]byte, 12+f.sl+f.so)
	copy(hdr, "FAHD")
	hdr[4], hdr[5], hdr[6], hdr[7] = arrayBlockVersion(client), client, byte(size), l.pageBits
	putAddr(hdr[8:], n, f.sl)
	putAddr(hdr[8+f.sl:], undefAddr, f.so)
	addr := tx.alloc(uint64(len(hdr)))
	if err := tx.writeBlock(addr, hdr); err != nil {
		return err
	}
	l2 := *l
	l2.addr = addr
	ix, err := f.newFixedArrayIndex(&l2, g)
	if err != nil {
		return err
	}
	w.x, w.isNew = ix.(*fixedArrayIndex), true
	return w.createDblock()
}

// createDblock allocates and initialises the data block and rewrites the
// header to point to it.
func (w *faWriter) createDblock() error {
	x, tx, so := w.x, w.tx, w.tx.w.f.so
	es := uint64(x.elems.size)
	total := x.prefixSize() + x.n*es
	if x.pageElems != 0 {
		total = x.prefixSize() + x.npages*(x.pageElems*es+4)
	}
	var b []byte
	if x.pageElems == 0 {
		b = make([]byte, total)
		arrayPrefix(b, "FADB", x.client, x.hdr, so)
		copy(b[6+so:], x.elems.emptyEntries(so, x.n))
	} else {
		b = make([]byte, x.prefixSize())
		arrayPrefix(b, "FADB", x.client, x.hdr, so)
	}
	x.dblk = tx.alloc(total)
	if err := tx.writeBlock(x.dblk, b); err != nil {
		return err
	}
	f := tx.w.f
	hdr, err := tx.read(x.hdr, uint64(12+f.sl+f.so))
	if err != nil {
		return err
	}
	putAddr(hdr[8+f.sl:], x.dblk, f.so)
	return tx.writeBlock(x.hdr, hdr)
}

// locate returns the block (data block or page) holding entry idx, its
// address and the entry's offset in it; allocating when alloc is set.
func (w *faWriter) locate(idx uint64, alloc bool) (entryRef, error) {
	x, tx, so := w.x, w.tx, uint64(w.tx.w.f.so)
	es := uint64(x.elems.size)
	head := 6 + so
	if x.pageElems == 0 {
		b, err := w.block(x.dblk, x.prefixSize()+x.n*es, "fixed array data block")
		return entryRef{b, x.dblk, head + idx*es}, err
	}
	p, pos := idx/x.pageElems, idx%x.pageElems
	cnt := min(x.pageElems, x.n-p*x.pageElems)
	at := x.dblk + x.prefixSize() + p*(x.pageElems*es+4)
	pre, err := tx.read(x.dblk, x.prefixSize())
	if err != nil {
		return entryRef{}, err
	}
	if !bitSet(pre[head:len(pre)-4], p) {
		if !alloc {
			return entryRef{}, nil
		}
		page := append(x.elems.emptyEntries(int(so), cnt), 0, 0, 0, 0)
		if err := tx.writeBlock(at, page); err != nil {
			return entryRef{}, err
		}
		pre[head+p/8] |= 0x80 >> (p % 8)
		if err := tx.writeBlock(x.dblk, pre); err != nil {
			return entryRef{}, err
		}
	}
	b, err := w.block(at, cnt*es+4, "fixed array data block page")
	return entryRef{b, at, pos * es}, err
}

// block returns the n-byte block at addr, read and its checksum verified
// on first use in the transaction, from blocks after.
func (w *faWriter) block(addr, n uint64, what string) ([]byte, error) {
	if b := w.blocks[addr]; b != nil {
		return b, nil
	}
	b, err := w.tx.read(addr, n)
	if err != nil {
		return nil, err
	}
	if err := verifyChecksum(b, addr, what); err != nil {
		return nil, err
	}
	if w.blocks == nil {
		w.blocks = map[uint64][]byte{}
	}
	w.blocks[addr] = b
	return b, nil
}

func (w *faWriter) get(scaled []uint64) (chunkLoc, error) {
	missing := chunkLoc{scaled: scaled, addr: undefAddr}
	if w.x.dblk == undefAddr || !inside(scaled, w.x.grid) {
		return missing, nil
	}
	ref, err := w.locate(linear(scaled, w.x.grid), false)
	if err != nil || ref.block == nil {
		return missing, err
	}
	d := w.x.f.decoder(ref.block[ref.at:ref.at+uint64(w.x.elems.size)], ref.addr+ref.at)
	loc := w.x.elems.next(d)
	loc.scaled = scaled
	return loc, d.err
}

func (w *faWriter) set(loc chunkLoc) error {
	if !inside(loc.scaled, w.x.grid) {
		return fmt.Errorf("chunk %v outside the fixed array's %v chunks", loc.scaled, w.x.grid)
	}
	if w.x.hdr == undefAddr {
		if err := w.create(); err != nil {
			return err
		}
	} else if w.x.dblk == undefAddr {
		if err := w.createDblock(); err != nil {
			return err
		}
	}
	ref, err := w.locate(linear(loc.scaled, w.x.grid), true)
	if err != nil {
		return err
	}
	if err := w.x.elems.put(ref.block[ref.at:], w.tx.w.f.so, loc); err != nil {
		return err
	}
	if w.dirty == nil {
		w.dirty = map[uint64]bool{}
	}
	w.dirty[ref.addr] = true
	return nil
}

// flush writes the patched blocks, then (for a new array) the layout
// message's address.
func (w *faWriter) flush() error {
	for _, addr := range slices.Sorted(maps.Keys(w.dirty)) {
		if err := w.tx.writeBlock(addr, w.blocks[addr]); err != nil {
			return err
		}
	}
	w.dirty, w.blocks = nil, nil
	if !w.isNew {
		return nil
	}
	w.isNew = false
	return w.d.setLayout(w.x.hdr, 0, 0)
}
