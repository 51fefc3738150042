package h5core

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// eaWriter writes an extensible array chunk index in place: entries are
// patched in their blocks (each rewritten whole with its checksum), new
// data blocks, super blocks and pages are allocated at the end of file
// as entries past them are set, and the header's statistics and maximum
// index are rewritten at flush. An array never created gets a header and
// an index block, and the layout message its address.
type eaWriter struct {
	tx    *Tx
	d     *dsWriter
	x     *extensibleArrayIndex
	stats [6]uint64 // super blocks, their bytes, data blocks, their bytes, max index set, elements realised
	dirty bool
	isNew bool // header created by this writer: the layout must point to it
}

func (tx *Tx) newExtensibleArrayWriter(d *dsWriter) (chunkIndexWriter, error) {
	ix, err := tx.w.f.newExtensibleArrayIndex(d.ds.layout, d.ds.geom)
	if err != nil {
		return nil, err
	}
	w := &eaWriter{tx: tx, d: d, x: ix.(*extensibleArrayIndex)}
	if w.x.hdr == undefAddr {
		return w, nil
	}
	return w, w.readStats()
}

// headerSize is the size of the EAHD block.
func (w *eaWriter) headerSize() uint64 {
	f := w.tx.w.f
	return uint64(16 + 6*f.sl + f.so)
}

func (w *eaWriter) readStats() error {
	f := w.tx.w.f
	b, err := w.tx.read(w.x.hdr, w.headerSize())
	if err != nil {
		return err
	}
	d := f.decoder(b[12:], w.x.hdr+12)
	for i := range w.stats {
		w.stats[i] = d.length()
	}
	return d.err
}

// create writes a new header and index block (libhdf5 creates them with
// the first chunk).
func (w *eaWriter) create() error {
	tx, f, l := w.tx, w.tx.w.f, w.d.ds.layout
	client, size := uint8(0), f.so
	if w.d.ds.geom.filtered {
		client, size = 1, f.so+f.filteredSizeWidth(l, w.d.ds.geom)+4
	}
	if l.stc != nil {
		client, size = stcArrayEntry(l.stc, w.d.ds.geom.filtered, f.so)
	}
	hdr := make([]byte, w.headerSize())
	copy(hdr, "EAHD")
	hdr[4], hdr[5] = arrayBlockVersion(client), client
	copy(hdr[6:], []byte{byte(size), l.ea.maxBits, l.ea.indexElems, l.ea.minElems, l.ea.minPointers, l.ea.pageBits})
	putAddr(hdr[12+6*f.sl:], undefAddr, f.so)
	addr := tx.alloc(uint64(len(hdr)))
	if err := tx.writeBlock(addr, hdr); err != nil {
		return err
	}
	l2 := *l
	l2.addr = addr
	ix, err := f.newExtensibleArrayIndex(&l2, w.d.ds.geom)
	if err != nil {
		return err
	}
	w.x, w.isNew, w.dirty = ix.(*extensibleArrayIndex), true, true
	return nil
}

// iblockSize is the size of the index block.
func (w *eaWriter) iblockSize() uint64 {
	x := w.x
	so := uint64(x.f.so)
	return 10 + so + x.idxBlkElmts*uint64(x.elems.size) + uint64(x.ndblkAddrs+x.nsblks-x.iblkSblks)*so
}

func (w *eaWriter) createIblock() error {
	x, so := w.x, w.x.f.so
	b := make([]byte, w.iblockSize())
	pos := arrayPrefix(b, "EAIB", x.client, x.hdr, so)
	pos += copy(b[pos:], x.elems.emptyEntries(so, x.idxBlkElmts))
	for ; pos < len(b)-4; pos += so {
		putAddr(b[pos:], undefAddr, so)
	}
	x.iblk = w.tx.alloc(uint64(len(b)))
	w.dirty = true
	return w.tx.writeBlock(x.iblk, b)
}

// index is the array index of the chunk at scaled, with no regard to the
// entries set so far (extensibleArrayIndex.index answers for reading).
func (w *eaWriter) index(scaled []uint64) (uint64, error) {
	x := w.x
	var rest uint64
	for i, s := range scaled {
		if i == x.unlim {
			continue
		}
		if s >= x.grid[i] {
			return 0, fmt.Errorf("chunk %v outside the maximum extent", scaled)
		}
		rest = rest*x.grid[i] + s
	}
	idx := scaled[x.unlim]*x.inner + rest
	if x.nsblks > 0 && x.nsblks < 60 && idx >= x.idxBlkElmts+x.sblkStart(x.nsblks) {
		return 0, fmt.Errorf("chunk %v past the extensible array's capacity", scaled)
	}
	return idx, nil
}

// entryRef says where entry idx lives: the block holding it (whole, as
// read), its address, and the entry's byte offset in it; block is nil
// when the block or page is not allocated.
type entryRef struct {
	block []byte
	addr  uint64
	at    uint64
}

func (w *eaWriter) get(scaled []uint64) (chunkLoc, error) {
	missing := chunkLoc{scaled: scaled, addr: undefAddr}
	if w.x.hdr == undefAddr || w.x.iblk == undefAddr {
		return missing, nil
	}
	idx, err := w.index(scaled)
	if err != nil {
		return missing, nil
	}
	ref, err := w.locate(idx, false)
	if err != nil || ref.block == nil {
		return missing, err
	}
	d := w.x.f.decoder(ref.block[ref.at:ref.at+uint64(w.x.elems.size)], ref.addr+ref.at)
	loc := w.x.elems.next(d)
	loc.scaled = scaled
	return loc, d.err
}

func (w *eaWriter) set(loc chunkLoc) error {
	if w.x.hdr == undefAddr {
		if err := w.create(); err != nil {
			return err
		}
	}
	if w.x.iblk == undefAddr {
		if err := w.createIblock(); err != nil {
			return err
		}
	}
	idx, err := w.index(loc.scaled)
	if err != nil {
		return err
	}
	ref, err := w.locate(idx, true)
	if err != nil {
		return err
	}
	if err := w.x.elems.put(ref.block[ref.at:], w.x.f.so, loc); err != nil {
		return err
	}
	if err := w.tx.writeBlock(ref.addr, ref.block); err != nil {
		return err
	}
	if idx+1 > w.stats[4] {
		w.stats[4] = idx + 1
		w.dirty = true
	}
	return nil
}

// locate finds entry idx, allocating the blocks and pages on the way
// when alloc is set.
func (w *eaWriter) locate(idx uint64, alloc bool) (entryRef, error) {
	x, tx, so := w.x, w.tx, uint64(w.x.f.so)
	es := uint64(x.elems.size)
	ib, err := tx.read(x.iblk, w.iblockSize())
	if err != nil {
		return entryRef{}, err
	}
	if err := x.check("EAIB")(ib, x.iblk); err != nil {
		return entryRef{}, err
	}
	if err := verifyChecksum(ib, x.iblk, "extensible array index block"); err != nil {
		return entryRef{}, err
	}
	if idx < x.idxBlkElmts {
		return entryRef{ib, x.iblk, 6 + so + idx*es}, nil
	}
	j := idx - x.idxBlkElmts
	u := bits.Len64(j/x.minElmts+1) - 1
	k, pos := (j-x.sblkStart(u))/x.dblkElmts(u), (j-x.sblkStart(u))%x.dblkElmts(u)
	addrsAt := 6 + so + x.idxBlkElmts*es // data block addresses in the index block
	// The block that holds the data block's address: the index block or
	// super block u.
	var sb []byte
	var sbAddr, dblkField uint64
	if u < x.iblkSblks {
		first := uint64(0)
		for v := range u {
			first += ndblks(v)
		}
		sb, sbAddr, dblkField = ib, x.iblk, addrsAt+(first+k)*so
	} else {
		sbField := addrsAt + uint64(x.ndblkAddrs+u-x.iblkSblks)*so
		sbAddr = x.addrAt(ib, sbField)
		sbSize := 10 + so + uint64(x.offSize) + x.bitmapSize(u) + ndblks(u)*so
		if sbAddr == undefAddr {
			if !alloc {
				return entryRef{}, nil
			}
			sb = make([]byte, sbSize)
			p := arrayPrefix(sb, "EASB", x.client, x.hdr, int(so))
			putAddr(sb[p:], x.sblkStart(u), x.offSize)
			for q := uint64(p+x.offSize) + x.bitmapSize(u); q < sbSize-4; q += so {
				putAddr(sb[q:], undefAddr, int(so))
			}
			sbAddr = tx.alloc(sbSize)
			if err := tx.writeBlock(sbAddr, sb); err != nil {
				return entryRef{}, err
			}
			putAddr(ib[sbField:], sbAddr, int(so))
			if err := tx.writeBlock(x.iblk, ib); err != nil {
				return entryRef{}, err
			}
			w.stats[0]++
			w.stats[1] += sbSize
			w.dirty = true
		} else if sb, err = tx.read(sbAddr, sbSize); err != nil {
			return entryRef{}, err
		}
		dblkField = 6 + so + uint64(x.offSize) + x.bitmapSize(u) + k*so
	}
	head := 6 + so + uint64(x.offSize)
	dAddr := x.addrAt(sb, dblkField)
	if dAddr == undefAddr {
		if !alloc {
			return entryRef{}, nil
		}
		n := head + x.dblkElmts(u)*es + 4
		if x.paged(u) {
			n = head + 4 + x.npages(u)*(x.pageElems*es+4)
		}
		b := make([]byte, head+4)
		if !x.paged(u) {
			b = make([]byte, n)
			copy(b[head:], x.elems.emptyEntries(int(so), x.dblkElmts(u)))
		}
		p := arrayPrefix(b, "EADB", x.client, x.hdr, int(so))
		putAddr(b[p:], x.sblkStart(u)+k*x.dblkElmts(u), x.offSize)
		dAddr = tx.alloc(n)
		if err := tx.writeBlock(dAddr, b); err != nil {
			return entryRef{}, err
		}
		putAddr(sb[dblkField:], dAddr, int(so))
		if err := tx.writeBlock(sbAddr, sb); err != nil {
			return entryRef{}, err
		}
		w.stats[2]++
		w.stats[3] += n
		w.stats[5] += x.dblkElmts(u)
		w.dirty = true
	}
	if !x.paged(u) {
		b, err := tx.read(dAddr, head+x.dblkElmts(u)*es+4)
		if err != nil {
			return entryRef{}, err
		}
		if err := verifyChecksum(b, dAddr, "extensible array data block"); err != nil {
			return entryRef{}, err
		}
		return entryRef{b, dAddr, head + pos*es}, nil
	}
	p, pos := pos/x.pageElems, pos%x.pageElems
	pageAt := dAddr + head + 4 + p*(x.pageElems*es+4)
	bit := k*x.npages(u) + p
	bitmap := sb[head : head+x.bitmapSize(u)]
	if !bitSet(bitmap, bit) {
		if !alloc {
			return entryRef{}, nil
		}
		page := append(x.elems.emptyEntries(int(so), x.pageElems), 0, 0, 0, 0)
		if err := tx.writeBlock(pageAt, page); err != nil {
			return entryRef{}, err
		}
		bitmap[bit/8] |= 0x80 >> (bit % 8)
		if err := tx.writeBlock(sbAddr, sb); err != nil {
			return entryRef{}, err
		}
	}
	b, err := tx.read(pageAt, x.pageElems*es+4)
	if err != nil {
		return entryRef{}, err
	}
	return entryRef{b, pageAt, pos * es}, verifyChecksum(b, pageAt, "extensible array data block page")
}

// flush rewrites the header (statistics, maximum index, index block
// address) and, for a new array, points the layout message at it.
func (w *eaWriter) flush() error {
	if !w.dirty {
		return nil
	}
	f := w.tx.w.f
	b, err := w.tx.read(w.x.hdr, w.headerSize())
	if err != nil {
		return err
	}
	for i, v := range w.stats {
		putAddr(b[12+i*f.sl:], v, f.sl)
	}
	putAddr(b[12+6*f.sl:], w.x.iblk, f.so)
	binary.LittleEndian.PutUint32(b[len(b)-4:], 0)
	if err := w.tx.writeBlock(w.x.hdr, b); err != nil {
		return err
	}
	w.dirty = false
	if w.isNew {
		w.isNew = false
		return w.d.setLayout(w.x.hdr, 0, 0)
	}
	return nil
}
