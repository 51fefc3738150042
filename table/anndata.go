package table

import (
	"fmt"

	"github.com/h5fs/h5fs/h5core"
)

// openAnnData reads an anndata dataframe group (encoding-type
// "dataframe"): one dataset per column, categoricals as codes/categories
// groups (code -1 = missing), nullable integers and booleans as
// values/mask groups, _index naming the row-label dataset.
func (t *Table) openAnnData(g *h5core.Object, as attrSet) error {
	var fs findings
	defer func() { t.Findings = append(t.Findings, fs...) }()
	t.Version, _ = as.str("encoding-version")
	t.Attrs = as.stringAttrs("_index", "column-order")
	links, err := g.Links()
	if err != nil {
		return err
	}
	t.NRows = -1
	for _, l := range links {
		if l.Type != h5core.LinkHard {
			continue
		}
		o, err := g.OpenLink(l)
		if err != nil {
			fs.errorf(childPath(g.Path, l.Name), "HDF5", "cannot open: %v", err)
			continue
		}
		c, err := t.annColumn(o, l.Name)
		if err != nil {
			fs.errorf(childPath(g.Path, l.Name), "anndata", "not a column: %v", err)
			continue
		}
		if c == nil {
			continue
		}
		rows := c.src.rows()
		if t.NRows >= 0 && rows != t.NRows {
			return fmt.Errorf("%s: %s: anndata columns of %d and %d rows", t.f.Name(), g.Path, t.NRows, rows)
		}
		t.NRows = rows
		t.Columns = append(t.Columns, c)
	}
	t.NRows = max(t.NRows, 0)
	for _, c := range t.Columns {
		if !c.src.isChunked() {
			c.ChunkRows = t.NRows
		}
	}
	if idx, ok := as.str("_index"); ok && t.Column(idx) != nil {
		t.Index, t.IndexColumns = idx, []string{idx}
	}
	order, _, _ := as.strings("column-order")
	for _, n := range order {
		if t.Column(n) != nil {
			t.ColumnOrder = append(t.ColumnOrder, n)
		} else {
			fs.warnf(g.Path, "anndata", "column-order names %q, which is not a column", n)
		}
	}
	return nil
}

// annColumn makes a column of one child of an anndata dataframe; nil for
// children that are not columns.
func (t *Table) annColumn(o *h5core.Object, name string) (*Column, error) {
	if o.Kind() == h5core.KindDataset {
		ds, err := o.Dataset()
		if err != nil || len(ds.Shape()) != 1 {
			return nil, err
		}
		c := t.baseColumn(ds, wholeSource(ds))
		asBool := isH5pyBool(ds.Type)
		c.Logical = logicalKind(ds.Type, asBool, false)
		c.conv, err = newConverter(ds.Type, asBool, nil, nil)
		return c, err
	}
	as, err := readAttrs(o)
	if err != nil {
		return nil, err
	}
	et, _ := as.str("encoding-type")
	open := func(n string) (*h5core.Dataset, error) {
		x, err := o.File().Open(o.Child(n))
		if err != nil {
			return nil, err
		}
		return x.Dataset()
	}
	switch et {
	case "categorical":
		codes, err := open("codes")
		if err != nil {
			return nil, err
		}
		labels, err := open("categories")
		if err != nil {
			return nil, err
		}
		k := newCategories(t.f, labels)
		k.Ordered, k.OrderedSet, _ = as.boolAttr("ordered")
		c := t.baseColumn(codes, wholeSource(codes))
		c.Name, c.Categories, c.Logical = name, k, LogicalCategorical
		c.Nullable, c.miss = true, missNegative
		t.Categories = append(t.Categories, k)
		c.conv, err = newConverter(codes.Type, false, k, nil)
		return c, err
	case "nullable-integer", "nullable-boolean":
		vals, err := open("values")
		if err != nil {
			return nil, err
		}
		mask, err := open("mask")
		if err != nil {
			return nil, err
		}
		c := t.baseColumn(vals, wholeSource(vals))
		ms := wholeSource(mask)
		asBool := et == "nullable-boolean" || isH5pyBool(vals.Type)
		c.Name, c.mask, c.Nullable = name, &ms, true
		c.Logical = logicalKind(vals.Type, asBool, false)
		c.conv, err = newConverter(vals.Type, asBool, nil, nil)
		return c, err
	}
	return nil, nil
}

// isH5pyBool recognises how h5py stores numpy booleans: an enum on int8
// with the members FALSE=0 and TRUE=1.
func isH5pyBool(t *h5core.Datatype) bool {
	return t.Class == h5core.ClassEnum && t.Size == 1 && len(t.Members) == 2 &&
		enumMember(t, "FALSE") == 0 && enumMember(t, "TRUE") == 1
}
