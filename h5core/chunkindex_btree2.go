package h5core

import "math/bits"

// newBtree2ChunkIndex returns the chunk index of datasets with more than
// one unlimited dimension (layout v4, index type 5): a v2 B-tree of type
// 10 records (unfiltered chunks) or 11 (filtered); in structured-chunk
// layouts, of structured-chunk records (types 12 and 13).
func (f *File) newBtree2ChunkIndex(l *layout, g *chunkGeom) (chunkIndex, error) {
	return &chunkTable{g: g, addr: l.addr, read: func(add func(chunkLoc) error) error {
		return f.readBtree2Chunks(l, g, add)
	}}, nil
}

// chunkSizeWidth is the width of the chunk size field of filtered chunk
// records: one byte more than the unfiltered chunk size needs, at most 8
// (H5D__bt2_crt_context).
func chunkSizeWidth(chunkBytes uint64) int {
	return min(1+(bits.Len64(chunkBytes|1)-1+8)/8, 8)
}

// filteredSizeWidth is the width of the chunk size in filtered chunk
// records of an ordinary chunked layout: computed from the chunk size up to
// layout v4; the file's "size of lengths" in layout v5, which libhdf5 2.0
// writes for file format 2.0 so that chunks may exceed 4 GiB.
func (f *File) filteredSizeWidth(l *layout, g *chunkGeom) int {
	if l.version >= 5 {
		return f.sl
	}
	return chunkSizeWidth(g.chunkBytes())
}

// readBtree2Chunks reads every chunk record of a v2 B-tree chunk index.
func (f *File) readBtree2Chunks(l *layout, g *chunkGeom, add func(chunkLoc) error) error {
	if l.addr == undefAddr {
		return nil
	}
	rank := len(g.chunk)
	typ, sizeWidth := uint8(bt2Chunk), 0
	recSize := f.so + 8*rank
	switch {
	case l.stc != nil:
		// The record type stored is not checked (format doc U1), the
		// record size is.
		b, err := f.read(l.addr+5, 1)
		if err != nil {
			return err
		}
		typ = b[0]
		recSize += l.stc.recordSize(g.filtered)
	case g.filtered:
		typ, sizeWidth = bt2ChunkFiltered, f.filteredSizeWidth(l, g)
		recSize += sizeWidth + 4
	}
	t, err := f.readBtree2(l.addr, typ, recSize)
	if err != nil {
		return err
	}
	return f.walkBtree2(t, func(rec []byte) error {
		d := f.decoder(rec, t.addr)
		var loc chunkLoc
		if l.stc != nil {
			loc = l.stc.decodeIndexRecord(d, g.filtered, rank)
		} else {
			loc = chunkLoc{addr: d.offset(), size: g.chunkBytes(), scaled: make([]uint64, rank)}
			if g.filtered {
				loc.size, loc.mask = d.uN(sizeWidth), d.u32()
			}
			for i := range loc.scaled {
				loc.scaled[i] = d.u64()
			}
		}
		if d.err != nil {
			return d.err
		}
		return add(loc)
	})
}
