package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/arrowexport"
)

// corpusEntry holds the keys of h5core/testdata/corpus/*.json that
// `h5fs ls --json` reports too.
type corpusEntry struct {
	Path       string    `json:"path"`
	Kind       string    `json:"kind"`
	SameAs     string    `json:"same_object_as"`
	Shape      []uint64  `json:"shape"`
	MaxShape   []*uint64 `json:"maxshape"`
	Space      string    `json:"space"`
	Layout     string    `json:"layout"`
	Chunks     []uint64  `json:"chunks"`
	ChunkIndex string    `json:"chunk_index"`
	Filters    []struct {
		ID uint16 `json:"id"`
	} `json:"filters"`
	RawSHA     string                     `json:"raw_sha256"`
	Attributes map[string]json.RawMessage `json:"attributes"`
}

// TestLsJSON compares `h5fs ls -r --json` with what libhdf5 reported about
// the corpus files, and `h5fs dump --raw` with h5py's packed bytes.
func TestLsJSON(t *testing.T) {
	index := map[string]string{"btree_v1": "v1_btree", "btree_v2": "v2_btree"}
	files, _ := filepath.Glob("../../h5core/testdata/corpus/*.json")
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	for _, jf := range files {
		b, err := os.ReadFile(jf)
		if err != nil {
			t.Fatal(err)
		}
		var want struct{ Objects []corpusEntry }
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		h5 := jf[:len(jf)-len(".json")] + ".h5"
		var out bytes.Buffer
		if err := runLs([]string{"-r", "--json", h5}, &out); err != nil {
			t.Fatal(err)
		}
		var got struct{ Objects []lsJSON }
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		byPath := map[string]lsJSON{}
		for _, e := range got.Objects {
			byPath[e.Path] = e
		}
		for _, w := range want.Objects {
			g, ok := byPath[w.Path]
			if !ok {
				t.Errorf("%s: %s not listed", h5, w.Path)
				continue
			}
			if g.Kind != w.Kind {
				t.Errorf("%s: %s is a %s, want %s", h5, w.Path, g.Kind, w.Kind)
				continue
			}
			if len(g.Attributes) != len(w.Attributes) && w.Attributes != nil {
				t.Errorf("%s: %s has %d attributes, want %d", h5, w.Path, len(g.Attributes), len(w.Attributes))
			}
			if w.Kind != "dataset" || w.SameAs != "" {
				continue
			}
			var maxShape []any
			for _, m := range w.MaxShape {
				if m == nil {
					maxShape = append(maxShape, nil)
				} else {
					maxShape = append(maxShape, float64(*m))
				}
			}
			wantIndex := w.ChunkIndex
			if n, ok := index[wantIndex]; ok {
				wantIndex = n
			}
			var filters []uint16
			for _, f := range w.Filters {
				filters = append(filters, f.ID)
			}
			var gotFilters []uint16
			for _, f := range g.Filters {
				gotFilters = append(gotFilters, f.ID)
			}
			gotMax, _ := json.Marshal(g.MaxShape)
			var gm []any
			json.Unmarshal(gotMax, &gm)
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"layout", g.Layout, w.Layout},
				{"chunks", g.Chunks, w.Chunks},
				{"chunk index", g.ChunkIndex, wantIndex},
				{"filters", gotFilters, filters},
				{"maxshape", gm, maxShape},
			} {
				if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
					t.Errorf("%s: %s: %s %v, want %v", h5, w.Path, c.what, c.got, c.want)
				}
			}
			if w.Space == "simple" && fmt.Sprint(g.Shape) != fmt.Sprint(w.Shape) {
				t.Errorf("%s: %s: shape %v, want %v", h5, w.Path, g.Shape, w.Shape)
			}
			if w.RawSHA != "" && w.Layout != "virtual" && len(w.Filters) == 0 {
				var raw bytes.Buffer
				if err := runDump([]string{"--raw", h5, w.Path}, &raw); err != nil {
					t.Errorf("%s: dump --raw %s: %v", h5, w.Path, err)
					continue
				}
				sum := sha256.Sum256(raw.Bytes())
				if hex.EncodeToString(sum[:]) != w.RawSHA && !hasNbit(g) {
					t.Errorf("%s: dump --raw %s differs from h5py", h5, w.Path)
				}
			}
		}
	}
}

// lsJSON is an object of `h5fs ls --json` as TestLsJSON reads it.
type lsJSON struct {
	Path, Kind string
	*arrowexport.Description
	Attributes []json.RawMessage
}

// hasNbit reports types whose precision does not fill their bytes: the
// corpus records their raw form unshifted, dump --raw shifts them as
// libhdf5 does (checked against h5py itself in h5core's tests).
func hasNbit(e lsJSON) bool {
	return e.Description != nil && bytes.Contains([]byte(e.Dtype), []byte(" bits at "))
}
