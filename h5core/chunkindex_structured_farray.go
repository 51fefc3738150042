package h5core

// loadStcFixedArray reads the fixed array of structured-chunk records
// (header FAHD, data block FADB, pages when paged) and emits every entry.
// Entry i is the chunk at row-major position i of the maximum extent's
// chunk grid.
func (f *File) loadStcFixedArray(l *layout, g *chunkGeom, filtered bool, emit func(chunkLoc) error) error {
	if l.addr == undefAddr {
		return nil
	}
	grid := g.grid(g.maxDims)
	nchunks, ok := numChunks(grid)
	for _, c := range grid {
		ok = ok && c != unlimited
	}
	if !ok {
		return formatErr(l.addr, "fixed array chunk index needs fixed maximum dimensions, found %v", g.maxDims)
	}
	b, err := f.read(l.addr, uint64(12+f.sl+f.so))
	if err != nil {
		return err
	}
	if err := verifyChecksum(b, l.addr, "fixed array header"); err != nil {
		return err
	}
	d := f.decoder(b, l.addr)
	d.signature("FAHD")
	version, _ := d.u8(), d.u8() // the client id is not checked (format doc U1)
	es, pageBits := int(d.u8()), d.u8()
	n, dblk := d.length(), d.offset()
	if d.err != nil {
		return d.err
	}
	want := f.so + l.stc.recordSize(filtered)
	switch {
	case version > 1:
		return formatErr(l.addr, "fixed array header version %d unknown", version)
	case es != want:
		return formatErr(l.addr, "fixed array entries of %d bytes, structured-chunk records need %d", es, want)
	case n < nchunks || n > 1<<40:
		return formatErr(l.addr, "fixed array of %d entries for %d chunks", n, nchunks)
	case pageBits > 32:
		return formatErr(l.addr, "fixed array page size of 2^%d entries", pageBits)
	}
	if dblk == undefAddr {
		return nil
	}
	head := uint64(6 + f.so)
	page := uint64(1) << pageBits
	each := func(b []byte, at, first uint64) error {
		d := f.decoder(b, at)
		for i := first; d.remaining() >= es && i < nchunks; i++ {
			loc := l.stc.decodeIndexRecord(d, filtered, 0)
			if d.err != nil {
				return d.err
			}
			loc.scaled = unravel(i, grid)
			if err := emit(loc); err != nil {
				return err
			}
		}
		return nil
	}
	if n <= page {
		b, err := f.read(dblk, head+n*uint64(es)+4)
		if err != nil {
			return err
		}
		if err := f.checkArrayBlock(b, dblk, "FADB", l.addr); err != nil {
			return err
		}
		return each(b[head:len(b)-4], dblk+head, 0)
	}
	npages := (n + page - 1) / page
	pre := head + (npages+7)/8 + 4
	b, err = f.read(dblk, pre)
	if err != nil {
		return err
	}
	if err := f.checkArrayBlock(b, dblk, "FADB", l.addr); err != nil {
		return err
	}
	bitmap := b[head : len(b)-4]
	at := dblk + pre
	for p := uint64(0); p < npages; p++ {
		cnt := min(page, n-p*page)
		size := cnt*uint64(es) + 4
		if bitSet(bitmap, p) {
			pb, err := f.read(at, size)
			if err != nil {
				return err
			}
			if err := verifyChecksum(pb, at, "fixed array page"); err != nil {
				return err
			}
			if err := each(pb[:len(pb)-4], at, p*page); err != nil {
				return err
			}
		}
		at += size
	}
	return nil
}

// checkArrayBlock checks a fixed or extensible array block's signature,
// version, owner and trailing checksum.
func (f *File) checkArrayBlock(b []byte, at uint64, sig string, hdr uint64) error {
	d := f.decoder(b, at)
	d.signature(sig)
	version := d.u8()
	d.u8() // client id
	owner := d.offset()
	switch {
	case d.err != nil:
		return d.err
	case version > 1:
		return formatErr(at, "%s block version %d unknown", sig, version)
	case owner != hdr:
		return formatErr(at, "%s block belongs to the header at %#x, not %#x", sig, owner, hdr)
	}
	return verifyChecksum(b, at, sig+" block")
}
