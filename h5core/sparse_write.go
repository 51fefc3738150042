package h5core

import (
	"encoding/binary"
	"fmt"
)

// Writing structured chunks (sparse-structured-chunk-format.md §4, §10):
// a chunk is always rebuilt from its defined elements, section 0 being
// the encoded selection plus its lookup3 checksum and section 1 the values
// in selection order, each section through its own filter pipeline.

// encodeSparseChunk returns the stored bytes and index record of the
// structured chunk at scaled coordinates scaled, holding the positions
// idx (ascending row-major linear indices inside the chunk) with the
// values vals (packed in the file datatype, in the same order). dims is
// the dataset extent the chunk is written for: with the layout's
// "don't filter partial edge chunks" flag, a chunk reaching past it is
// stored unfiltered.
func (ds *Dataset) encodeSparseChunk(scaled, dims, idx []uint64, vals []byte) ([]byte, *stcRecord, error) {
	g, s := ds.geom, ds.layout.stc
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: structured chunk %v: %s", ds.f.name, ds.Path, scaled, fmt.Sprintf(format, args...))
	}
	if len(idx) == 0 {
		return nil, nil, fail("no defined element (an empty chunk is removed, never stored)")
	}
	if uint64(len(vals)) != uint64(len(idx))*g.elemSize {
		return nil, nil, fail("%d bytes of values for %d elements of %d bytes", len(vals), len(idx), g.elemSize)
	}
	sel, err := chunkSelection(g.chunk, idx)
	if err != nil {
		return nil, nil, fail("%v", err)
	}
	sec0, err := sel.Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %s: structured chunk %v: %w", ds.f.name, ds.Path, scaled, err)
	}
	sec0 = binary.LittleEndian.AppendUint32(sec0, lookup3(sec0, 0))
	partial := false
	if s.flags&stcDontFilterPartial != 0 {
		for i, c := range g.chunk {
			partial = partial || (scaled[i]+1)*c > dims[i]
		}
	}
	rec := &stcRecord{offsets: make([]uint64, 2)}
	if ds.SectionFilters != nil {
		rec.unfiltered = []uint64{uint64(len(sec0)), uint64(len(vals))}
		rec.masks = make([]uint32, 2)
	}
	var out []byte
	for i, sec := range [][]byte{sec0, vals} {
		if i < len(ds.SectionFilters) && ds.SectionFilters[i] != nil && !partial {
			enc, mask, err := encodeSection(ds.SectionFilters[i], sec)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %s: structured chunk %v: section %d: %w", ds.f.name, ds.Path, scaled, i, err)
			}
			sec, rec.masks[i] = enc, mask
		}
		rec.offsets[i] = uint64(len(out))
		out = append(out, sec...)
	}
	if s.csl < 8 && uint64(len(out)) >= 1<<(8*s.csl) {
		return nil, nil, fail("%d bytes do not fit the index's %d-byte chunk size field", len(out), s.csl)
	}
	return out, rec, nil
}

// encodeSection runs one section through its filter pipeline, returning
// the filtered bytes and the filter mask (bit i set: filter i skipped).
func encodeSection(filters []Filter, data []byte) ([]byte, uint32, error) {
	if len(filters) > 0 {
		return nil, 0, fmt.Errorf("writing filtered sections (filter %s): %w", filterLabel(&filters[0]), ErrUnsupported)
	}
	return data, 0, nil
}
