package arrowexport

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetLayoutVersion changes whenever the Parquet renderer's bytes
// change, so cached layouts of older renderers are not used.
const parquetLayoutVersion = "parquet-v2"

// parquetMagic starts and ends every Parquet file.
const parquetMagic = "PAR1"

// NewParquetView returns t as a Parquet file: one row group per
// chunk-aligned row range (see Table), uncompressed PLAIN pages without
// dictionary encoding, min/max statistics per row group, and the Arrow
// schema stored in the key-value metadata (so readers get categoricals
// back as dictionaries, and the fields' metadata).
//
// The bytes of a column chunk (one column of one row group) do not depend
// on where it sits in the file or on the other columns, so the file is
// assembled from column chunks rendered one at a time by fresh writers of
// that column alone, plus the footer. Finalize computes the footer and the
// column chunk sizes, and the cache keeps them; afterwards ReadAt renders
// only the column chunks it overlaps, so a reader that fetches some
// columns of some row groups (DuckDB's projection and row-group pruning)
// reads only those from the HDF5 file. A column chunk whose footer
// statistics count no nulls is rendered from the column's packed raw
// values when those are its Arrow values, skipping the missing-value scan.
//
// When every column is fixed width and ChunkStats give each row group's
// min and max and no nulls or NaNs, Finalize reads no data: same-length
// synthetic row groups holding the min and max encode to the same sizes,
// and to a footer with the real statistics (see parquetstats.go).
// Otherwise it is one data pass.
func NewParquetView(t *Table, opts Options) (View, error) {
	r, err := newParquetRenderer(t)
	if err != nil {
		return nil, err
	}
	v := &framedView{
		ext:      "parquet",
		kind:     parquetKind(r.unit),
		opts:     opts,
		estimate: r.estimate(),
		plan:     r.planFromStatsOrData,
		render:   r.render,
	}
	// the next unit is rendered when a reader asks for it: rendering it
	// sooner would read column chunks that a range query never wants, and
	// a scan (DuckDB reads column chunks on every core) has no idle core
	// to render it on
	v.units.noAhead = true
	v.units.reuse = true // renderPlain renders into buffers from the cache
	r.view = v
	v.loadCached()
	return v, nil
}

type parquetRenderer struct {
	view   *framedView
	t      *Table
	schema *arrow.Schema
	rows   int64
	unit   int64 // rows of a row group
	nunits int   // row groups; the view's units are their column chunks
	// per column of t: a schema of that column alone, and the number of
	// Parquet leaf columns it has
	colSchema []*arrow.Schema
	leaves    []int
	plain     []*plainColumn // per column: the plain form of its type, or nil

	footOnce sync.Once
	foot     *footerInfo // what the layout's footer says of each unit
}

// newParquetRenderer checks that t has a Parquet form and returns its
// renderer.
func newParquetRenderer(t *Table) (*parquetRenderer, error) {
	rows, unit, err := checkTable(t)
	if err != nil {
		return nil, err
	}
	r := &parquetRenderer{t: t, schema: parquetSchema(t.schema()), rows: rows, unit: unit, nunits: numUnits(rows, unit)}
	if _, err := pqarrow.ToParquet(r.schema, r.props(), r.arrowProps()); err != nil {
		return nil, fmt.Errorf("arrowexport: parquet schema: %w: %w", ErrUnsupported, err)
	}
	for _, f := range r.schema.Fields() {
		s := arrow.NewSchema([]arrow.Field{f}, nil)
		ps, err := pqarrow.ToParquet(s, r.props(), r.arrowProps())
		if err != nil {
			return nil, fmt.Errorf("arrowexport: parquet schema: %w: %w", ErrUnsupported, err)
		}
		if ps.NumColumns() == 0 {
			return nil, fmt.Errorf("arrowexport: parquet schema: %w: column %q has no leaf column", ErrUnsupported, f.Name)
		}
		r.colSchema = append(r.colSchema, s)
		r.leaves = append(r.leaves, ps.NumColumns())
		r.plain = append(r.plain, plainColumnOf(f.Type, ps, r.props()))
	}
	return r, nil
}

func (r *parquetRenderer) props(extra ...parquet.WriterProperty) *parquet.WriterProperties {
	return parquet.NewWriterProperties(append([]parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Uncompressed),
		parquet.WithDictionaryDefault(false),
		parquet.WithEncoding(parquet.Encodings.Plain),
		parquet.WithStats(true),
		parquet.WithMaxRowGroupLength(max(r.unit, 1)),
	}, extra...)...)
}

func (r *parquetRenderer) arrowProps() pqarrow.ArrowWriterProperties {
	return pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
}

// estimate is an upper bound of the file size for the usual types, used
// until the data pass.
func (r *parquetRenderer) estimate() int64 { return parquetEstimate(r.t, r.rows, r.nunits) }

// read returns the columns of row group i.
func (r *parquetRenderer) read(i int) ([]arrow.Array, error) {
	start, n := unitRange(i, r.unit, r.rows)
	return r.t.readColumns(start, n)
}

// write writes row groups [from, to), whose columns come from read,
// through a new writer to w.
func (r *parquetRenderer) write(w *captureSink, from, to int, read func(int) ([]arrow.Array, error)) (*pqarrow.FileWriter, error) {
	fw, err := pqarrow.NewFileWriter(r.schema, w, r.props(), r.arrowProps())
	if err != nil {
		return nil, err
	}
	if err := r.writeRowGroups(fw, from, to, read); err != nil {
		fw.Close()
		return nil, err
	}
	w.capture = true
	if err := fw.Close(); err != nil {
		return nil, err
	}
	return fw, nil
}

// writeRowGroups writes row groups [from, to), whose columns come from
// read, through fw.
func (r *parquetRenderer) writeRowGroups(fw *pqarrow.FileWriter, from, to int, read func(int) ([]arrow.Array, error)) error {
	for i := from; i < to; i++ {
		arrs, err := read(i)
		if err != nil {
			return err
		}
		if err = fw.NewRowGroupChecked(); err == nil {
			for _, a := range arrs {
				if err = writeColumnData(fw, a); err != nil {
					break
				}
			}
		}
		releaseAll(arrs)
		if err != nil {
			return fmt.Errorf("arrowexport: writing row group %d: %w", i, err)
		}
	}
	return nil
}

// plan is the data pass: it writes the whole file through a counting sink
// and keeps the footer and the row group sizes.
func (r *parquetRenderer) plan() (*framedLayout, error) {
	return r.layout(r.read)
}

// layout writes a whole file of row groups from read through a counting
// sink and returns its footer and row group sizes.
func (r *parquetRenderer) layout(read func(int) ([]arrow.Array, error)) (*framedLayout, error) {
	s := &captureSink{}
	fw, err := r.write(s, 0, r.nunits, read)
	if err != nil {
		return nil, err
	}
	foot, err := parquetFooter(s.take())
	if err != nil {
		return nil, err
	}
	if r.nunits == 0 {
		return &framedLayout{Head: []byte(parquetMagic), Foot: foot}, nil
	}
	md, err := fw.FileMetadata()
	if err != nil {
		return nil, err
	}
	return r.arranged(md, foot, s.n-int64(len(foot)))
}

// arranged returns the layout of the file whose footer is foot, which md
// decodes and which starts at end, with the column chunks arranged (see
// arrange).
func (r *parquetRenderer) arranged(md *metadata.FileMetaData, foot []byte, end int64) (*framedLayout, error) {
	// the column chunks as written: row group i's column j is chunk
	// i*ncols+j, each right after the one before
	nu := r.nunits * len(r.t.Columns)
	old, lens := make([]int64, nu), make([]int64, nu)
	at := int64(len(parquetMagic))
	var err error
	for u := range nu {
		i, j := u/len(r.t.Columns), u%len(r.t.Columns)
		if old[u], err = columnChunkStart(md, i, r.leafBase(j)); err != nil {
			return nil, err
		}
		lens[u] = r.chunkBytes(md, u)
		if old[u] != at {
			return nil, fmt.Errorf("arrowexport: parquet row group %d column %d starts at %d, not %d", i, j, old[u], at)
		}
		at += lens[u]
	}
	if at != end {
		return nil, fmt.Errorf("arrowexport: parquet footer starts at %d, not %d", end, at)
	}
	l := &framedLayout{Head: []byte(parquetMagic), Foot: foot, Units: lens}
	if order, pos, end := r.arrange(lens); order != nil {
		if l.Foot, err = r.shiftFooter(foot, old, pos); err != nil {
			return nil, err
		}
		l.Units = make([]int64, nu)
		for f, u := range order {
			next := end
			if f+1 < nu {
				next = pos[order[f+1]]
			}
			l.Units[f] = next - pos[u]
		}
	}
	return l, nil
}

// leafBase is the index of column j's first Parquet leaf column.
func (r *parquetRenderer) leafBase(j int) int {
	n := 0
	for _, l := range r.leaves[:j] {
		n += l
	}
	return n
}

// parquetFooter returns the footer at the end of b: the file metadata, its
// length and the closing magic.
func parquetFooter(b []byte) ([]byte, error) {
	if len(b) < 8 || string(b[len(b)-4:]) != parquetMagic {
		return nil, fmt.Errorf("arrowexport: parquet writer output ends without magic")
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:])) + 8
	if n > len(b) {
		return nil, fmt.Errorf("arrowexport: parquet footer length %d exceeds output", n)
	}
	return bytes.Clone(b[len(b)-n:]), nil
}

// columnChunkStart is the offset of the first page of leaf column k of
// row group i.
func columnChunkStart(md *metadata.FileMetaData, i, k int) (int64, error) {
	cc, err := md.RowGroup(i).ColumnChunk(k)
	if err != nil {
		return 0, err
	}
	off := cc.DataPageOffset()
	if cc.HasDictionaryPage() {
		off = min(off, cc.DictionaryPageOffset())
	}
	return off, nil
}

// render returns unit f, the f-th column chunk in file order, as a fresh
// writer of that column alone writes it after the magic, padded with zero
// bytes to the unit's length (see arrange).
func (r *parquetRenderer) render(f int) ([]byte, error) {
	info := r.footer()
	if info == nil {
		return nil, fmt.Errorf("arrowexport: parquet footer does not decode")
	}
	u := info.chunk[f]
	i, j := u/len(r.t.Columns), u%len(r.t.Columns)
	r.view.mu.Lock()
	size := int(r.view.lay.Units[f])
	r.view.mu.Unlock()
	if c, ok := rawArrow(r.t.Columns[j]); ok && r.plain[j] != nil && info.dense[u] {
		return r.renderPlain(r.plain[j], c, i, j, int(info.bytes[u]), size)
	}
	a, buf, err := r.column(i, j, info.dense[u])
	if err != nil {
		return nil, err
	}
	defer func() {
		// the writer has copied the values by now
		a.Release()
		if buf != nil {
			denseBufs.Put(buf)
		}
	}()
	s := &captureSink{capture: true, buf: make([]byte, 0, r.sizeHint(f))}
	fw, err := pqarrow.NewFileWriter(r.colSchema[j], s, r.props(), r.arrowProps())
	if err != nil {
		return nil, err
	}
	if err = fw.NewRowGroupChecked(); err == nil {
		err = writeColumnData(fw, a)
	}
	if cerr := fw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("arrowexport: writing row group %d column %q: %w", i, r.colSchema[j].Field(0).Name, err)
	}
	b := s.take()
	foot, err := parquetFooter(b)
	if err != nil {
		return nil, err
	}
	body := b[len(parquetMagic) : len(b)-len(foot)]
	if int64(len(body)) != info.bytes[u] || len(body) > size {
		return nil, fmt.Errorf("arrowexport: parquet row group %d column %d rendered as %d bytes, the footer has %d", i, j, len(body), info.bytes[u])
	}
	n := len(body)
	if cap(body) < size {
		return append(body, make([]byte, size-n)...), nil
	}
	body = body[:size]
	clear(body[n:])
	return body, nil
}

// renderPlain renders column j of row group i, which has no nulls and
// whose plain form is p, from c's raw values into a buffer of the view's
// unit cache: bytes long, padded with zero bytes to size.
func (r *parquetRenderer) renderPlain(p *plainColumn, c arrowRawSource, i, j, bytes, size int) ([]byte, error) {
	start, n := unitRange(i, r.unit, r.rows)
	out := r.view.units.buffer(max(size, p.chunkBytes(int(n))))
	out = out[:cap(out)]
	m, err := p.render(out, int(n), func(at, k int, dst []byte) error {
		if err := c.ReadRaw(start+int64(at), int64(k), dst); err != nil {
			return fmt.Errorf("column %q rows [%d,%d): %w", r.t.Columns[j].Field().Name, start+int64(at), start+int64(at+k), err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if m != bytes || m > size {
		return nil, fmt.Errorf("arrowexport: parquet row group %d column %d rendered as %d bytes, the footer has %d", i, j, m, bytes)
	}
	clear(out[m:size])
	return out[:size], nil
}

// column returns column j of row group i: from its packed raw values when
// they are its Arrow values and the column chunk has no nulls (dense),
// else through Read. buf, if not nil, holds the values and goes back to
// denseBufs once the array is no longer used.
func (r *parquetRenderer) column(i, j int, dense bool) (arrow.Array, *[]byte, error) {
	start, n := unitRange(i, r.unit, r.rows)
	c := r.t.Columns[j]
	if dense {
		if a, buf, ok, err := denseArray(c, start, n); ok || err != nil {
			return a, buf, err
		}
	}
	a, err := readColumn(c, start, n, nil)
	return a, nil, err
}

// arrowRawSource is a RawSource whose packed raw elements are, byte for
// byte, the values of the Arrow arrays Read returns, where no row is
// missing (full-width integers and IEEE floats).
type arrowRawSource interface {
	RawSource
	RawIsArrow() bool
}

// denseArray returns rows [start, start+n) of c, which has no nulls
// there, as an Arrow array over its packed raw values held in buf, a
// buffer of denseBufs; ok is false when c is not a fixed-width numeric
// column whose raw values are its Arrow values.
func denseArray(c ColumnSource, start, n int64) (a arrow.Array, pb *[]byte, ok bool, err error) {
	rs, ok := rawArrow(c)
	if !ok {
		return nil, nil, false, nil
	}
	t := c.Field().Type
	size := int(n) * rs.ElemSize()
	pb, _ = denseBufs.Get().(*[]byte)
	if pb == nil || cap(*pb) < size {
		b := make([]byte, size)
		pb = &b
	}
	buf := (*pb)[:size]
	if err := rs.ReadRaw(start, n, buf); err != nil {
		denseBufs.Put(pb)
		return nil, nil, true, fmt.Errorf("column %q rows [%d,%d): %w", c.Field().Name, start, start+n, err)
	}
	d := array.NewData(t, int(n), []*memory.Buffer{nil, memory.NewBufferBytes(buf)}, nil, 0, 0)
	defer d.Release()
	return array.MakeFromData(d), pb, true, nil
}

// rawArrow returns c as an arrowRawSource when it is a fixed-width
// numeric column whose packed raw values are its Arrow values.
func rawArrow(c ColumnSource) (arrowRawSource, bool) {
	rs, isRaw := c.(arrowRawSource)
	t := c.Field().Type
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64:
	default:
		return nil, false
	}
	if !isRaw || !rs.RawIsArrow() || rs.ElemSize() != t.(arrow.FixedWidthDataType).BitWidth()/8 {
		return nil, false
	}
	return rs, true
}

// denseBufs recycles the raw buffers of dense column chunks, so that a
// scan does not allocate (and fault in) a fresh unit-sized buffer for each.
var denseBufs sync.Pool // of *[]byte

// sizeHint is the size of a fresh writer's output for unit f: the
// column chunk, its padding, and a footer no bigger than the file's.
func (r *parquetRenderer) sizeHint(f int) int {
	r.view.mu.Lock()
	defer r.view.mu.Unlock()
	l := r.view.lay
	return len(parquetMagic) + int(l.Units[f]) + len(l.Foot)
}

// writeColumnData writes column a of the current row group in the form
// the Parquet writer takes (see parquetArray).
func writeColumnData(fw *pqarrow.FileWriter, a arrow.Array) error {
	pa, err := parquetArray(a)
	if err != nil {
		return err
	}
	defer pa.Release()
	return fw.WriteColumnData(pa)
}
