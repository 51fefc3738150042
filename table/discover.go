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
	t, fs, err := Probe(d.f, o, d.mode)
	if err != nil && o.Path == "/" {
		return err
	}
	d.findings = append(d.findings, fs...)
	if t != nil {
		d.tables = append(d.tables, t)
	}
	if t != nil || len(fs) > 0 || o.Kind() != h5core.KindGroup {
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

// Probe looks at one object, as Discover does at each: when o is a table
// it returns the opened table; when o is a table that cannot be opened
// (in Strict mode: one with errors) it returns nil and findings, among
// them at least one error; otherwise nil and no findings. An object whose
// attributes cannot be read gets an error finding too, and err says why.
func Probe(f *h5core.File, o *h5core.Object, mode Mode) (t *Table, fs []Finding, err error) {
	as, err := readAttrs(o)
	if err != nil {
		var bad findings
		bad.errorf(o.Path, "HDF5", "attributes not readable: %v", err)
		return nil, bad, err
	}
	kind := tableKind(f, o, as)
	if kind == "" {
		return nil, nil, nil
	}
	t, err = openKind(f, o, as, kind, mode)
	if err == nil {
		return t, nil, nil
	}
	var out findings
	if t != nil {
		out = append(out, t.Findings...)
	}
	if t == nil || !HasErrors(t.Findings) || mode == Strict {
		out.errorf(o.Path, "§7", "table not opened: %v", err)
	}
	return nil, out, nil
}
