package arrowexport

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
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
// Row group bytes do not depend on where the row group sits in the file,
// so the file is assembled from row groups rendered one at a time by fresh
// writers, plus the footer. Finalize computes the footer and the row group
// sizes, and the cache keeps them; afterwards ReadAt renders only the row
// groups it overlaps. When every column is fixed width and ChunkStats give
// each row group's min and max and no nulls or NaNs, Finalize reads no
// data: same-length synthetic row groups holding the min and max encode to
// the same sizes, and to a footer with the real statistics (see
// parquetstats.go). Otherwise it is one data pass.
func NewParquetView(t *Table, opts Options) (View, error) {
	rows, unit, err := checkTable(t)
	if err != nil {
		return nil, err
	}
	r := &parquetRenderer{t: t, schema: parquetSchema(t.schema()), rows: rows, unit: unit, nunits: numUnits(rows, unit)}
	if _, err := pqarrow.ToParquet(r.schema, r.props(), r.arrowProps()); err != nil {
		return nil, fmt.Errorf("arrowexport: parquet schema: %w: %w", ErrUnsupported, err)
	}
	v := &framedView{
		ext:      "parquet",
		kind:     kindOf(parquetLayoutVersion, arrowGoVersion(), fmt.Sprint(unit)),
		opts:     opts,
		estimate: r.estimate(),
		plan:     r.planFromStatsOrData,
		render:   r.render,
	}
	r.view = v
	v.loadCached()
	return v, nil
}

type parquetRenderer struct {
	view   *framedView
	t      *Table
	schema *arrow.Schema
	rows   int64
	unit   int64
	nunits int
}

func (r *parquetRenderer) props() *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Uncompressed),
		parquet.WithDictionaryDefault(false),
		parquet.WithEncoding(parquet.Encodings.Plain),
		parquet.WithStats(true),
		parquet.WithMaxRowGroupLength(max(r.unit, 1)),
	)
}

func (r *parquetRenderer) arrowProps() pqarrow.ArrowWriterProperties {
	return pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
}

// estimate is an upper bound of the file size for the usual types, used
// until the data pass.
func (r *parquetRenderer) estimate() int64 {
	perRow := int64(0)
	for _, c := range r.t.Columns {
		if w := fixedBits(c.Field().Type); w > 0 && c.Field().Type.ID() != arrow.DICTIONARY {
			if arrow.IsInteger(c.Field().Type.ID()) {
				w = max(w, 32) // Parquet stores narrower integers as INT32
			}
			perRow += (w+7)/8 + 1
		} else {
			perRow += int64(stringBound(c)) + 5
		}
	}
	perGroup := int64(len(r.t.Columns)) * 512
	return 8192 + 2048*int64(len(r.t.Columns)) + int64(r.nunits)*perGroup + r.rows*perRow
}

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
	for i := from; i < to; i++ {
		arrs, err := read(i)
		if err != nil {
			fw.Close()
			return nil, err
		}
		if err = fw.NewRowGroupChecked(); err == nil {
			for _, a := range arrs {
				var pa arrow.Array
				if pa, err = parquetArray(a); err != nil {
					break
				}
				err = fw.WriteColumnData(pa)
				pa.Release()
				if err != nil {
					break
				}
			}
		}
		releaseAll(arrs)
		if err != nil {
			fw.Close()
			return nil, fmt.Errorf("arrowexport: writing row group %d: %w", i, err)
		}
	}
	w.capture = true
	if err := fw.Close(); err != nil {
		return nil, err
	}
	return fw, nil
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
	tail := s.take()
	foot, err := parquetFooter(tail)
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
	starts := make([]int64, r.nunits+1)
	for i := range r.nunits {
		if starts[i], err = rowGroupStart(md, i); err != nil {
			return nil, err
		}
	}
	starts[r.nunits] = s.n - int64(len(foot))
	if starts[0] != int64(len(parquetMagic)) {
		return nil, fmt.Errorf("arrowexport: parquet row group 0 starts at %d", starts[0])
	}
	l := &framedLayout{Head: []byte(parquetMagic), Foot: foot, Units: make([]int64, r.nunits)}
	for i := range l.Units {
		l.Units[i] = starts[i+1] - starts[i]
	}
	return l, nil
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

// rowGroupStart is the offset of row group i's first page.
func rowGroupStart(md *metadata.FileMetaData, i int) (int64, error) {
	rg := md.RowGroup(i)
	start := int64(-1)
	for j := 0; j < rg.NumColumns(); j++ {
		cc, err := rg.ColumnChunk(j)
		if err != nil {
			return 0, err
		}
		off := cc.DataPageOffset()
		if cc.HasDictionaryPage() {
			off = min(off, cc.DictionaryPageOffset())
		}
		if start < 0 || off < start {
			start = off
		}
	}
	return start, nil
}

// render returns row group i as a fresh writer writes it after the magic.
func (r *parquetRenderer) render(i int) ([]byte, error) {
	s := &captureSink{capture: true, buf: make([]byte, 0, r.sizeHint(i))}
	if _, err := r.write(s, i, i+1, r.read); err != nil {
		return nil, err
	}
	b := s.take()
	foot, err := parquetFooter(b)
	if err != nil {
		return nil, err
	}
	return b[len(parquetMagic) : len(b)-len(foot)], nil
}

// sizeHint is the size of a fresh writer's output for row group i: the
// row group and a footer no bigger than the file's.
func (r *parquetRenderer) sizeHint(i int) int {
	l := r.view.lay
	return len(parquetMagic) + int(l.Units[i]) + len(l.Foot)
}
