package arrowexport

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/h5fs/h5fs/table"
)

// FromTable returns a table of package table (HEP001, anndata, row tables)
// for the whole-table views: its columns in view order, and its string
// attributes as schema metadata.
func FromTable(t *table.Table) *Table {
	out := &Table{Metadata: t.Attrs}
	for _, c := range t.Columns {
		out.Columns = append(out.Columns, TableColumn(c))
	}
	return out
}

// TableColumn returns a column of package table as a ColumnSource; it is
// also a RawSource when the column is fixed width.
func TableColumn(c *table.Column) ColumnSource {
	tc := tableColumn{c}
	if c.ElemSize > 0 {
		return rawTableColumn{tc}
	}
	return tc
}

type tableColumn struct{ c *table.Column }

func (t tableColumn) Field() arrow.Field { return t.c.Field() }
func (t tableColumn) Len() int64         { return t.c.Table().NRows }
func (t tableColumn) ChunkRows() int64   { return max(t.c.ChunkRows, 1) }
func (t tableColumn) Read(start, n int64) (arrow.Array, error) {
	return t.c.Read(start, n)
}

type rawTableColumn struct{ tableColumn }

func (t rawTableColumn) ElemSize() int { return t.c.ElemSize }
func (t rawTableColumn) ReadRaw(start, n int64, dst []byte) error {
	return t.c.ReadRaw(start, n, dst)
}
