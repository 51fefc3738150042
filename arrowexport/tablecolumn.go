package arrowexport

import (
	"sync"

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

// TableColumn returns a column of package table as a ColumnSource and a
// BufferedSource; it is also a RawSource when the column is fixed width,
// and a ChunkStatsSource backed by the column's CHUNK_MINMAX index when
// that index is structurally sound (table's SoundMinMax: the index is
// trusted without recomputing it from the column, which h5fs check
// --verify-indexes does).
func TableColumn(c *table.Column) ColumnSource {
	tc := tableColumn{c: c, mm: &minMaxIndex{}, field: c.Field()}
	if c.ElemSize > 0 {
		return rawTableColumn{tc}
	}
	return tc
}

type tableColumn struct {
	c     *table.Column
	mm    *minMaxIndex
	field arrow.Field // c.Field(), which views ask for often, made once
}

// minMaxIndex holds a column's sound CHUNK_MINMAX entries, loaded once.
type minMaxIndex struct {
	once    sync.Once
	entries []table.MinMaxEntry
}

// ChunkStats returns chunk i's entry of the sound CHUNK_MINMAX index.
func (t tableColumn) ChunkStats(i int64) (ChunkStats, bool) {
	t.mm.once.Do(func() {
		if e, ok := t.c.SoundMinMax(); ok {
			t.mm.entries = e
		}
	})
	if i < 0 || i >= int64(len(t.mm.entries)) {
		return ChunkStats{}, false
	}
	e := t.mm.entries[i]
	return ChunkStats{Nulls: int64(e.FillCount), NaNs: int64(e.NaNCount), Min: e.Min, Max: e.Max}, true
}

func (t tableColumn) Field() arrow.Field { return t.field }
func (t tableColumn) Len() int64         { return t.c.Table().NRows }
func (t tableColumn) ChunkRows() int64   { return max(t.c.ChunkRows, 1) }
func (t tableColumn) Read(start, n int64) (arrow.Array, error) {
	return t.c.Read(start, n)
}
func (t tableColumn) ReadBuffered(start, n int64, buf *[]byte) (arrow.Array, error) {
	return t.c.ReadBuffered(start, n, buf)
}

// allFill makes a table column a fillSource: never-written rows are
// sized from one row.
func (t tableColumn) allFill(start, n int64) (bool, error) { return t.c.AllFill(start, n) }

type rawTableColumn struct{ tableColumn }

func (t rawTableColumn) ElemSize() int { return t.c.ElemSize }
func (t rawTableColumn) ReadRaw(start, n int64, dst []byte) error {
	return t.c.ReadRaw(start, n, dst)
}

// RawIsArrow reports whether the raw elements are the Arrow values.
func (t rawTableColumn) RawIsArrow() bool { return t.c.RawIsArrow() }
