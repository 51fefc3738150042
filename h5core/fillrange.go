package h5core

// AllFill reports whether the bytes [off, end) of the dataset (as ReadAt
// numbers them) are all fill: they lie in chunks never written, or in
// contiguous storage never allocated. It reads no data, only the chunk
// index, so that the size of a never-written region's rendering can be
// computed from the fill value alone. False when unsure (compact, virtual
// and external storage, structured chunks).
func (ds *Dataset) AllFill(off, end int64) (bool, error) {
	if ds.efl != nil || end <= off {
		return false, nil
	}
	switch ds.layout.class {
	case layoutContiguous:
		return ds.layout.addr == undefAddr, nil
	case layoutChunked:
	default:
		return false, nil
	}
	es := int64(ds.geom.elemSize)
	if es == 0 {
		return false, nil
	}
	idx, err := ds.chunkIndex()
	if err != nil {
		return false, err
	}
	grid := ds.geom.grid(ds.geom.dims)
	for _, s := range ds.geom.chunksInRange(off/es, (end+es-1)/es, grid) {
		loc, err := idx.chunk(s)
		if err != nil {
			return false, ds.err(err)
		}
		if loc.addr != undefAddr {
			return false, nil
		}
	}
	return true, nil
}
