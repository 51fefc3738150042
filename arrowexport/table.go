package arrowexport

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Table is a set of columns of equal length, rendered together by the
// whole-table views (and, with one column, by the column views).
type Table struct {
	// Columns in the order they are rendered.
	Columns []ColumnSource
	// Metadata is attached to the Arrow schema (and so to Parquet's
	// key-value metadata); table attributes go here.
	Metadata map[string]string
}

// maxUnitRows caps the rows of one record batch or row group, so that a
// contiguous (one-chunk) column does not become one huge unit;
// maxUnitBytes caps a unit's estimated bytes, so wide tables get shorter
// units (a view keeps a few rendered units in memory).
const (
	maxUnitRows  = 1 << 20
	maxUnitBytes = 32 << 20
)

// checkTable validates t and returns its row count and unit size in rows.
func checkTable(t *Table) (rows, unit int64, err error) {
	if len(t.Columns) == 0 {
		return 0, 0, fmt.Errorf("arrowexport: table has no columns")
	}
	rows = t.Columns[0].Len()
	for _, c := range t.Columns {
		if c.Len() != rows {
			return 0, 0, fmt.Errorf("arrowexport: column %q has %d rows, column %q has %d",
				c.Field().Name, c.Len(), t.Columns[0].Field().Name, rows)
		}
	}
	return rows, unitRows(t.Columns), nil
}

// unitRows chooses the rows per unit: the least common multiple of the
// columns' chunk lengths, so units are chunk-aligned for every column; or,
// when that exceeds the caps, the largest chunk length (capped). A unit
// over maxUnitBytes is split into equal parts when its length allows,
// which keeps it aligned.
func unitRows(cols []ColumnSource) int64 {
	l, biggest, rowBytes := int64(1), int64(1), int64(0)
	for _, c := range cols {
		r := max(c.ChunkRows(), 1)
		biggest = max(biggest, r)
		if l > 0 {
			l = l / gcd(l, r) * r
			if l > maxUnitRows {
				l = 0
			}
		}
		if w := fixedBits(c.Field().Type); w > 0 {
			rowBytes += (w + 7) / 8
		} else {
			rowBytes += int64(stringBound(c))
		}
	}
	if l == 0 {
		l = min(biggest, maxUnitRows)
	}
	limit := max(maxUnitBytes/max(rowBytes, 1), 1)
	if l <= limit {
		return l
	}
	for k := (l + limit - 1) / limit; k <= 64; k++ {
		if l%k == 0 {
			return l / k
		}
	}
	return limit
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// unitRange returns the rows [start, start+n) of unit i.
func unitRange(i int, unit, rows int64) (start, n int64) {
	start = int64(i) * unit
	return start, min(unit, rows-start)
}

// numUnits is the number of units of unit rows that hold rows rows.
func numUnits(rows, unit int64) int { return int((rows + unit - 1) / unit) }

// schema returns the Arrow schema of t.
func (t *Table) schema() *arrow.Schema {
	fields := make([]arrow.Field, len(t.Columns))
	for i, c := range t.Columns {
		fields[i] = c.Field()
	}
	var md *arrow.Metadata
	if len(t.Metadata) > 0 {
		m := arrow.MetadataFrom(t.Metadata)
		md = &m
	}
	return arrow.NewSchema(fields, md)
}

// readColumns reads rows [start, start+n) of every column.
func (t *Table) readColumns(start, n int64) ([]arrow.Array, error) {
	return t.readColumnsInto(start, n, nil)
}

// readColumnsInto is readColumns with column j read into bufs[j] when it
// is a BufferedSource (bufs may be nil): the arrays may share the
// buffers' memory until they are released.
func (t *Table) readColumnsInto(start, n int64, bufs [][]byte) ([]arrow.Array, error) {
	arrs := make([]arrow.Array, 0, len(t.Columns))
	for j, c := range t.Columns {
		var buf *[]byte
		if bufs != nil {
			buf = &bufs[j]
		}
		a, err := readColumn(c, start, n, buf)
		if err != nil {
			releaseAll(arrs)
			return nil, err
		}
		arrs = append(arrs, a)
	}
	return arrs, nil
}

// readColumn reads rows [start, start+n) of c, into *buf when c is a
// BufferedSource and buf is not nil.
func readColumn(c ColumnSource, start, n int64, buf *[]byte) (arrow.Array, error) {
	var (
		a   arrow.Array
		err error
	)
	if bc, ok := c.(BufferedSource); ok && buf != nil {
		a, err = bc.ReadBuffered(start, n, buf)
	} else {
		a, err = c.Read(start, n)
	}
	if err != nil {
		return nil, fmt.Errorf("column %q rows [%d,%d): %w", c.Field().Name, start, start+n, err)
	}
	if int64(a.Len()) != n {
		a.Release()
		return nil, fmt.Errorf("column %q rows [%d,%d): read %d rows", c.Field().Name, start, start+n, a.Len())
	}
	return a, nil
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}
