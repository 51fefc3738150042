package table

import (
	"github.com/h5fs/h5fs/h5core"
)

// Discover returns every table of the file: HEP001 table groups wherever
// they are, PyTables, pandas and H5TB row tables and anndata dataframes.
// A table that cannot be opened (or, in Strict mode, has errors) is left
// out and its problems are returned as findings; it never hides the other
// tables. The error is for a file whose root group cannot be read.
func Discover(f *h5core.File, mode Mode) ([]*Table, []Finding, error) {
	root, err := f.Root()
	if err != nil {
		return nil, nil, err
	}
	d := &discovery{f: f, mode: mode, seen: map[uint64]bool{}}
	if err := d.visit(root); err != nil {
		return nil, nil, err
	}
	return d.tables, d.findings, nil
}

type discovery struct {
	f        *h5core.File
	mode     Mode
	seen     map[uint64]bool // object headers visited (hard links may repeat)
	tables   []*Table
	findings findings
}

// visit looks at one object: a table is opened (and not descended into),
// any other group is walked.
func (d *discovery) visit(o *h5core.Object) error {
	if d.seen[o.Addr] {
		return nil
	}
	d.seen[o.Addr] = true
	as, err := readAttrs(o)
	if err != nil {
		if o.Path == "/" {
			return err
		}
		d.findings.errorf(o.Path, "HDF5", "attributes not readable: %v", err)
		return nil
	}
	if kind := tableKind(d.f, o, as); kind != "" {
		d.open(o, as, kind)
		return nil
	}
	if o.Kind() != h5core.KindGroup {
		return nil
	}
	links, err := o.Links()
	if err != nil {
		if o.Path == "/" {
			return err
		}
		d.findings.errorf(o.Path, "HDF5", "group not readable: %v", err)
		return nil
	}
	for _, l := range links {
		if l.Type != h5core.LinkHard {
			continue
		}
		c, err := o.OpenLink(l)
		if err != nil {
			d.findings.errorf(o.Child(l.Name), "HDF5", "cannot open: %v", err)
			continue
		}
		if err := d.visit(c); err != nil {
			return err
		}
	}
	return nil
}

// open opens one table, keeping its findings either way.
func (d *discovery) open(o *h5core.Object, as attrSet, kind string) {
	t, err := openKind(d.f, o, as, kind, d.mode)
	if err == nil {
		d.tables = append(d.tables, t)
		return
	}
	if t != nil {
		d.findings = append(d.findings, t.Findings...)
	}
	if t == nil || !HasErrors(t.Findings) || d.mode == Strict {
		d.findings.errorf(o.Path, "§7", "table not opened: %v", err)
	}
}
