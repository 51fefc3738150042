package table

import (
	"errors"
	"fmt"
	"io"

	"github.com/h5fs/h5fs/h5core"
)

// Logical kinds of columns (Column.Logical).
const (
	LogicalInt         = "int"
	LogicalFloat       = "float"
	LogicalBool        = "bool" // bool8 (uint8 0/1 with fill 2) or a 1-byte bitfield of a row table
	LogicalString      = "string"
	LogicalEnum        = "enum"
	LogicalCategorical = "categorical"
	LogicalCompound    = "compound"
	LogicalOpaque      = "opaque"
	LogicalArray       = "array"
	LogicalTimestamp   = "timestamp" // pandas datetime64[ns] columns
	LogicalOther       = "other"     // references, bitfields, time, vlen sequences: shown raw or as text
)

// Column is one column of a table.
type Column struct {
	Name     string
	Path     string           // HDF5 path of the dataset that stores the column
	Type     *h5core.Datatype // element type as stored
	HDF5Type string           // Type.String()
	// ElemSize is the byte size of one raw (packed little-endian) element;
	// 0 when the type is not fixed-width (e.g. vlen strings): no .raw view.
	ElemSize int
	// ChunkRows is the natural batch length: the HDF5 chunk length, or
	// NROWS for contiguous and compact columns.
	ChunkRows int64
	Logical   string // one of the Logical* kinds

	Units, UnitsVocabulary, Description string
	Attrs                               map[string]string // string attributes of the column's dataset

	// Nullable is true when rows can be missing: the column has a fill
	// value (HEP001 §8.5) or a mask (anndata).
	Nullable bool
	// Fill is the stored fill value bytes (file byte order); nil if the
	// dataset defines none. FillText is the fill as text.
	Fill     []byte
	FillText string
	// ValidMin and ValidMax are the §8.5 value range attributes as text
	// ("" when absent).
	ValidMin, ValidMax string
	// vmin and vmax are the decoded bounds (nil when absent).
	vmin, vmax any

	// Categories backs a categorical column (§8.7), nil otherwise.
	Categories *Categories
	// IndexLevel is the column's position among the table's row index
	// columns (0 = outermost), -1 when it is not one.
	IndexLevel int
	// SearchIndexes are the indexes the column's SEARCH_INDEX_LIST names.
	SearchIndexes []*SearchIndex

	t     *Table
	src   source
	mask  *source // anndata nullable columns: true = missing
	miss  missRule
	fillS string // string columns: the fill as text
	fillF bool   // the fill is a NaN
	conv  *converter
}

// source is where a column's elements live: a whole rank-1 dataset, or
// one field (or one array element of a field) of a row table's records.
type source struct {
	ds   *h5core.Dataset
	off  int // byte offset of the element within a stored record
	size int // stored element size
	rec  int // stored record size
}

func wholeSource(ds *h5core.Dataset) source {
	return source{ds: ds, size: ds.Type.Size, rec: ds.Type.Size}
}

// read returns the stored bytes of rows [start, start+n).
func (s *source) read(start, n int64) ([]byte, error) {
	return s.readInto(nil, start, n)
}

// readInto returns the stored bytes of rows [start, start+n), read into
// buf when it has the capacity.
func (s *source) readInto(buf []byte, start, n int64) ([]byte, error) {
	var out []byte
	if want := n * int64(s.size); buf != nil && int64(cap(buf)) >= want {
		out = buf[:want]
	} else {
		out = make([]byte, want)
	}
	if n == 0 {
		return out, nil
	}
	if s.off == 0 && s.size == s.rec {
		return out, s.readAt(out, start*int64(s.rec))
	}
	recs := make([]byte, n*int64(s.rec))
	if err := s.readAt(recs, start*int64(s.rec)); err != nil {
		return nil, err
	}
	for i := int64(0); i < n; i++ {
		copy(out[i*int64(s.size):], recs[i*int64(s.rec)+int64(s.off):][:s.size])
	}
	return out, nil
}

func (s *source) readAt(p []byte, off int64) error {
	k, err := s.ds.ReadAt(p, off)
	if k == len(p) && (err == nil || errors.Is(err, io.EOF)) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: short read: %d of %d bytes at %d", s.ds.Path, k, len(p), off)
	}
	return err
}

// rows returns the first-dimension extent of the source dataset.
func (s *source) rows() int64 {
	if sh := s.ds.Shape(); len(sh) > 0 {
		return int64(sh[0])
	}
	return 0
}

// isChunked reports a chunked source dataset.
func (s *source) isChunked() bool { return s.ds.Layout() == "chunked" }

// Table returns the table the column belongs to.
func (c *Column) Table() *Table { return c.t }

// checkRange validates a row range against NROWS.
func (c *Column) checkRange(start, n int64) error {
	if start < 0 || n < 0 || start > c.t.NRows || n > c.t.NRows-start {
		return fmt.Errorf("%s: rows [%d, %d) outside [0, %d)", c.Path, start, start+n, c.t.NRows)
	}
	return nil
}

// RawIsArrow reports whether the packed elements ReadRaw gives are, byte
// for byte, the values of the Arrow array Read gives for rows that are not
// missing: full-width integers and IEEE floats, not categoricals, enums,
// bools, partial-precision integers or other float formats.
func (c *Column) RawIsArrow() bool { return c.ElemSize > 0 && c.conv.kind == cvPrim }

// ReadRaw writes rows [start, start+n) into dst as packed little-endian
// elements of the column's type, ElemSize bytes each (missing rows keep
// their stored bytes). dst must hold at least n*ElemSize bytes.
func (c *Column) ReadRaw(start, n int64, dst []byte) error {
	if c.ElemSize == 0 {
		return fmt.Errorf("%s: %s elements are not fixed-width: no raw form", c.Path, c.HDF5Type)
	}
	if err := c.checkRange(start, n); err != nil {
		return err
	}
	want := n * int64(c.ElemSize)
	if int64(len(dst)) < want {
		return fmt.Errorf("%s: raw buffer of %d bytes for %d rows of %d bytes", c.Path, len(dst), n, c.ElemSize)
	}
	if n == 0 {
		return nil
	}
	dst = dst[:want]
	s := &c.src
	if s.off == 0 && s.size == s.rec && c.ElemSize == s.size && c.Type.IsPackedLE() {
		return s.readAt(dst, start*int64(s.rec))
	}
	stored, err := s.read(start, n)
	if err != nil {
		return err
	}
	if c.ElemSize == s.size && c.Type.IsPackedLE() {
		copy(dst, stored)
		return nil
	}
	c.Type.AppendPackedLE(dst[:0], stored, int(n))
	return nil
}
