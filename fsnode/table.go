package fsnode

import (
	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// rootTableStem names the whole-table files of a table that is the root
// group: _table.csv, _table.arrow, _table.parquet at the mount root.
const rootTableStem = "_table"

// tableDir is the directory of table tb, shown from object o below
// ancestors up: its columns' files, the table's other links as usual and,
// for the root table, the whole-table files.
func (t *Tree) tableDir(o *h5core.Object, tb *table.Table, up *ancestry) *dir {
	d := &dir{attrs: o.Path}
	me := up.within(o, true)
	d.list = func() ([]entry, error) {
		es := []entry{t.metaEntry(o, tb, nil)}
		cols := map[string]bool{}
		for _, c := range tb.Columns {
			cols[c.Path] = true
			es = append(es, t.columnEntries(tb, c)...)
		}
		t.track(tb, "dir/", "", es)
		if o.Path == "/" {
			whole := t.wholeTableEntries(rootTableStem, tb)
			t.track(tb, "up/", rootTableStem, whole)
			es = append(es, whole...)
		}
		if o.Kind() != h5core.KindGroup {
			return es, nil
		}
		links, err := o.Links()
		if err != nil {
			return nil, err
		}
		for _, l := range links {
			if !cols[o.Child(l.Name)] {
				es = append(es, t.linkEntries(o, l, me)...)
			}
		}
		return es, nil
	}
	return d
}

// columnEntries returns the files of one column: <col>.csv, <col>.arrow
// and, for fixed-width columns, <col>.raw.
func (t *Tree) columnEntries(tb *table.Table, c *table.Column) []entry {
	name := EscapeName(c.Name)
	key := tb.Path + "\x00" + c.Name
	src := arrowexport.TableColumn(c)
	one := &arrowexport.Table{Columns: []arrowexport.ColumnSource{src}}
	es := []entry{
		t.viewEntry(name+".csv", c.Path, func() (View, error) { return arrowexport.NewCSVView(one, t.viewOptions(key)) }),
		t.viewEntry(name+".arrow", c.Path, func() (View, error) { return arrowexport.NewArrowView(one, t.viewOptions(key)) }),
	}
	if c.ElemSize > 0 {
		raw := t.viewEntry(name+".raw", c.Path, func() (View, error) {
			a, err := arrowexport.ColumnArray(src)
			if err != nil {
				return nil, err
			}
			return arrowexport.NewRawView(a)
		})
		raw.file.hooks = t.rawHooks(tb.Path, c.Name, c.ElemSize)
		es = append(es, raw)
	}
	return es
}

// wholeTableEntries returns <stem>.csv, <stem>.arrow and <stem>.parquet:
// the whole table, columns in view order.
func (t *Tree) wholeTableEntries(stem string, tb *table.Table) []entry {
	all := arrowexport.FromTable(tb)
	opt := t.viewOptions(tb.Path)
	csv := t.viewEntry(stem+".csv", tb.Path, func() (View, error) { return arrowexport.NewCSVView(all, opt) })
	csv.file.hooks = t.csvHooks(tb.Path)
	return []entry{
		csv,
		t.viewEntry(stem+".arrow", tb.Path, func() (View, error) { return arrowexport.NewArrowView(all, opt) }),
		t.viewEntry(stem+".parquet", tb.Path, func() (View, error) { return arrowexport.NewParquetView(all, opt) }),
	}
}

// viewEntry is a file whose content is the view newView makes; attrs is
// the HDF5 path of the object whose attributes it carries.
func (t *Tree) viewEntry(name, attrs string, newView func() (View, error)) entry {
	return entry{name: name, file: &file{path: t.f.Name() + ":" + attrs + " " + name, attrs: attrs, newView: newView}}
}

// viewOptions are the renderer options for the views of the object at
// HDF5 path key: the shared sizing cache, keyed to the file's identity.
func (t *Tree) viewOptions(key string) arrowexport.Options {
	o := arrowexport.Options{Cache: t.opt.Cache, Logf: t.opt.Log.Printf}
	if id := t.currentFileID(); id != nil {
		o.Key = id.Key(key)
	}
	return o
}
