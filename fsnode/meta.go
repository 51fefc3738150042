package fsnode

import (
	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// objectMeta is the content of a directory's .meta.json: its object's
// description, the table it shows, and its links.
type objectMeta struct {
	*arrowexport.Object
	Table *tableMeta `json:"table,omitempty"`
	Links []linkMeta `json:"links,omitempty"`
}

// tableMeta describes a table and its columns in view order.
type tableMeta struct {
	Kind         string       `json:"kind"`
	NRows        int64        `json:"nrows"`
	Version      string       `json:"version,omitempty"`
	IndexColumns []string     `json:"index_columns,omitempty"`
	Index        string       `json:"index,omitempty"`
	Columns      []columnMeta `json:"columns"`
	Findings     []string     `json:"findings,omitempty"`
}

// columnMeta describes one column of a table.
type columnMeta struct {
	Name       string                 `json:"name"`
	Shown      string                 `json:"shown_as"`
	Path       string                 `json:"hdf5_path"`
	Type       string                 `json:"dtype"`
	Logical    string                 `json:"logical"`
	ElemSize   int                    `json:"raw_elem_size"`
	RawDtype   string                 `json:"raw_dtype,omitempty"` // NumPy type of <col>.raw
	Nullable   bool                   `json:"nullable"`
	Fill       *arrowexport.JSONValue `json:"fill_value,omitempty"` // the column's missing value
	Units      string                 `json:"units,omitempty"`
	IndexLevel int                    `json:"index_level"`
}

// linkMeta describes one link of a group and the object it leads to.
type linkMeta struct {
	Name   string              `json:"name"`
	Shown  string              `json:"shown_as"`
	Type   string              `json:"link_type"`
	Target string              `json:"target,omitempty"`
	File   string              `json:"file,omitempty"`
	Object *arrowexport.Object `json:"object,omitempty"`
	Error  string              `json:"error,omitempty"`
}

// metaEntry is the .meta.json file of the directory of object o (which
// shows table tb, if not nil, or cannot be shown for reason bad).
func (t *Tree) metaEntry(o *h5core.Object, tb *table.Table, bad error) entry {
	return entry{name: metaName, file: &file{path: t.f.Name() + ":" + o.Path + " " + metaName,
		newView: func() (View, error) {
			m, err := t.describe(o, bad)
			if err != nil {
				return nil, err
			}
			if tb != nil {
				m.Table = t.describeTable(tb)
			}
			b, err := arrowexport.MarshalDescription(m)
			return bytesView(b), err
		}}}
}

// describe builds the description of object o, which cannot be shown for
// reason bad if that is set.
func (t *Tree) describe(o *h5core.Object, bad error) (*objectMeta, error) {
	m := &objectMeta{Object: arrowexport.DescribeObject(o)}
	if bad != nil {
		m.Error = bad.Error()
	}
	links, err := o.Links()
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		lm := linkMeta{Name: l.Name, Shown: EscapeName(l.Name), Type: l.Type.String(), Target: l.Target, File: l.File}
		if c, err := t.openLink(o, l); err != nil {
			lm.Error = err.Error()
		} else {
			lm.Object = arrowexport.DescribeObject(c)
		}
		m.Links = append(m.Links, lm)
	}
	return m, nil
}

// describeTable describes table tb.
func (t *Tree) describeTable(tb *table.Table) *tableMeta {
	m := &tableMeta{Kind: tb.Kind, NRows: tb.NRows, Version: tb.Version, IndexColumns: tb.IndexColumns, Index: tb.Index,
		Columns: []columnMeta{}}
	for _, c := range tb.Columns {
		cm := columnMeta{Name: c.Name, Shown: EscapeName(c.Name), Path: c.Path, Type: c.HDF5Type,
			Logical: c.Logical, ElemSize: c.ElemSize, Nullable: c.Nullable, Units: c.Units, IndexLevel: c.IndexLevel}
		if c.ElemSize > 0 {
			cm.RawDtype = arrowexport.RawDtype(c.Type)
		}
		if c.Fill != nil {
			if v, err := t.f.ElementValue(c.Type, c.Fill); err == nil {
				cm.Fill = &arrowexport.JSONValue{Type: c.Type, Value: v}
			}
		}
		m.Columns = append(m.Columns, cm)
	}
	for _, f := range tb.Findings {
		m.Findings = append(m.Findings, f.String())
	}
	return m
}
