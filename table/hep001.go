package table

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/h5fs/h5fs/h5core"
)

// Reserved names of §13.2 that no column may take.
var reservedNames = map[string]bool{
	"CLASS": true, "VERSION": true, "NROWS": true, "TITLE": true, "INDEX_COLUMNS": true,
	"SEARCH_INDEX_LIST": true, "CATEGORIES": true, "SEARCH_INDEXES": true, "KIND": true,
	"VALUES": true, "valid_min": true, "valid_max": true, "CHUNK_MINMAX": true,
	"SORTED_ROWS": true, "BITMAP": true, "CHUNK_BLOOM": true,
}

// parseVersion reads a MAJOR.MINOR[.PATCH] version numerically (§7.2).
func parseVersion(v string) (major, minor int, err error) {
	parts := strings.Split(strings.TrimSpace(v), ".")
	if len(parts) < 1 || len(parts) > 3 {
		return 0, 0, fmt.Errorf("VERSION %q is not MAJOR.MINOR", v)
	}
	nums := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("VERSION %q is not MAJOR.MINOR", v)
		}
		nums[i] = n
	}
	return nums[0], nums[1], nil
}

// hepGroup is what a HEP001 table group holds, sorted out from its links.
type hepGroup struct {
	cols     []*h5core.Dataset
	created  map[string]int64 // creation order of the column links, when tracked
	catGroup *h5core.Object
	siGroup  *h5core.Object
}

// openHEP001 reads a HEP001 table group.
func (t *Table) openHEP001(g *h5core.Object, as attrSet) error {
	var fs findings
	defer func() { t.Findings = append(t.Findings, fs...) }()
	path := g.Path
	if a := as["CLASS"]; a.Type.Class != h5core.ClassString || a.Type.Size != 13 || a.Type.StrPad != h5core.NullTerm ||
		a.Type.CharSet != h5core.ASCII || a.Shape != nil {
		fs.errorf(path, "§7.1", "CLASS must be a scalar 13-byte NUL-terminated ASCII string, not %s", a.Type)
	}
	if v, ok := as.str("VERSION"); !ok {
		fs.errorf(path, "§7.2", "no VERSION attribute")
	} else {
		if a := as["VERSION"]; a.Type.Class != h5core.ClassString || a.Type.CharSet != h5core.ASCII || a.Shape != nil {
			fs.errorf(path, "§7.2", "VERSION must be a scalar fixed-length ASCII string, not %s", a.Type)
		}
		t.Version = v
		major, _, err := parseVersion(v)
		switch {
		case err != nil:
			fs.errorf(path, "§7.2", "%v", err)
		case major > 1:
			return fmt.Errorf("%s: %s: HEP001 VERSION %s is not supported: major version %d is newer than 1, the highest this reader implements (§7.2)",
				t.f.Name(), path, v, major)
		case major < 1:
			fs.errorf(path, "§7.2", "VERSION %s: major version %d predates HEP001 1.0", v, major)
		}
	}
	nrows, err := readNROWS(&fs, path, as)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", t.f.Name(), path, err)
	}
	t.NRows = nrows
	t.Attrs = as.stringAttrs("CLASS", "VERSION", "_index")

	hg, err := t.sortChildren(&fs, g)
	if err != nil {
		return err
	}
	if err := t.checkExtents(hg.cols); err != nil {
		fs.errorf(path, "§12", "%v", err)
		return fmt.Errorf("%s: %s: invalid table: %w", t.f.Name(), path, err)
	}
	cats := t.readCategories(&fs, hg.catGroup)
	sis, byAddr := t.readSearchIndexes(&fs, hg.siGroup)
	t.SearchIndexes = sis
	byColAddr := map[uint64]*Column{}
	for _, ds := range hg.cols {
		c, err := t.newHEP001Column(&fs, ds, cats, byAddr)
		if err != nil {
			fs.errorf(ds.Path, "HDF5", "column not readable: %v", err)
			continue
		}
		t.Columns = append(t.Columns, c)
		byColAddr[ds.Addr] = c
	}
	t.linkCategories(&fs, cats)
	for _, si := range t.SearchIndexes {
		if si.Column == nil && knownKind(si.Kind) {
			fs.warnf(si.Path, "§10.2", "search index is not referenced by any column's SEARCH_INDEX_LIST")
		}
	}
	t.readColumnOrder(&fs, path, as, hg)
	t.readIndexColumns(&fs, path, as, byColAddr)
	return nil
}

// readNROWS reads the row count (§7.3); its absence is fatal: the row
// count is never inferred from extents.
func readNROWS(fs *findings, path string, as attrSet) (int64, error) {
	a := as["NROWS"]
	if a == nil {
		fs.errorf(path, "§7.3", "no NROWS attribute: the row count is unknown")
		return 0, fmt.Errorf("no NROWS attribute (§7.3): the row count is unknown")
	}
	if a.NumElements() != 1 || a.Type.Class != h5core.ClassFixedPoint {
		return 0, fmt.Errorf("NROWS is %s with %d elements, not a scalar uint64 (§7.3)", a.Type, a.NumElements())
	}
	if a.Type.Size != 8 || a.Type.Signed || a.Shape != nil {
		fs.errorf(path, "§7.3", "NROWS should be a scalar uint64, not %s", a.Type)
	}
	v, err := a.Value()
	if err != nil {
		return 0, err
	}
	if l, ok := v.([]any); ok {
		v = l[0]
	}
	i, u, neg, ok := integer(v)
	if !ok || neg || u > 1<<62 {
		return 0, fmt.Errorf("NROWS value %v is not a valid row count (§7.3)", v)
	}
	return i, nil
}

// sortChildren sorts a table group's links into columns and the two
// reserved subgroups, recording anything else (§7.6, §8.1).
func (t *Table) sortChildren(fs *findings, g *h5core.Object) (*hepGroup, error) {
	links, err := g.Links()
	if err != nil {
		return nil, err
	}
	hg := &hepGroup{created: map[string]int64{}}
	for _, l := range links {
		p := childPath(g.Path, l.Name)
		if l.Type != h5core.LinkHard {
			fs.errorf(p, "§7.6", "%s link inside a table group is not part of the table", l.Type)
			continue
		}
		o, err := g.OpenLink(l)
		if err != nil {
			fs.errorf(p, "HDF5", "cannot open: %v", err)
			continue
		}
		switch o.Kind() {
		case h5core.KindGroup:
			switch l.Name {
			case "CATEGORIES":
				hg.catGroup = o
			case "SEARCH_INDEXES":
				hg.siGroup = o
			default:
				fs.errorf(p, "§7.6", "group inside a table group is not part of the table")
			}
		case h5core.KindDataset:
			ds, err := o.Dataset()
			if err != nil {
				fs.errorf(p, "HDF5", "dataset not readable: %v", err)
				continue
			}
			if len(ds.Shape()) != 1 {
				fs.errorf(p, "§7.6", "dataset of shape %v inside a table group is not a column (rank 1)", ds.Shape())
				continue
			}
			if reservedNames[l.Name] {
				fs.errorf(p, "§13.1", "column name %q is a reserved name", l.Name)
			} else if strings.HasPrefix(l.Name, "_") {
				fs.warnf(p, "§8.1", "column names should not begin with an underscore")
			}
			hg.cols = append(hg.cols, ds)
			if l.CreationID >= 0 {
				hg.created[l.Name] = l.CreationID
			}
		default:
			fs.errorf(p, "§7.6", "%s inside a table group is not part of the table", o.Kind())
		}
	}
	return hg, nil
}

// checkExtents enforces §12: equal column extents, all at least NROWS.
func (t *Table) checkExtents(cols []*h5core.Dataset) error {
	var ext []string
	bad := false
	for i, ds := range cols {
		e := ds.Shape()[0]
		ext = append(ext, fmt.Sprintf("%s=%d", ds.Path[strings.LastIndex(ds.Path, "/")+1:], e))
		if e != cols[0].Shape()[0] && i > 0 {
			bad = true
		}
		if int64(e) < t.NRows {
			return fmt.Errorf("column %s has extent %d < NROWS=%d", ds.Path, e, t.NRows)
		}
	}
	if bad {
		return fmt.Errorf("column extents differ (%s)", strings.Join(ext, ", "))
	}
	return nil
}

// readColumnOrder sets ColumnOrder from column-order (§7.4), checking it
// names every column exactly once (§12).
func (t *Table) readColumnOrder(fs *findings, path string, as attrSet, hg *hepGroup) {
	have := map[string]bool{}
	for _, c := range t.Columns {
		have[c.Name] = true
	}
	order, present, err := as.strings("column-order")
	if err != nil {
		fs.errorf(path, "§7.4", "column-order: %v", err)
	}
	seen := map[string]bool{}
	for _, n := range order {
		switch {
		case seen[n]:
			fs.errorf(path, "§12", "column-order lists %q more than once", n)
		case !have[n]:
			fs.errorf(path, "§12", "column-order lists %q, which is not a column dataset", n)
		default:
			t.ColumnOrder = append(t.ColumnOrder, n)
		}
		seen[n] = true
	}
	var rest []*Column
	for _, c := range t.Columns {
		if !seen[c.Name] {
			if present {
				fs.errorf(path, "§12", "column-order does not list column %q", c.Name)
			}
			rest = append(rest, c)
		}
	}
	if !present && len(t.Columns) > 1 {
		fs.warnf(path, "§7.4", "no column-order attribute: columns in creation order")
	}
	sort.SliceStable(rest, func(i, j int) bool {
		ci, iok := hg.created[rest[i].Name]
		cj, jok := hg.created[rest[j].Name]
		if iok && jok {
			return ci < cj
		}
		return false
	})
	for _, c := range rest {
		t.ColumnOrder = append(t.ColumnOrder, c.Name)
	}
}

// readIndexColumns resolves INDEX_COLUMNS and _index (§7.4, §9, §12).
func (t *Table) readIndexColumns(fs *findings, path string, as attrSet, byAddr map[uint64]*Column) {
	addrs, _ := t.refAttr(fs, path, as, "INDEX_COLUMNS")
	for i, a := range addrs {
		c := byAddr[a]
		switch {
		case a == 0:
			fs.errorf(path, "§7.4", "INDEX_COLUMNS[%d] is a null reference", i)
		case c == nil:
			fs.errorf(path, "§12", "INDEX_COLUMNS[%d] does not reference a column of this table", i)
		default:
			t.IndexColumns = append(t.IndexColumns, c.Name)
		}
	}
	idx, ok := as.str("_index")
	if !ok {
		return
	}
	t.Index = idx
	if t.Column(idx) == nil {
		fs.errorf(path, "§7.4", "_index names %q, which is not a column", idx)
		return
	}
	if len(addrs) > 0 && (len(t.IndexColumns) == 0 || t.IndexColumns[0] != idx) {
		fs.errorf(path, "§12", "_index %q differs from the column INDEX_COLUMNS[0] references", idx)
	}
	for _, n := range t.IndexColumns {
		if n == idx {
			return
		}
	}
	t.IndexColumns = append(t.IndexColumns, idx)
}
