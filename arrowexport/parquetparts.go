package arrowexport

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ParquetParts is a table's Parquet form cut into several files of whole
// row groups, the layout that Spark, Trino, DuckDB and Polars read as one
// dataset (h5fs export). Its row groups are those of the table's Parquet
// view (NewParquetView): aligned to the HDF5 chunks of every column, with
// the same schema, encodings and statistics computed from the data; the
// column chunks are zstd-compressed, as the files are meant to be copied.
type ParquetParts struct {
	r   *parquetRenderer
	per int // row groups per part
}

// NewParquetParts cuts t's Parquet form into parts of partRows rows,
// rounded up to whole row groups (at least one); partRows <= 0 chooses
// parts of about partBytes uncompressed bytes by the view's size estimate.
func NewParquetParts(t *Table, partRows, partBytes int64) (*ParquetParts, error) {
	r, err := newParquetRenderer(t)
	if err != nil {
		return nil, err
	}
	p := &ParquetParts{r: r, per: 1}
	switch {
	case partRows > 0:
		p.per = int(min((partRows+r.unit-1)/r.unit, int64(max(r.nunits, 1))))
	case r.nunits > 0:
		perGroup := max(r.estimate()/int64(r.nunits), 1)
		p.per = int(min(max(partBytes/perGroup, 1), int64(r.nunits)))
	}
	return p, nil
}

// Len is the number of parts: at least one, so that an empty table is
// still a file that gives its schema.
func (p *ParquetParts) Len() int { return max(numUnits(int64(p.r.nunits), int64(p.per)), 1) }

// Rows returns the rows [start, start+n) of the table that part i holds.
func (p *ParquetParts) Rows(i int) (start, n int64) {
	start = min(int64(i*p.per)*p.r.unit, p.r.rows)
	end := min(int64((i+1)*p.per)*p.r.unit, p.r.rows)
	return start, end - start
}

// WriteTo writes part i as a whole Parquet file to w.
func (p *ParquetParts) WriteTo(i int, w io.Writer) error {
	if i < 0 || i >= p.Len() {
		return fmt.Errorf("arrowexport: parquet part %d of %d", i, p.Len())
	}
	r := p.r
	fw, err := pqarrow.NewFileWriter(r.schema, w, r.props(parquet.WithCompression(compress.Codecs.Zstd)), r.arrowProps())
	if err != nil {
		return err
	}
	from := i * p.per
	if err := r.writeRowGroups(fw, from, min(from+p.per, r.nunits), r.read); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}
