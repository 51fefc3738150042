package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
)

// lsEntry is one object as `h5fs ls` reports it (text or JSON): its
// description, as .meta.json gives it, and with -v its chunks.
type lsEntry struct {
	*arrowexport.Object
	ChunkList  []lsChunk  `json:"chunk_list,omitempty"`
	Storage    *lsStorage `json:"storage,omitempty"`
	children   []*lsEntry // text output nesting
	chunkError string     // chunk listing error
	obj        *h5core.Object
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
		b, err := arrowexport.MarshalDescription(map[string]any{"file": pos[0], "superblock_version": f.SuperblockVersion(), "objects": flat})
		if err == nil {
			_, err = w.Write(b)
		}
		return err
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
			c = &lsEntry{Object: &arrowexport.Object{Path: path, Kind: "softlink", Target: l.Target}}
		case h5core.LinkExternal:
			c = &lsEntry{Object: &arrowexport.Object{Path: path, Kind: "externallink", Target: l.Target, File: l.File}}
		case h5core.LinkHard:
			o, err := e.obj.OpenLink(l)
			if err != nil {
				c = &lsEntry{Object: &arrowexport.Object{Path: path, Kind: "error", Error: err.Error()}}
				break
			}
			c = describe(o, verbose)
			if c.Kind == "group" && recursive && !seen[o.Addr] {
				seen[o.Addr] = true
				list(c, recursive, verbose, seen)
			}
		default:
			c = &lsEntry{Object: &arrowexport.Object{Path: path, Kind: "userlink"}}
		}
		e.children = append(e.children, c)
	}
}

// describe reports one object (arrowexport.DescribeObject); with verbose,
// also a chunked dataset's chunks and a sparse dataset's counts.
func describe(o *h5core.Object, verbose bool) *lsEntry {
	e := &lsEntry{Object: arrowexport.DescribeObject(o), obj: o}
	if e.Description == nil || !verbose {
		return e
	}
	ds, err := o.Dataset()
	if err != nil {
		return e
	}
	if e.Layout == "chunked" {
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
	if e.Sparse != nil {
		e.Sparse = countSparse(ds)
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
		if e.Fill != nil && e.FillDefined {
			fmt.Fprintf(w, "%sFill:      %s\n", ind, compactJSON(e.Fill))
		}
		if e.Sparse != nil {
			printSparse(w, ind, e, verbose)
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
		fmt.Fprintf(w, "%sAttribute: %s %s %s = %s\n", ind, printName(a.Name), dims(a.Shape, nil), a.Dtype, printable(val))
	}
	if e.AttributesError != "" {
		fmt.Fprintf(w, "%sAttributes: error: %s\n", ind, printable(e.AttributesError))
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
		case e.Shape == nil:
			return "Dataset {NULL}"
		case len(e.Shape) == 0:
			return "Dataset {SCALAR}"
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

// dims formats a shape like h5ls: {10/Inf, 3/3}; "scalar" for none.
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
	if len(shape) == 0 {
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
