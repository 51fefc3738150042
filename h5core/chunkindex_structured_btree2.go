package h5core

// loadStcBtree2 reads the v2 B-tree of structured-chunk records (types
// 12 unfiltered / 13 filtered: address, chunk size, scaled coordinates,
// section fields) and emits every record. The record type stored in the
// header is not checked (format doc U1); the record size is.
func (f *File) loadStcBtree2(l *layout, g *chunkGeom, filtered bool, emit func(chunkLoc) error) error {
	if l.addr == undefAddr {
		return nil
	}
	typ, err := f.read(l.addr+5, 1)
	if err != nil {
		return err
	}
	rank := len(g.chunk)
	t, err := f.readBtree2(l.addr, typ[0], f.so+8*rank+l.stc.recordSize(filtered))
	if err != nil {
		return err
	}
	return f.walkBtree2(t, func(rec []byte) error {
		d := f.decoder(rec, t.addr)
		loc := l.stc.decodeIndexRecord(d, filtered, rank)
		if d.err != nil {
			return d.err
		}
		return emit(loc)
	})
}
