package h5wasmtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Spec is a file for Write to make; write.mjs documents every field.
type Spec struct {
	File       string `json:"file"`
	Libver     any    `json:"libver,omitempty"` // "v200" (default), "latest", ["v110", "v200"], ...
	TrackOrder bool   `json:"track_order,omitempty"`
	Objects    []Op   `json:"objects"`
}

// Op is one step of a Spec, applied in order: create a group, dataset,
// attribute or link, resize a dataset or write a slice of it.
type Op struct {
	Kind            string    `json:"kind"` // group, dataset, attribute, resize, write_slice, softlink, hardlink, external
	Path            string    `json:"path"`
	Name            string    `json:"name,omitempty"`  // attribute name
	Dtype           any       `json:"dtype,omitempty"` // "<f4", "<i8", ... or h5wasm's codes
	Shape           []int64   `json:"shape,omitempty"`
	Maxshape        []int64   `json:"maxshape,omitempty"` // -1 = unlimited
	Chunks          []int64   `json:"chunks,omitempty"`
	Compression     any       `json:"compression,omitempty"` // "gzip" or a filter id
	CompressionOpts any       `json:"compression_opts,omitempty"`
	Data            any       `json:"data,omitempty"` // JSON values (int64 beyond 2^53 as strings)
	Raw             []byte    `json:"raw,omitempty"`  // little-endian element bytes, numeric dtypes
	Ranges          [][]int64 `json:"ranges,omitempty"`
	Target          string    `json:"target,omitempty"`
	Filename        string    `json:"filename,omitempty"` // external link's file
	TrackOrder      bool      `json:"track_order,omitempty"`
}

// Write writes spec.File with libhdf5 2.0, failing t when it cannot.
func Write(t testing.TB, spec Spec) {
	t.Helper()
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatalf("h5wasmtest: write %s: %v", spec.File, err)
	}
	p := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	Run(t, "write.mjs", p)
}
