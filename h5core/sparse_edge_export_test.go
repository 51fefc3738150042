package h5core

// SetDontFilterPartial sets the "don't filter partial edge chunks" flag
// of the structured-chunk layout of the sparse dataset at path and
// stores its chunks again as the flag asks (partial edge chunks
// unfiltered), for tests of h5core_test: no writer of ours sets the flag.
func SetDontFilterPartial(tx *Tx, path string) error {
	d, err := tx.dataset(path)
	if err != nil {
		return err
	}
	chunks, err := d.ds.SparseChunks()
	if err != nil {
		return err
	}
	var read []*SparseChunk
	for _, c := range chunks {
		sc, err := d.ds.ReadSparseChunk(c, true)
		if err != nil {
			return err
		}
		read = append(read, sc)
	}
	l := *d.ds.layout
	s := *l.stc
	s.flags |= stcDontFilterPartial
	l.stc = &s
	if err := d.rewriteStructuredLayout(&l); err != nil {
		return err
	}
	g := d.ds.geom
	for _, sc := range read {
		idx, vals, err := sc.Positions()
		if err != nil {
			return err
		}
		scaled := make([]uint64, len(g.chunk))
		for i, o := range sc.Offset {
			scaled[i] = o / g.chunk[i]
		}
		if err := d.storeSparseChunk(scaled, g.dims, idx, vals); err != nil {
			return err
		}
	}
	return nil
}
