package table

import (
	"fmt"
	"sort"
)

// Cells are new values for a run of one column's cells: rows from Row
// on of Columns[Column], as Encode and EncodeRaw give them (stored
// elements, or staged values: vlen.go).
type Cells struct {
	Column int
	Row    int64
	Values []byte
}

// Update rewrites cells of a HEP001 table in place (§11.5): the values
// written, then every search index of a changed column brought up to
// date — CHUNK_MINMAX and CHUNK_BLOOM entries of the chunks holding a
// changed cell recomputed, SORTED_ROWS and BITMAP rebuilt. NROWS stays;
// the commit point is tx's own commit (its journal makes the whole
// update atomic). Runs later in cells win where they overlap earlier
// ones. Like Append it changes nothing when it refuses, and the table is
// stale afterwards.
func (t *Table) Update(tx Tx, cells []Cells) error {
	if err := t.Writable(); err != nil {
		return err
	}
	spans := map[*Column][]rowSpan{}
	for _, cl := range cells {
		if cl.Column < 0 || cl.Column >= len(t.Columns) {
			return fmt.Errorf("%s: no column %d (the table has %d)", t.Path, cl.Column, len(t.Columns))
		}
		c := t.Columns[cl.Column]
		k, err := c.rowsOf(cl.Values)
		if err != nil {
			return err
		}
		if cl.Row < 0 || cl.Row+k > t.NRows {
			return fmt.Errorf("%s: rows [%d, %d) are not all inside the table's %d rows", c.Path, cl.Row, cl.Row+k, t.NRows)
		}
		if k > 0 {
			spans[c] = append(spans[c], rowSpan{cl.Row, cl.Row + k})
		}
	}
	if len(spans) == 0 {
		return nil
	}
	for _, s := range spans {
		sort.Slice(s, func(a, b int) bool { return s[a].lo < s[b].lo })
	}
	cells, err := t.storeCells(tx, cells)
	if err != nil {
		return err
	}
	// the rows after the update: the stored ones, the cells laid over them
	updated := func(c *Column, lo, hi int64) ([]byte, error) {
		raw, err := c.src.read(lo, hi-lo)
		if err != nil {
			return nil, err
		}
		size := int64(c.Type.Size)
		for _, cl := range cells {
			if t.Columns[cl.Column] != c {
				continue
			}
			a, b := max(cl.Row, lo), min(cl.Row+int64(len(cl.Values))/size, hi)
			if a < b {
				copy(raw[(a-lo)*size:], cl.Values[(a-cl.Row)*size:(b-cl.Row)*size])
			}
		}
		return raw, nil
	}
	m := &mutation{t: t, n1: t.NRows, from: t.NRows, spans: spans, rows: updated}
	for _, si := range t.SearchIndexes {
		if err := m.plan(si); err != nil {
			return err
		}
	}
	for _, cl := range cells {
		c := t.Columns[cl.Column]
		if err := tx.WriteAt(c.Path, cl.Values, cl.Row*int64(c.Type.Size)); err != nil {
			return err
		}
	}
	return m.commit(tx)
}
