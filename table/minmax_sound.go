package table

// SoundMinMax returns the entries of the column's first structurally sound
// CHUNK_MINMAX index, one per data chunk, without reading the column:
// every entry's n is its chunk's row count, nan_count and fill_count are
// at most n, and min is not above max. Whether the entries agree with the
// data is what Verify checks (h5fs check --verify-indexes); renderers take
// row-group statistics from a sound index so that opening a view never
// waits on a pass over the column.
func (c *Column) SoundMinMax() (entries []MinMaxEntry, ok bool) {
	for _, si := range c.SearchIndexes {
		if si.Kind != KindChunkMinMax {
			continue
		}
		if e, err := si.MinMax(); err == nil && c.sound(e) {
			return e, true
		}
	}
	return nil, false
}

// sound reports whether CHUNK_MINMAX entries e fit c's chunks.
func (c *Column) sound(e []MinMaxEntry) bool {
	nch, length := c.dataChunks()
	if int64(len(e)) != nch {
		return false
	}
	kind := keyKindOf(c.Type)
	for i, x := range e {
		n := uint64(min(length, c.t.NRows-int64(i)*length))
		if x.N != n || x.NaNCount > n || x.FillCount > n {
			return false
		}
		if compareKeys(kind, toKey(kind, x.Min), toKey(kind, x.Max)) > 0 {
			return false
		}
	}
	return true
}
