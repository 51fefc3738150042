package fsnode

import (
	"encoding/json"

	"github.com/h5fs/h5fs/arrowexport"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// objectMeta is the content of a directory's .meta.json.
type objectMeta struct {
	Path       string            `json:"path"`
	Kind       string            `json:"kind"`
	Error      string            `json:"error,omitempty"`
	Attributes map[string]string `json:"attributes"`
	Table      *tableMeta        `json:"table,omitempty"`
	Links      []linkMeta        `json:"links,omitempty"`
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
	Name       string `json:"name"`
	Shown      string `json:"shown_as"`
	Path       string `json:"hdf5_path"`
	Type       string `json:"dtype"`
	Logical    string `json:"logical"`
	ElemSize   int    `json:"raw_elem_size"`
	RawDtype   string `json:"raw_dtype,omitempty"` // NumPy type of <col>.raw
	Nullable   bool   `json:"nullable"`
	Fill       string `json:"fill,omitempty"`
	Units      string `json:"units,omitempty"`
	IndexLevel int    `json:"index_level"`
}

// linkMeta describes one link of a group and the object it points at.
type linkMeta struct {
	Name    string       `json:"name"`
	Shown   string       `json:"shown_as"`
	Type    string       `json:"link_type"`
	Target  string       `json:"target,omitempty"`
	Kind    string       `json:"kind,omitempty"`
	Dataset *datasetMeta `json:"dataset,omitempty"`
	Error   string       `json:"error,omitempty"`
}

// datasetMeta describes a dataset's type, shape and storage.
type datasetMeta struct {
	*arrowexport.Description
	Attributes map[string]string `json:"attributes"`
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
				m.Table = describeTable(tb)
			}
			b, err := json.MarshalIndent(m, "", "  ")
			return bytesView(append(b, '\n')), err
		}}}
}

// describe builds the description of object o, which cannot be shown for
// reason bad if that is set.
func (t *Tree) describe(o *h5core.Object, bad error) (*objectMeta, error) {
	attrs, err := attributeTexts(o)
	if err != nil {
		return nil, err
	}
	m := &objectMeta{Path: o.Path, Kind: o.Kind().String(), Attributes: attrs}
	if bad != nil {
		m.Error = bad.Error()
	}
	links, err := o.Links()
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		lm := linkMeta{Name: l.Name, Shown: EscapeName(l.Name), Type: l.Type.String(), Target: l.Target}
		if l.Type == h5core.LinkExternal {
			lm.Target = l.File + ":" + l.Target
		}
		if c, err := t.openLink(o, l); err != nil {
			lm.Error = err.Error()
		} else {
			lm.Kind = c.Kind().String()
			if lm.Kind == "dataset" {
				lm.Dataset, err = describeDataset(c)
				if err != nil {
					lm.Error = err.Error()
				}
			}
		}
		m.Links = append(m.Links, lm)
	}
	return m, nil
}

// describeDataset describes dataset o.
func describeDataset(o *h5core.Object) (*datasetMeta, error) {
	ds, err := o.Dataset()
	if err != nil {
		return nil, err
	}
	attrs, err := attributeTexts(o)
	if err != nil {
		return nil, err
	}
	m := &datasetMeta{Description: arrowexport.Describe(ds), Attributes: attrs}
	return m, nil
}

// describeTable describes table tb.
func describeTable(tb *table.Table) *tableMeta {
	m := &tableMeta{Kind: tb.Kind, NRows: tb.NRows, Version: tb.Version, IndexColumns: tb.IndexColumns, Index: tb.Index,
		Columns: []columnMeta{}}
	for _, c := range tb.Columns {
		cm := columnMeta{Name: c.Name, Shown: EscapeName(c.Name), Path: c.Path, Type: c.HDF5Type,
			Logical: c.Logical, ElemSize: c.ElemSize, Nullable: c.Nullable, Fill: c.FillText, Units: c.Units, IndexLevel: c.IndexLevel}
		if c.ElemSize > 0 {
			cm.RawDtype = arrowexport.RawDtype(c.Type)
		}
		m.Columns = append(m.Columns, cm)
	}
	for _, f := range tb.Findings {
		m.Findings = append(m.Findings, f.String())
	}
	return m
}
