// Package arrowexport renders HDF5 data as ordinary files: raw packed
// little-endian values, NumPy .npy, CSV, Arrow IPC (Feather v2) and
// Parquet.
//
// Every renderer is a View: a virtual file with a size and a random-access
// ReadAt that renders only the part of the file it is asked for, never the
// whole file. Renderers are deterministic, so any byte range rendered again
// later is identical, and the size a View reports once it is Exact never
// changes.
//
// Sizes that follow from metadata (raw, npy, Arrow for fixed-width columns
// whose null counts are known) are exact at once. The others need one data
// pass, done by Finalize; until then Size is an upper-bound estimate (never
// 0). The result of that pass is kept in a Cache keyed to the identity of
// the HDF5 file, so later mounts are instant.
//
// Inputs are small interfaces (ColumnSource, RawSource, ArraySource) so that
// table columns, sparse COO columns and ordinary datasets all render through
// the same code; a column that is also a BufferedSource is read into buffers
// the renderer reuses. Adapters: FromTable and TableColumn (package table),
// DatasetArray and DatasetTable (h5core datasets), ColumnArray (fixed-width
// columns).
//
// A FUSE node uses a view like this:
//
//	id, _ := arrowexport.StatFileID(h5path)
//	cache, _ := arrowexport.NewCache("") // $XDG_CACHE_HOME/h5fs
//	opts := arrowexport.Options{Cache: cache, Key: id.Key(tbl.Path)}
//	v, err := arrowexport.NewParquetView(arrowexport.FromTable(tbl), opts)
//	// Getattr: v.Size(), with a zero attribute timeout while !v.Exact()
//	// Open:    v.Finalize() (a data pass at most once per file version)
//	// Read:    v.ReadAt(buf, off)
//
// Single-column views take a one-column Table; their Key should name the
// column (id.Key(column.Path)) so that cache entries do not collide.
// Views are safe for concurrent use; ColumnSource and ArraySource
// implementations must be too.
package arrowexport
