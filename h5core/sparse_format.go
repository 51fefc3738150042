package h5core

// Values of the structured-chunk (sparse) format that
// sparse-structured-chunk-format.md could not confirm against a prototype
// build (§12 U1–U4), in one place. Writers use exactly these; readers
// accept the alternatives the document lists and do not check the
// others.

// Structured chunk types, the bit field of the layout message (§3 field
// 4). U3: the document and the fixtures write sparse as bit 0 (1); one
// copy of the prototype's header defines H5D_SPARSE_CHUNK as 0, so
// readers take a type of 0 as sparse too (isSparseType).
const (
	stcSparse   = 0x01
	stcVariable = 0x02
)

// isSparseType reports a structured chunk type that means sparse data of
// a fixed-size type: 1, or 0 (U3).
func isSparseType(typ uint16) bool { return typ == stcSparse || typ == 0 }

// Client ids of fixed and extensible arrays indexing structured chunks
// (§7.2, §7.3; U1: from the HTML spec; readers do not check them).
const (
	stcArrayClient         = 2 // unfiltered structured chunks
	stcArrayClientFiltered = 3 // filtered structured chunks
)

// v2 B-tree record types of structured-chunk indexes (§7.4; U1).
const (
	stcBtreeType         = 12 // unfiltered structured chunks
	stcBtreeTypeFiltered = 13 // filtered structured chunks
)

// Versions of the index structures of structured chunks (§7.2–7.4, U2,
// U4): fixed and extensible array headers and blocks 1, v2 B-tree header
// 1, v2 B-tree nodes 0 (readers accept 0 or 1 for each).
const (
	stcArrayVersion       = 1
	stcBtreeHeaderVersion = 1
	stcBtreeNodeVersion   = 0
)

// stcArrayEntry returns the client id and entry size of a new fixed or
// extensible array indexing structured chunks (§7.1-7.3).
func stcArrayEntry(s *stcLayout, filtered bool, so int) (client uint8, size int) {
	if filtered {
		return stcArrayClientFiltered, so + s.recordSize(true)
	}
	return stcArrayClient, so + s.recordSize(false)
}

// arrayBlockVersion returns the version of the header and blocks of a
// fixed or extensible array of the given client: stcArrayVersion for
// structured chunks, 0 (as libhdf5 writes) for ordinary ones.
func arrayBlockVersion(client uint8) uint8 {
	if client == stcArrayClient || client == stcArrayClientFiltered {
		return stcArrayVersion
	}
	return 0
}

// stcBtreeRecords returns the record type, record size and record
// encoder of a v2 B-tree indexing structured chunks of rank rank
// (§7.4): address, chunk size, scaled coordinates, section offsets and,
// filtered, unfiltered sizes and masks.
func stcBtreeRecords(s *stcLayout, filtered bool, so, rank int) (uint8, int, func(b []byte, loc chunkLoc)) {
	typ := uint8(stcBtreeType)
	if filtered {
		typ = stcBtreeTypeFiltered
	}
	return typ, so + 8*rank + s.recordSize(filtered), func(b []byte, loc chunkLoc) {
		copy(b, s.appendIndexRecord(nil, so, loc, filtered, rank))
	}
}

// btree2Versions returns the versions of a v2 B-tree chunk index's
// header and nodes: those of §7.4 for structured chunks, 0 (libhdf5's)
// otherwise.
func btree2Versions(l *layout) (header, node uint8) {
	if l.stc != nil {
		return stcBtreeHeaderVersion, stcBtreeNodeVersion
	}
	return 0, 0
}
