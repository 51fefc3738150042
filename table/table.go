package table

import (
	"fmt"
	"sort"
	"strings"

	"github.com/h5fs/h5fs/h5core"
)

// Table kinds (Table.Kind).
const (
	KindHEP001   = "hep001"
	KindPyTables = "pytables"
	KindPandas   = "pandas"
	KindH5TB     = "h5tb"
	KindAnnData  = "anndata"
)

// Table is one table of a file.
type Table struct {
	// Path is the table's HDF5 path: the group of a HEP001 or anndata
	// table ("/" for the root group), the dataset of a row table.
	Path  string
	Kind  string // one of the Kind* constants
	NRows int64
	// Version is the VERSION attribute (HEP001, PyTables, H5TB).
	Version string
	// Columns in view order: the row index columns (INDEX_COLUMNS,
	// outermost first, then _index) first, then the rest in column-order.
	Columns []*Column
	// ColumnOrder is the logical column order: the column-order attribute
	// when present and valid, else creation (or name) order.
	ColumnOrder []string
	// IndexColumns names the row index columns, outermost first.
	IndexColumns []string
	// Index is the _index attribute (anndata, HEP001), or the pandas index.
	Index string
	// Attrs holds the string attributes of the table group (TITLE,
	// description, units_vocabulary, ...), less CLASS, VERSION and _index.
	Attrs map[string]string
	// Categories lists the categories datasets of a HEP001 table.
	Categories []*Categories
	// SearchIndexes lists every dataset with a KIND attribute under
	// SEARCH_INDEXES.
	SearchIndexes []*SearchIndex
	// Findings are the problems found when the table was opened.
	Findings []Finding
	// Dropped holds, after a mutation (Append, Truncate, Update), one
	// error for each search index it deleted because it could not keep
	// the index consistent (§11.2), naming the index and why.
	Dropped []error

	f    *h5core.File
	mode Mode
}

// File returns the file the table was read from.
func (t *Table) File() *h5core.File { return t.f }

// Column returns the column called name, or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Open opens the table at groupPath: a HEP001 or anndata table group, or
// the dataset of a PyTables, pandas or H5TB table. In Strict mode a table
// with any error finding is refused.
func Open(f *h5core.File, groupPath string, mode Mode) (*Table, error) {
	o, err := f.Open(groupPath)
	if err != nil {
		return nil, err
	}
	as, err := readAttrs(o)
	if err != nil {
		return nil, err
	}
	kind := tableKind(f, o, as)
	if kind == "" {
		return nil, fmt.Errorf("%s: %s is not a table", f.Name(), o.Path)
	}
	t, err := openKind(f, o, as, kind, mode)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// openKind opens a table of a known kind. On failure the returned table
// is not usable but carries the findings made so far.
func openKind(f *h5core.File, o *h5core.Object, as attrSet, kind string, mode Mode) (*Table, error) {
	t := &Table{Path: o.Path, Kind: kind, f: f, mode: mode, Attrs: map[string]string{}}
	var err error
	switch kind {
	case KindHEP001:
		err = t.openHEP001(o, as)
	case KindAnnData:
		err = t.openAnnData(o, as)
	default:
		err = t.openRowTable(o, as)
	}
	if err != nil {
		return t, err
	}
	t.orderColumns()
	if mode == Strict && HasErrors(t.Findings) {
		n := 0
		for _, x := range t.Findings {
			if x.Severity == SevError {
				n++
			}
		}
		return t, fmt.Errorf("%s: %s: refused in strict mode: %d errors", f.Name(), t.Path, n)
	}
	return t, nil
}

// tableKind identifies a table by its attributes ("" for none): a HEP001
// group by CLASS=COLUMN_TABLE only (§7.1), a row table by CLASS=TABLE on a
// compound dataset, an anndata dataframe by encoding-type.
func tableKind(f *h5core.File, o *h5core.Object, as attrSet) string {
	class, _ := as.str("CLASS")
	switch o.Kind() {
	case h5core.KindGroup:
		if class == "COLUMN_TABLE" {
			return KindHEP001
		}
		if et, _ := as.str("encoding-type"); et == "dataframe" {
			return KindAnnData
		}
	case h5core.KindDataset:
		if class != "TABLE" {
			return ""
		}
		if isPandasTable(f, o) {
			return KindPandas
		}
		if _, ok := as["NROWS"]; ok {
			return KindPyTables
		}
		if root, err := f.Root(); err == nil {
			if ra, err := readAttrs(root); err == nil && ra["PYTABLES_FORMAT_VERSION"] != nil {
				return KindPyTables
			}
		}
		return KindH5TB
	}
	return ""
}

// orderColumns puts the columns in view order: index levels first, then
// ColumnOrder, then any left.
func (t *Table) orderColumns() {
	rank := map[string]int{}
	for i, n := range t.ColumnOrder {
		if _, dup := rank[n]; !dup {
			rank[n] = i
		}
	}
	levels := map[string]int{}
	for i, n := range t.IndexColumns {
		if _, dup := levels[n]; !dup {
			levels[n] = i
		}
	}
	for _, c := range t.Columns {
		c.IndexLevel = -1
		if l, ok := levels[c.Name]; ok {
			c.IndexLevel = l
		}
	}
	pos := func(c *Column) (int, int) {
		if c.IndexLevel >= 0 {
			return 0, c.IndexLevel
		}
		if r, ok := rank[c.Name]; ok {
			return 1, r
		}
		return 2, 0
	}
	sort.SliceStable(t.Columns, func(i, j int) bool {
		gi, ri := pos(t.Columns[i])
		gj, rj := pos(t.Columns[j])
		if gi != gj {
			return gi < gj
		}
		return ri < rj
	})
}

// childPath joins a group path and a link name.
func childPath(dir, name string) string {
	return strings.TrimSuffix(dir, "/") + "/" + name
}
