// Package h5core reads and writes HDF5 files in pure Go: the format
// layer of h5fs. It imports nothing else of h5fs.
//
// # Reading
//
// Open (or NewFile over any io.ReaderAt) parses the superblock (versions
// 0-3, with or without a user block) and gives a File; File.Open and
// Object.Links walk groups (symbol tables, compact and dense link
// storage, soft and external links), Object.Attributes and
// Object.Dataset read the rest. A Dataset has a Datatype (every class of
// the format, parsed once), a shape, a fill value and a layout: compact,
// contiguous, chunked with any chunk index (v1 and v2 B-tree, fixed and
// extensible array, single chunk, implicit), virtual, or a structured
// chunk sparse layout. Dataset.ReadAt reads element bytes in the file's
// own element layout (byte order, padding) through the filter pipeline;
// ReadValues and File.ElementValue give Go values (see value.go for the
// types); DumpPacked streams the dataset in packed little-endian form.
// Checksums of metadata blocks are verified. Nothing is read from the file
// until asked, and never the whole file.
//
// # Writing
//
// OpenRW opens a file for writing in place; RW.Begin starts a Tx whose
// SetExtent, WriteAt, WriteChunk and SetAttribute are made durable by
// Commit, in the order Barrier sets, with a rollback journal beside the
// file (see write.go for the commit protocol and Recover). NewVlen stores
// variable-length values in new global heap collections and returns the
// elements that point at them. Writers mirror readers: an encoder sits
// beside each decoder (filter_*.go, *_write.go).
//
// To encode a chunk, run the dataset's pipeline forward:
//
//	stored, mask, err := encodeChunk(ds.Filters, chunkBytes)
//
// chunkBytes are the file's element bytes of a whole chunk (edge chunks
// too); mask is the chunk's filter mask to store in the index (bit i set
// when optional filter i was skipped, as libhdf5 does). Filters register
// themselves in register.go with a decoder and, where h5core can write
// them, an encoder: deflate, shuffle, Fletcher-32, n-bit, scale-offset
// (integers; floating-point data is refused, the filter being lossy),
// LZF, LZ4, zstd and Blosc (BloscLZ, LZ4, zlib, zstd, snappy). A
// required filter without one is an error "cannot write a chunk filtered
// with N (name)" wrapping ErrUnsupported.
// FilterName and Filter.DisplayName name filters for listings.
//
// To pack values, use the Datatype: AppendPackedLE turns stored elements
// into packed little-endian form (numbers little-endian, partial-precision
// integers shifted down and sign-extended as libhdf5 reads them, compound
// fields in declaration order without padding) — the form of every .raw
// view — and AppendStored turns packed elements back into the file's
// element bytes. For single values, Int64, Float64 and TrimString read an
// element; PutInt, PutUint, PutFloat and PutString store one, refusing
// values the type cannot hold. pack.go, number.go and value.go hold them.
//
// # Caches and memory
//
// A File keeps what it has parsed: object headers, sorted group links,
// fractal heap headers and global heap collections (the latter within a
// byte budget), and an LRU cache of decoded chunks shared by its datasets
// (Options.ChunkCacheBytes, 64 MiB by default). Sizes read from the file
// are checked against the file size and Options.MaxChunkBytes before
// anything is allocated, so hostile files cannot make it allocate much.
//
// # Concurrency
//
// A File and the Objects, Datasets and Attributes it returns are safe
// for concurrent use by multiple goroutines: caches are guarded by locks
// and concurrent loads of the same chunk decode it once. Large filtered
// reads decode chunks in parallel within a process-wide bound. An RW is
// not safe for concurrent use and holds at most one Tx; readers use their
// own File (RW.Snapshot) and reopen it after each commit.
//
// # Errors
//
// A structure the format does not allow is a *FormatError naming the
// file, the object path and the file offset; a valid feature h5core does
// not implement wraps ErrUnsupported. Neither ever panics: a corrupt
// object fails that object only.
package h5core
