package h5core

// stcRecord is the part of a structured chunk's index record that
// ordinary chunks do not have: where each section starts and, for
// filtered datasets, each section's unfiltered size and filter mask.
type stcRecord struct {
	offsets    []uint64 // start of each section in the chunk; offsets[0] = 0
	unfiltered []uint64 // filtered datasets: section sizes before filtering
	masks      []uint32 // filtered datasets: bit i set = filter i skipped
}

// recordSize is the size of an index record without its address and
// scaled coordinates.
func (s *stcLayout) recordSize(filtered bool) int {
	n := s.csl + 8*(s.sections-1)
	if filtered {
		n += 12 * s.sections
	}
	return n
}

// decodeRecord decodes the single-chunk info of the layout message: a
// chunk size followed by the section fields (decodeSections).
func (s *stcLayout) decodeRecord(d *decoder, filtered bool) chunkLoc {
	size := d.uN(s.csl)
	loc := s.decodeSections(d, filtered)
	loc.size = size
	return loc
}

// decodeIndexRecord decodes a fixed/extensible array entry (rank 0) or a
// v2 B-tree record (rank scaled coordinates): address, chunk size, the
// scaled coordinates, then the section fields.
func (s *stcLayout) decodeIndexRecord(d *decoder, filtered bool, rank int) chunkLoc {
	addr, size := d.offset(), d.uN(s.csl)
	var scaled []uint64
	for i := 0; i < rank; i++ {
		scaled = append(scaled, d.u64())
	}
	loc := s.decodeSections(d, filtered)
	loc.addr, loc.size, loc.scaled = addr, size, scaled
	return loc
}

// decodeSections decodes the offsets of sections 1..N-1 and, when
// filtered, the unfiltered sizes and filter masks of every section
// (H5D__*_stc_encode order).
func (s *stcLayout) decodeSections(d *decoder, filtered bool) chunkLoc {
	loc := chunkLoc{stc: &stcRecord{offsets: make([]uint64, s.sections)}}
	for i := 1; i < s.sections; i++ {
		loc.stc.offsets[i] = d.u64()
	}
	if filtered {
		loc.stc.unfiltered = make([]uint64, s.sections)
		loc.stc.masks = make([]uint32, s.sections)
		for i := range loc.stc.unfiltered {
			loc.stc.unfiltered[i] = d.u64()
		}
		for i := range loc.stc.masks {
			loc.stc.masks[i] = d.u32()
		}
	}
	return loc
}

// sections splits a structured chunk's stored bytes into its sections,
// checking the record's offsets against the chunk size.
func (r *stcRecord) sections(raw []byte, addr uint64) ([][]byte, error) {
	out := make([][]byte, len(r.offsets))
	for i, o := range r.offsets {
		end := uint64(len(raw))
		if i+1 < len(r.offsets) {
			end = r.offsets[i+1]
		}
		if o > end || end > uint64(len(raw)) {
			return nil, formatErr(addr, "structured chunk of %d bytes: section %d spans %d-%d", len(raw), i, o, end)
		}
		out[i] = raw[o:end]
	}
	return out, nil
}
