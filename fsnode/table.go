package fsnode

import (
	"fmt"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// RootTableStem names the whole-table files of a table that is the root
// group: _table.csv, _table.arrow, _table.parquet at the mount root.
const RootTableStem = "_table"

// tableDir is the directory of table tb, shown from object o below
// ancestors up (nil for the tree's root): its columns' files, the table's
// other links as usual and, for the root table, the whole-table files.
func (t *Tree) tableDir(o *h5core.Object, tb *table.Table, up *ancestry) *dir {
	d := &dir{attrs: o}
	if o.Kind() == h5core.KindGroup {
		d.group = keyOf(o)
	}
	me := up.within(o, true)
	d.list = func() ([]entry, error) {
		var links []h5core.Link
		if o.Kind() == h5core.KindGroup {
			var err error
			if links, err = o.Links(); err != nil {
				return nil, err
			}
		}
		es := []entry{t.metaEntry(o, tb, nil)}
		cols := map[string]bool{}
		for _, c := range tb.Columns {
			cols[c.Path] = true
			es = append(es, t.columnEntries(o, tb, c, t.columnObject(o, links, c))...)
		}
		t.track(tb, "dir/", "", es)
		if up == nil {
			whole := t.wholeTableEntries(RootTableStem, o, tb)
			t.track(tb, "up/", RootTableStem, whole)
			es = append(es, whole...)
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

// columnObject returns the dataset that stores column c of the table at
// object o with links links: the link whose path is the column's, or o
// itself for a column of a row table (or when no link matches).
func (t *Tree) columnObject(o *h5core.Object, links []h5core.Link, c *table.Column) *h5core.Object {
	for _, l := range links {
		if o.Child(l.Name) == c.Path {
			if co, err := t.openLink(o, l); err == nil {
				return co
			}
		}
	}
	return o
}

// columnEntries returns the files of column c, stored in dataset co, of
// table tb at object o: <col>.csv, <col>.arrow and, for fixed-width
// columns, <col>.raw.
func (t *Tree) columnEntries(o *h5core.Object, tb *table.Table, c *table.Column, co *h5core.Object) []entry {
	name := EscapeName(c.Name)
	key := objectKey(o) + "\x00" + c.Name
	src := arrowexport.TableColumn(c)
	one := &arrowexport.Table{Columns: []arrowexport.ColumnSource{src}}
	es := []entry{
		t.viewEntry(name+".csv", co, func() (View, error) { return arrowexport.NewCSVView(one, t.viewOptions(key)) }),
		t.viewEntry(name+".arrow", co, func() (View, error) { return arrowexport.NewArrowView(one, t.viewOptions(key)) }),
	}
	if c.ElemSize > 0 {
		raw := t.viewEntry(name+".raw", co, func() (View, error) {
			a, err := arrowexport.ColumnArray(src)
			if err != nil {
				return nil, err
			}
			return arrowexport.NewRawView(a)
		})
		raw.file.hooks = t.rawHooks(tb.Path, c.Name, c.ElemSize)
		es = append(es, raw)
	}
	return named(es, c.Name)
}

// wholeTableEntries returns <stem>.csv, <stem>.arrow and <stem>.parquet:
// the whole table tb at object o, columns in view order.
func (t *Tree) wholeTableEntries(stem string, o *h5core.Object, tb *table.Table) []entry {
	all := arrowexport.FromTable(tb)
	opt := t.viewOptions(objectKey(o))
	csv := t.viewEntry(stem+".csv", o, func() (View, error) { return arrowexport.NewCSVView(all, opt) })
	csv.file.hooks = t.csvHooks(tb.Path, csv.file)
	parquet := t.viewEntry(stem+".parquet", o, func() (View, error) { return arrowexport.NewParquetView(all, opt) })
	parquet.file.sizeForStat = func(limit int64) (int64, bool, error) { return arrowexport.ParquetStatSize(all, opt, limit) }
	return []entry{
		csv,
		t.viewEntry(stem+".arrow", o, func() (View, error) { return arrowexport.NewArrowView(all, opt) }),
		parquet,
	}
}

// viewEntry is a file whose content is the view newView makes; o is the
// object whose attributes it carries.
func (t *Tree) viewEntry(name string, o *h5core.Object, newView func() (View, error)) entry {
	return entry{name: name, file: &file{path: t.f.Name() + ":" + o.Path + " " + name, attrs: o, newView: newView}}
}

// objectKey identifies object o for the renderers' sizing cache: by its
// header's address, as paths are ambiguous when names hold '/' (and hard
// links give one object several).
func objectKey(o *h5core.Object) string {
	return fmt.Sprintf("@%d", o.Addr)
}

// viewOptions are the renderer options for the views of the object with
// key key (objectKey): the shared sizing cache, keyed to the file's
// identity.
func (t *Tree) viewOptions(key string) arrowexport.Options {
	o := arrowexport.Options{Cache: t.opt.Cache, Logf: t.opt.Log.Printf}
	if id := t.currentFileID(); id != nil {
		o.Key = id.Key(key)
	}
	return o
}
