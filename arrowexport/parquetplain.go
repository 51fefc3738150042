package arrowexport

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// A column chunk of a fixed-width numeric column without nulls, whose
// packed raw values are its Parquet PLAIN values (32- and 64-bit integers
// and floats), is rendered here rather than through the Parquet writer:
// its bytes are a run of V1 data pages, each a Thrift page header (sizes,
// value count, encodings and the page's min/max statistics), the
// definition levels (one RLE run of ones, when the column is optional)
// and the values. The values are read straight into the unit's buffer
// and the statistics computed from them there, so a column chunk costs a
// read and one pass over its values. The pages split where the writer
// splits them (after the first batch of WriteBatchSize values that fills
// DataPageSize), and the bytes are the writer's bytes, byte for byte
// (TestParquetPlainMatchesWriter).

// plainColumn is how a qualifying column's chunks are laid out.
type plainColumn struct {
	width    int  // bytes of a value
	float    bool // IEEE float (else integer)
	unsigned bool // unsigned sort order: no legacy min/max fields
	optional bool // definition levels precede the values
	perPage  int  // values of a full page
}

// plainColumnOf returns the plain form of column c of Parquet schema ps
// (whose only leaf it is), or nil when its chunks go through the writer.
func plainColumnOf(t arrow.DataType, ps *schema.Schema, props *parquet.WriterProperties) *plainColumn {
	if ps.NumColumns() != 1 || props.DataPageVersion() != parquet.DataPageV1 {
		return nil
	}
	col := ps.Column(0)
	if col.MaxRepetitionLevel() != 0 || col.MaxDefinitionLevel() > 1 {
		return nil
	}
	p := &plainColumn{optional: col.MaxDefinitionLevel() == 1, unsigned: col.SortOrder() == schema.SortUNSIGNED}
	var phys parquet.Type
	switch t.ID() {
	case arrow.INT32, arrow.UINT32:
		p.width, phys = 4, parquet.Types.Int32
	case arrow.INT64, arrow.UINT64:
		p.width, phys = 8, parquet.Types.Int64
	case arrow.FLOAT32:
		p.width, p.float, phys = 4, true, parquet.Types.Float
	case arrow.FLOAT64:
		p.width, p.float, phys = 8, true, parquet.Types.Double
	default:
		return nil
	}
	unsigned := t.ID() == arrow.UINT32 || t.ID() == arrow.UINT64
	if col.PhysicalType() != phys || p.unsigned != unsigned || (col.SortOrder() != schema.SortSIGNED && !p.unsigned) {
		return nil
	}
	batch, page := props.WriteBatchSize(), props.DataPageSize()
	if batch <= 0 || page <= 0 {
		return nil
	}
	perBatch := batch * int64(p.width)
	p.perPage = int((page + perBatch - 1) / perBatch * batch)
	return p
}

// pages is the number of data pages of a column chunk of n values.
func (p *plainColumn) pages(n int) int { return (n + p.perPage - 1) / p.perPage }

// defLevelBytes is the length of a page's definition levels for n values.
func (p *plainColumn) defLevelBytes(n int) int {
	if !p.optional {
		return 0
	}
	return 4 + uvarintLen(uint64(n)<<1) + 1
}

// chunkBytes is the length of a column chunk of n values, all pages with
// min/max statistics.
func (p *plainColumn) chunkBytes(n int) int {
	total := 0
	for at := 0; at < n; at += p.perPage {
		k := min(p.perPage, n-at)
		total += p.headerBytes(k, true) + p.defLevelBytes(k) + k*p.width
	}
	return total
}

// headerBytes is the length of the page header of a page of n values.
func (p *plainColumn) headerBytes(n int, minMax bool) int {
	var b [128]byte
	var v [8]byte
	if !minMax {
		return len(p.appendHeader(b[:0], n, nil, nil))
	}
	return len(p.appendHeader(b[:0], n, v[:p.width], v[:p.width]))
}

// render writes the column chunk of n values into out, which holds at
// least chunkBytes(n), and returns its length: less than chunkBytes(n)
// when a page has no statistics. read(at, k, dst) reads values [at, at+k)
// into dst.
func (p *plainColumn) render(out []byte, n int, read func(at, k int, dst []byte) error) (int, error) {
	var lo, hi [8]byte
	pos := 0
	for at := 0; at < n; at += p.perPage {
		k := min(p.perPage, n-at)
		hdr := p.headerBytes(k, true)
		def := p.defLevelBytes(k)
		vals := pos + hdr + def
		if vals+k*p.width > len(out) {
			return 0, fmt.Errorf("arrowexport: parquet page of %d values overruns its column chunk", k)
		}
		dst := out[vals : vals+k*p.width]
		if err := read(at, k, dst); err != nil {
			return 0, err
		}
		l, h, ok := p.minMax(dst)
		var hd []byte
		if ok {
			binary.LittleEndian.PutUint64(lo[:], l)
			binary.LittleEndian.PutUint64(hi[:], h)
			hd = p.appendHeader(out[pos:pos], k, lo[:p.width], hi[:p.width])
		} else {
			// no statistics (every value NaN): a shorter header
			hd = p.appendHeader(out[pos:pos], k, nil, nil)
			copy(out[pos+len(hd)+def:], dst)
			hdr = len(hd)
		}
		if len(hd) != hdr {
			return 0, fmt.Errorf("arrowexport: parquet page header of %d bytes, expected %d", len(hd), hdr)
		}
		if p.optional {
			d := out[pos+hdr : pos+hdr+def]
			binary.LittleEndian.PutUint32(d, uint32(def-4))
			e := binary.AppendUvarint(d[4:4], uint64(k)<<1)
			d[4+len(e)] = 1
		}
		pos += hdr + def + k*p.width
	}
	return pos, nil
}

// appendHeader appends the Thrift compact encoding of the PageHeader of
// a PLAIN data page of n values, with statistics lo and hi (nil: none).
func (p *plainColumn) appendHeader(b []byte, n int, lo, hi []byte) []byte {
	size := int64(p.defLevelBytes(n) + n*p.width)
	const (
		i32, i64, bin, str = 5, 6, 8, 12
	)
	field := func(b []byte, delta, typ byte) []byte { return append(b, delta<<4|typ) }
	zz := func(b []byte, v int64) []byte { return binary.AppendUvarint(b, uint64(v<<1)^uint64(v>>63)) }
	binField := func(b []byte, delta byte, v []byte) []byte {
		b = field(b, delta, bin)
		b = binary.AppendUvarint(b, uint64(len(v)))
		return append(b, v...)
	}
	b = zz(field(b, 1, i32), 0) // type: DATA_PAGE
	b = zz(field(b, 1, i32), size)
	b = zz(field(b, 1, i32), size)
	b = field(b, 2, str) // 5: data_page_header
	b = zz(field(b, 1, i32), int64(n))
	b = zz(field(b, 1, i32), 0) // encoding: PLAIN
	b = zz(field(b, 1, i32), 3) // definition levels: RLE
	b = zz(field(b, 1, i32), 3) // repetition levels: RLE
	b = field(b, 1, str)        // 5: statistics
	last := byte(0)
	if lo != nil && !p.unsigned {
		b = binField(b, 1, hi) // 1: max (legacy, signed orders only)
		b = binField(b, 1, lo) // 2: min
		last = 2
	}
	b = zz(field(b, 3-last, i64), 0) // 3: null_count
	if lo != nil {
		b = binField(b, 2, hi) // 5: max_value
		b = binField(b, 1, lo) // 6: min_value
	}
	return append(b, 0, 0, 0) // ends statistics, data_page_header, PageHeader
}

// minMax returns the least and greatest of the values in v, as the
// Parquet statistics encode them (little-endian, in the low bytes); ok is
// false when there are none (every value NaN).
func (p *plainColumn) minMax(v []byte) (l, h uint64, ok bool) {
	switch {
	case p.width == 8 && p.float:
		a, b := floatMinMax64(v)
		if a > b {
			return 0, 0, false
		}
		// zero is -0 as a minimum and +0 as a maximum
		if a == 0 {
			a = math.Copysign(0, -1)
		}
		if b == 0 {
			b = 0
		}
		l, h = math.Float64bits(a), math.Float64bits(b)
	case p.float:
		a, b := float32(math.Inf(1)), float32(math.Inf(-1))
		for i := 0; i+4 <= len(v); i += 4 {
			x := math.Float32frombits(binary.LittleEndian.Uint32(v[i:]))
			if x < a {
				a = x
			}
			if x > b {
				b = x
			}
		}
		if a > b {
			return 0, 0, false
		}
		if a == 0 {
			a = float32(math.Copysign(0, -1))
		}
		if b == 0 {
			b = 0
		}
		l, h = uint64(math.Float32bits(a)), uint64(math.Float32bits(b))
	case p.width == 8 && p.unsigned:
		a, b := uint64(math.MaxUint64), uint64(0)
		for i := 0; i+8 <= len(v); i += 8 {
			x := binary.LittleEndian.Uint64(v[i:])
			a, b = min(a, x), max(b, x)
		}
		l, h = a, b
	case p.width == 8:
		a, b := int64(math.MaxInt64), int64(math.MinInt64)
		for i := 0; i+8 <= len(v); i += 8 {
			x := int64(binary.LittleEndian.Uint64(v[i:]))
			a, b = min(a, x), max(b, x)
		}
		l, h = uint64(a), uint64(b)
	case p.unsigned:
		a, b := uint32(math.MaxUint32), uint32(0)
		for i := 0; i+4 <= len(v); i += 4 {
			x := binary.LittleEndian.Uint32(v[i:])
			a, b = min(a, x), max(b, x)
		}
		l, h = uint64(a), uint64(b)
	default:
		a, b := int32(math.MaxInt32), int32(math.MinInt32)
		for i := 0; i+4 <= len(v); i += 4 {
			x := int32(binary.LittleEndian.Uint32(v[i:]))
			a, b = min(a, x), max(b, x)
		}
		l, h = uint64(uint32(a)), uint64(uint32(b))
	}
	return l, h, true
}

// uvarintLen is the length of the unsigned varint encoding of v.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// allPlain reports whether every column of the table has a plain form.
func (r *parquetRenderer) allPlain() bool {
	for _, p := range r.plain {
		if p == nil {
			return false
		}
	}
	return true
}

// plainLayout is the layout of a table of plain columns whose row
// groups have min and max mm and no nulls or NaNs, computed without
// writing their values: the writer writes row groups of at most two rows
// ([min, max]), whose footer already holds the statistics of the real
// ones, and the entries that depend on the row count (values, sizes,
// page counts, offsets) are set to those of the real row groups, whose
// column chunks are chunkBytes long (every page has statistics, as no
// value is NaN). TestParquetPlainLayout checks the footer against the
// writer's own.
func (r *parquetRenderer) plainLayout(mm [][]minMax) (*framedLayout, error) {
	s := &captureSink{}
	if _, err := r.write(s, 0, r.nunits, r.syntheticRows(mm, 2)); err != nil {
		return nil, err
	}
	foot, err := parquetFooter(s.take())
	if err != nil {
		return nil, err
	}
	if r.nunits == 0 {
		return &framedLayout{Head: []byte(parquetMagic), Foot: foot}, nil
	}
	md, err := metadata.NewFileMetaData(foot[:len(foot)-8], nil)
	if err != nil {
		return nil, err
	}
	if len(md.RowGroups) != r.nunits {
		return nil, fmt.Errorf("arrowexport: parquet writer wrote %d row groups, not %d", len(md.RowGroups), r.nunits)
	}
	at := int64(len(parquetMagic))
	md.NumRows = r.rows
	for i, rg := range md.RowGroups {
		_, n := unitRange(i, r.unit, r.rows)
		if len(rg.Columns) != len(r.plain) || rg.FileOffset == nil || rg.TotalCompressedSize == nil {
			return nil, fmt.Errorf("arrowexport: parquet row group %d: unexpected metadata layout", i)
		}
		rg.NumRows, rg.TotalByteSize, *rg.FileOffset, *rg.TotalCompressedSize = n, 0, at, 0
		for j, cc := range rg.Columns {
			m, p := cc.MetaData, r.plain[j]
			if m == nil || len(m.EncodingStats) != 1 || m.DictionaryPageOffset != nil {
				return nil, fmt.Errorf("arrowexport: parquet row group %d column %d: unexpected metadata layout", i, j)
			}
			size := int64(p.chunkBytes(int(n)))
			m.NumValues, m.TotalUncompressedSize, m.TotalCompressedSize = n, size, size
			m.EncodingStats[0].Count = int32(p.pages(int(n)))
			cc.FileOffset, m.DataPageOffset = at, at
			rg.TotalByteSize += size
			*rg.TotalCompressedSize += size
			at += size
		}
	}
	if foot, err = encodeFooter(md); err != nil {
		return nil, err
	}
	return r.arranged(md, foot, at)
}
