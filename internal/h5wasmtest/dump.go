package h5wasmtest

import (
	"encoding/json"
	"testing"
)

// File is what dump.mjs prints: every object of a file as libhdf5 2.0
// reads it, keyed by absolute path ("/" is the root group). Soft and
// external links that resolve show as their target; broken ones as
// "softlink" and "external" objects.
type File struct {
	Objects map[string]*Object `json:"objects"`
}

// Object is one group, dataset, named datatype or broken link.
type Object struct {
	Kind           string           `json:"kind"` // group, dataset, datatype, external, softlink
	Dtype          any              `json:"dtype"`
	Shape          []int64          `json:"shape"`    // nil for a null dataspace
	Maxshape       []int64          `json:"maxshape"` // -1 = unlimited
	Chunks         []int64          `json:"chunks"`
	Filters        []Filter         `json:"filters"`
	Metadata       map[string]any   `json:"metadata"` // h5wasm's Metadata
	VirtualSources []VirtualSource  `json:"virtual_sources"`
	Values         json.RawMessage  `json:"values"` // bigints, NaN and infinities as strings
	Raw            []byte           `json:"raw"`    // the element bytes, when h5wasm returned a typed array
	Attrs          map[string]*Attr `json:"attrs"`
	Filename       string           `json:"filename"` // broken external link
	ObjPath        string           `json:"obj_path"` // broken external link
	Target         string           `json:"target"`   // broken soft link
}

// Attr is one attribute.
type Attr struct {
	Dtype    any             `json:"dtype"`
	Shape    []int64         `json:"shape"`
	Metadata map[string]any  `json:"metadata"`
	Values   json.RawMessage `json:"values"`
	Raw      []byte          `json:"raw"`
}

// Filter is one filter of a dataset's pipeline.
type Filter struct {
	ID       int      `json:"id"`
	Name     string   `json:"name"`
	CDValues []uint32 `json:"cd_values"`
}

// VirtualSource is one mapping of a virtual dataset.
type VirtualSource struct {
	FileName string `json:"file_name"`
	DsetName string `json:"dset_name"`
}

// Dump reads file with libhdf5 2.0 and returns every object in it, or only
// the objects at paths when any are given. It fails t when libhdf5 cannot
// read the file.
func Dump(t testing.TB, file string, paths ...string) *File {
	t.Helper()
	out := Run(t, "dump.mjs", append([]string{file}, paths...)...)
	var f File
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("h5wasmtest: dump %s: %v", file, err)
	}
	return &f
}

// Dataset returns the dataset at path of f, failing t when there is none.
func (f *File) Dataset(t testing.TB, path string) *Object {
	t.Helper()
	o := f.Objects[path]
	if o == nil || o.Kind != "dataset" {
		t.Fatalf("h5wasmtest: no dataset %s (libhdf5 2.0 sees %v)", path, o)
	}
	return o
}
