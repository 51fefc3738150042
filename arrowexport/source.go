package arrowexport

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// ColumnSource is one column of a table: Len rows of an Arrow type.
type ColumnSource interface {
	// Field is the column's Arrow field: name, logical type (dictionary
	// for categoricals), nullability and metadata.
	Field() arrow.Field
	// Len is the number of rows.
	Len() int64
	// ChunkRows is the number of rows per storage chunk (> 0): the unit
	// renderers align record batches, row groups and offset tables to.
	ChunkRows() int64
	// Read returns rows [start, start+n), with nulls for missing values.
	Read(start, n int64) (arrow.Array, error)
}

// RawSource is implemented by columns of fixed-width elements, whose values
// can be read as packed little-endian bytes.
type RawSource interface {
	// ElemSize is the size of one packed element in bytes (> 0).
	ElemSize() int
	// ReadRaw fills dst (n*ElemSize bytes) with rows [start, start+n).
	ReadRaw(start, n int64, dst []byte) error
}

// BufferedSource is implemented by columns that can read into a caller's
// buffer, so that a renderer reading batch after batch reuses one.
type BufferedSource interface {
	// ReadBuffered is Read with the values read into *buf, which it
	// replaces with a larger buffer when it is too short. The array may
	// share *buf's memory, which must not be reused until the array is
	// released.
	ReadBuffered(start, n int64, buf *[]byte) (arrow.Array, error)
}

// ChunkStats is what a sound per-chunk index (HEP001 CHUNK_MINMAX) tells
// about one chunk of a column without reading it.
type ChunkStats struct {
	// Nulls is the number of missing rows of the chunk (fill_count).
	Nulls int64
	// NaNs is the number of NaN values of the chunk (nan_count).
	NaNs int64
	// Min and Max are the least and greatest non-missing values, as
	// int64, uint64, float64 or bool; nil when not known.
	Min, Max any
}

// ChunkStatsSource is implemented by columns that know ChunkStats of their
// chunks; ok is false when chunk i has no entry in a sound index.
type ChunkStatsSource interface {
	ChunkStats(i int64) (s ChunkStats, ok bool)
}

// ArraySource is an N-dimensional array of fixed-width elements, such as an
// HDF5 dataset.
type ArraySource interface {
	// Shape is the array's dimensions, slowest first (empty for a scalar).
	Shape() []int64
	// Dtype is the NumPy array-protocol type string of one packed
	// little-endian element: "<f8", "|u1", "|S10", or a list form such as
	// "[('x', '<f4'), ('y', '<f4')]" for compounds.
	Dtype() string
	// ElemSize is the size of one packed element in bytes (> 0).
	ElemSize() int
	// ReadAt reads the packed little-endian elements in row-major order as
	// one byte array of product(Shape)*ElemSize bytes.
	ReadAt(p []byte, off int64) (int, error)
}
