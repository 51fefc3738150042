package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
)

// lsEntry is one object as `h5fs ls` reports it (text or JSON).
type lsEntry struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"` // group, dataset, datatype, softlink, externallink, error
	Target string `json:"target,omitempty"`
	File   string `json:"file,omitempty"`
	Error  string `json:"error,omitempty"`
	*arrowexport.Description
	Scalar     bool       `json:"scalar,omitempty"`
	Null       bool       `json:"null,omitempty"`
	Class      string     `json:"class,omitempty"`
	Size       int        `json:"element_size,omitempty"`
	Fill       any        `json:"fill_value,omitempty"`
	Attributes []lsAttr   `json:"attributes,omitempty"`
	ChunkList  []lsChunk  `json:"chunk_list,omitempty"`
	Storage    *lsStorage `json:"storage,omitempty"`
	Sparse     *lsSparse  `json:"sparse,omitempty"`
	children   []*lsEntry // text output nesting
	attrErr    string     // attribute decoding error (text)
	chunkError string     // chunk listing error
	obj        *h5core.Object
}

type lsAttr struct {
	Name  string   `json:"name"`
	Type  string   `json:"type"`
	Shape []uint64 `json:"shape,omitempty"`
	Value any      `json:"value"`
	Error string   `json:"error,omitempty"`
}

type lsChunk struct {
	Offset []uint64 `json:"offset"`
	Addr   uint64   `json:"addr"`
	Size   uint64   `json:"stored_size"`
	Mask   uint32   `json:"filter_mask"`
}

type lsStorage struct {
	Chunks       int   `json:"allocated_chunks"`
	StoredBytes  int64 `json:"stored_bytes"`
	LogicalBytes int64 `json:"logical_bytes"`
}

func runLs(args []string, w io.Writer) error {
	fs := flags("ls")
	recursive := fs.Bool("r", false, "recurse into groups")
	verbose := fs.Bool("v", false, "per-chunk detail")
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parseArgs(fs, args, 1, 2)
	if err != nil {
		return err
	}
	f, err := h5core.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	path := "/"
	if len(pos) == 2 {
		path = pos[1]
	}
	o, err := f.Open(path)
	if err != nil {
		return err
	}
	root := describe(o, *verbose)
	if root.Kind == "group" {
		list(root, *recursive, *verbose, map[uint64]bool{o.Addr: true})
	}
	if *asJSON {
		var flat []*lsEntry
		var walk func(e *lsEntry)
		walk = func(e *lsEntry) {
			flat = append(flat, e)
			for _, c := range e.children {
				walk(c)
			}
		}
		walk(root)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"file": pos[0], "superblock_version": f.SuperblockVersion(), "objects": flat})
	}
	printEntry(w, root, *verbose)
	return nil
}

// list fills in the children of a group entry; seen guards against hard
// link cycles.
func list(e *lsEntry, recursive, verbose bool, seen map[uint64]bool) {
	links, err := e.obj.Links()
	if err != nil {
		e.Error = err.Error()
		return
	}
	for _, l := range links {
		path := e.obj.Child(l.Name)
		var c *lsEntry
		switch l.Type {
		case h5core.LinkSoft:
			c = &lsEntry{Path: path, Kind: "softlink", Target: l.Target}
		case h5core.LinkExternal:
			c = &lsEntry{Path: path, Kind: "externallink", Target: l.Target, File: l.File}
		case h5core.LinkHard:
			o, err := e.obj.OpenLink(l)
			if err != nil {
				c = &lsEntry{Path: path, Kind: "error", Error: err.Error()}
				break
			}
			c = describe(o, verbose)
			if c.Kind == "group" && recursive && !seen[o.Addr] {
				seen[o.Addr] = true
				list(c, recursive, verbose, seen)
			}
		default:
			c = &lsEntry{Path: path, Kind: "userlink"}
		}
		e.children = append(e.children, c)
	}
}

// describe reports one object: kind, attributes and, for datasets, shape,
// type, layout, filters and fill value.
func describe(o *h5core.Object, verbose bool) *lsEntry {
	e := &lsEntry{Path: o.Path, Kind: o.Kind().String(), obj: o}
	attrs, err := o.Attributes()
	if err != nil {
		e.attrErr = err.Error()
	}
	for _, a := range attrs {
		la := lsAttr{Name: a.Name, Type: a.Type.String(), Shape: a.Shape}
		v, err := a.Value()
		if err != nil {
			la.Error = err.Error()
		} else {
			la.Value = jsonValue(v)
		}
		e.Attributes = append(e.Attributes, la)
	}
	if o.Kind() != h5core.KindDataset {
		return e
	}
	ds, err := o.Dataset()
	if err != nil {
		e.Kind, e.Error = "error", err.Error()
		return e
	}
	e.Description = arrowexport.Describe(ds)
	e.Scalar, e.Null = ds.IsScalar(), ds.IsNull()
	e.Class, e.Size = ds.Type.Class.String(), ds.Type.Size
	if fill, ok := ds.FillValue(); ok {
		if v, err := ds.File().ElementValue(ds.Type, fill); err == nil {
			e.Fill = jsonValue(v)
		}
	}
	if e.Layout == "chunked" {
		if verbose {
			chunks, err := ds.Chunks()
			if err != nil {
				e.chunkError = err.Error()
			}
			st := &lsStorage{Chunks: len(chunks), LogicalBytes: ds.Size()}
			for _, c := range chunks {
				e.ChunkList = append(e.ChunkList, lsChunk{c.Offset, c.Addr, c.StoredSize, c.FilterMask})
				st.StoredBytes += int64(c.StoredSize)
			}
			e.Storage = st
		}
	}
	if ds.IsSparse() {
		e.Sparse = describeSparse(ds, verbose)
	}
	return e
}

func printEntry(w io.Writer, e *lsEntry, verbose bool) {
	fmt.Fprintf(w, "%-30s %s\n", printName(e.Path), headline(e))
	ind := "    "
	if e.Error != "" {
		fmt.Fprintf(w, "%sError: %s\n", ind, printable(e.Error))
	}
	if e.Kind == "dataset" {
		fmt.Fprintf(w, "%sType:      %s\n", ind, e.Dtype)
		layout := e.Layout
		if e.Chunks != nil && e.Layout == "chunked" {
			layout += fmt.Sprintf(" %s, index %s", dims(e.Chunks, nil), e.ChunkIndex)
		}
		fmt.Fprintf(w, "%sLayout:    %s\n", ind, layout)
		if e.NetCDFDimension {
			fmt.Fprintf(w, "%snetCDF:    a dimension without a variable (its values were never written)\n", ind)
		}
		if len(e.Filters) > 0 {
			var fs []string
			for _, f := range e.Filters {
				s := fmt.Sprintf("%s(%d) %v", f.Name, f.ID, f.ClientData)
				if !f.Supported {
					s += " (not supported by h5fs)"
				}
				fs = append(fs, s)
			}
			fmt.Fprintf(w, "%sFilters:   %s\n", ind, strings.Join(fs, ", "))
		}
		if e.Fill != nil {
			fmt.Fprintf(w, "%sFill:      %s\n", ind, compactJSON(e.Fill))
		}
		if e.Sparse != nil {
			printSparse(w, ind, e)
		}
		if verbose && e.Storage != nil {
			fmt.Fprintf(w, "%sStorage:   %d logical bytes, %d allocated bytes in %d chunks\n", ind, e.Storage.LogicalBytes, e.Storage.StoredBytes, e.Storage.Chunks)
			for _, c := range e.ChunkList {
				fmt.Fprintf(w, "%s  chunk %v addr %#x size %d mask %#x\n", ind, c.Offset, c.Addr, c.Size, c.Mask)
			}
			if e.chunkError != "" {
				fmt.Fprintf(w, "%s  Error: %s\n", ind, printable(e.chunkError))
			}
		}
	}
	for _, a := range e.Attributes {
		val := compactJSON(a.Value)
		if a.Error != "" {
			val = "error: " + a.Error
		}
		fmt.Fprintf(w, "%sAttribute: %s %s %s = %s\n", ind, printName(a.Name), dims(a.Shape, nil), a.Type, printable(val))
	}
	if e.attrErr != "" {
		fmt.Fprintf(w, "%sAttributes: error: %s\n", ind, printable(e.attrErr))
	}
	for _, c := range e.children {
		printEntry(w, c, verbose)
	}
}

func headline(e *lsEntry) string {
	switch e.Kind {
	case "group":
		return "Group"
	case "dataset":
		switch {
		case e.Scalar:
			return "Dataset {SCALAR}"
		case e.Null:
			return "Dataset {NULL}"
		}
		return "Dataset " + dims(e.Shape, e.MaxShape)
	case "softlink":
		return "Soft Link {" + printName(e.Target) + "}"
	case "externallink":
		return "External Link {" + printName(e.File) + "/" + printName(e.Target) + "}"
	case "datatype":
		return "Type"
	}
	return e.Kind
}

// dims formats a shape like h5ls: {10/Inf, 3/3}.
func dims(shape []uint64, max []any) string {
	var parts []string
	for i, d := range shape {
		s := fmt.Sprint(d)
		if max != nil {
			if max[i] == nil {
				s += "/Inf"
			} else {
				s += fmt.Sprintf("/%v", max[i])
			}
		}
		parts = append(parts, s)
	}
	if shape == nil {
		return "scalar"
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
