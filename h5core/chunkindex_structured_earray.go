package h5core

import (
	"fmt"
	"math/bits"
)

// loadStcExtensibleArray reads the extensible array of structured-chunk
// records (header EAHD, index block EAIB, super blocks EASB, data blocks
// EADB) and emits every entry up to the header's "max index set". Entry
// idx is the chunk at row-major position idx once the unlimited dimension
// is moved to the front ("swizzled"). Paged data blocks (more than
// 2^page_bits entries) are not supported.
func (f *File) loadStcExtensibleArray(l *layout, g *chunkGeom, filtered bool, emit func(chunkLoc) error) error {
	if l.addr == undefAddr {
		return nil
	}
	unlim := -1
	for i, m := range g.maxDims {
		if m == unlimited {
			if unlim >= 0 {
				return formatErr(l.addr, "extensible array chunk index with more than one unlimited dimension")
			}
			unlim = i
		}
	}
	if unlim < 0 {
		return formatErr(l.addr, "extensible array chunk index without an unlimited dimension")
	}
	hsize := uint64(12 + 6*f.sl + f.so + 4)
	b, err := f.read(l.addr, hsize)
	if err != nil {
		return err
	}
	if err := verifyChecksum(b, l.addr, "extensible array header"); err != nil {
		return err
	}
	d := f.decoder(b, l.addr)
	d.signature("EAHD")
	version, _ := d.u8(), d.u8() // the client id is not checked (format doc U1)
	es := int(d.u8())
	maxBits, ibElems, minElems, minPtrs, pageBits := d.u8(), uint64(d.u8()), uint64(d.u8()), uint64(d.u8()), d.u8()
	for range 4 {
		d.length() // super and data block statistics
	}
	maxIdx := d.length()
	d.length() // elements realised
	iblock := d.offset()
	if d.err != nil {
		return d.err
	}
	want := f.so + l.stc.recordSize(filtered)
	switch {
	case version > 1:
		return formatErr(l.addr, "extensible array header version %d unknown", version)
	case es != want:
		return formatErr(l.addr, "extensible array entries of %d bytes, structured-chunk records need %d", es, want)
	case maxBits == 0 || maxBits > 64 || pageBits > 32 || !powerOfTwo(uint8(minElems)) || !powerOfTwo(uint8(minPtrs)) ||
		bits.TrailingZeros64(minElems) >= int(maxBits):
		return formatErr(l.addr, "extensible array parameters %d/%d/%d/%d/%d invalid", maxBits, ibElems, minElems, minPtrs, pageBits)
	}
	if iblock == undefAddr {
		return nil
	}
	// chunk counts of the swizzled maximum grid (the unlimited one unused)
	grid := g.grid(g.maxDims)
	swz := append([]uint64{0}, grid[:unlim]...)
	swz = append(swz, grid[unlim+1:]...)
	toScaled := func(idx uint64) []uint64 {
		s := make([]uint64, len(grid))
		for i := len(swz) - 1; i >= 1; i-- {
			v := idx % swz[i]
			idx /= swz[i]
			if i <= unlim {
				s[i-1] = v
			} else {
				s[i] = v
			}
		}
		s[unlim] = idx
		return s
	}
	for _, c := range swz[1:] {
		if c == 0 {
			return nil
		}
	}
	each := func(b []byte, at, first uint64) error {
		d := f.decoder(b, at)
		for i := first; d.remaining() >= es && i < maxIdx; i++ {
			loc := l.stc.decodeIndexRecord(d, filtered, 0)
			if d.err != nil {
				return d.err
			}
			loc.scaled = toScaled(i)
			if err := emit(loc); err != nil {
				return err
			}
		}
		return nil
	}

	nsblks := 1 + int(maxBits) - bits.TrailingZeros64(minElems)
	ibSblks := 2 * bits.TrailingZeros64(minPtrs)
	ndblkAddrs := 2 * (minPtrs - 1)
	nsblkAddrs := max(nsblks-ibSblks, 0)
	ibSize := uint64(6+f.so) + ibElems*uint64(es) + (ndblkAddrs+uint64(nsblkAddrs))*uint64(f.so) + 4
	ib, err := f.read(iblock, ibSize)
	if err != nil {
		return err
	}
	if err := f.checkArrayBlock(ib, iblock, "EAIB", l.addr); err != nil {
		return err
	}
	head := uint64(6 + f.so)
	if err := each(ib[head:head+ibElems*uint64(es)], iblock+head, 0); err != nil {
		return err
	}
	ad := f.decoder(ib[head+ibElems*uint64(es):len(ib)-4], iblock+head+ibElems*uint64(es))
	dblkAddrs := make([]uint64, ndblkAddrs)
	for i := range dblkAddrs {
		dblkAddrs[i] = ad.offset()
	}
	sblkAddrs := make([]uint64, nsblkAddrs)
	for i := range sblkAddrs {
		sblkAddrs[i] = ad.offset()
	}
	if ad.err != nil {
		return ad.err
	}
	aw := (int(maxBits) + 7) / 8 // width of a block's offset field
	readDblk := func(addr, n, first uint64) error {
		if addr == undefAddr {
			return nil
		}
		if n > 1<<pageBits {
			return fmt.Errorf("paged extensible array data block at %#x: %w", addr, ErrUnsupported)
		}
		pre := head + uint64(aw)
		b, err := f.read(addr, pre+n*uint64(es)+4)
		if err != nil {
			return err
		}
		if err := f.checkArrayBlock(b, addr, "EADB", l.addr); err != nil {
			return err
		}
		return each(b[pre:len(b)-4], addr+pre, first)
	}
	next := ibElems // array index of the next data block's first entry
	k := 0          // data block number among the index block's addresses
	for s := 0; s < nsblks && next < maxIdx; s++ {
		ndblks := uint64(1) << (s / 2)
		n := minElems << ((s + 1) / 2)
		var addrs []uint64
		if s < ibSblks {
			addrs = dblkAddrs[min(k, len(dblkAddrs)):min(k+int(ndblks), len(dblkAddrs))]
			k += int(ndblks)
		} else if a := sblkAddrs[s-ibSblks]; a != undefAddr {
			if n > 1<<pageBits {
				return fmt.Errorf("paged extensible array super block at %#x: %w", a, ErrUnsupported)
			}
			sb, err := f.read(a, head+uint64(aw)+ndblks*uint64(f.so)+4)
			if err != nil {
				return err
			}
			if err := f.checkArrayBlock(sb, a, "EASB", l.addr); err != nil {
				return err
			}
			sd := f.decoder(sb[head+uint64(aw):len(sb)-4], a+head+uint64(aw))
			for range ndblks {
				addrs = append(addrs, sd.offset())
			}
			if sd.err != nil {
				return sd.err
			}
		}
		for j := range ndblks {
			if int(j) < len(addrs) {
				if err := readDblk(addrs[j], n, next+j*n); err != nil {
					return err
				}
			}
		}
		next += ndblks * n
	}
	return nil
}
