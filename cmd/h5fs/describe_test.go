package main

import (
	"encoding/json"
	"io"
	"log"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/fsnode"
	"github.com/h5fs/h5fs/h5core"
)

// TestOneDescription checks that `ls --json` and the mount's .meta.json
// files describe every dataset with the same fields and values: a group's
// .meta.json for its datasets' links, a sparse dataset's own .meta.json.
func TestOneDescription(t *testing.T) {
	names, _ := filepath.Glob("../../table/testdata/*.h5")
	sparse, _ := filepath.Glob(sparseFixtures + "*.h5")
	names = append(append(names, "sample/sample.h5"), sparse...)
	compared := 0
	for _, name := range names {
		f, err := h5core.Open(name)
		if err != nil {
			continue
		}
		tree, err := fsnode.New(f, fsnode.Options{Log: log.New(io.Discard, "", 0)})
		if err != nil {
			f.Close()
			continue
		}
		meta := func(p string) map[string]any {
			v, err := tree.Open(p)
			if err != nil {
				return nil
			}
			b := make([]byte, v.Size())
			if _, err := v.ReadAt(b, 0); err != nil && err != io.EOF {
				t.Fatalf("%s: %s: %v", name, p, err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%s: %s: %v", name, p, err)
			}
			return m
		}
		root, err := f.Root()
		if err != nil {
			t.Fatal(err)
		}
		var walk func(g *h5core.Object, dir string)
		walk = func(g *h5core.Object, dir string) {
			m := meta(dir + ".meta.json")
			links, _ := g.Links()
			for _, l := range links {
				if l.Type != h5core.LinkHard {
					continue
				}
				o, err := g.OpenLink(l)
				if err != nil {
					continue
				}
				shown := fsnode.EscapeName(l.Name)
				if o.Kind() == h5core.KindGroup && !strings.Contains(dir, shown+"/") {
					walk(o, dir+shown+"/")
					continue
				}
				if o.Kind() != h5core.KindDataset {
					continue
				}
				e := describe(o, false)
				if e.Description == nil {
					continue
				}
				want := jsonMap(t, e.Description)
				if ds, _ := o.Dataset(); ds != nil && ds.IsSparse() {
					sm := meta(dir + shown + "/.meta.json")
					if sm == nil {
						t.Errorf("%s: %s: sparse dataset without .meta.json", name, o.Path)
						continue
					}
					same(t, name+": "+o.Path+" sparse .meta.json", sm, want)
					same(t, name+": "+o.Path+" sparse .meta.json vs ls storage", sm, jsonMap(t, describeSparse(ds, true).SparseStorage))
					if len(ds.Shape()) == 2 {
						same(t, name+": "+o.Path+" csr/.meta.json", meta(dir+shown+"/csr/.meta.json"), sm)
					}
					compared++
					continue
				}
				for _, lm := range asList(m["links"]) {
					if lm["name"] == l.Name && lm["dataset"] != nil {
						same(t, name+": "+o.Path+" in "+dir+".meta.json", lm["dataset"].(map[string]any), want)
						compared++
					}
				}
			}
		}
		walk(root, "")
		f.Close()
	}
	if compared < 20 {
		t.Errorf("compared %d datasets; the corpus has more", compared)
	}
}

// jsonMap returns v as JSON decodes it.
func jsonMap(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

// asList returns a JSON array of objects.
func asList(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, x := range l {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// same checks that got holds every field of want with the same value.
func same(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for k, w := range want {
		gb, _ := json.Marshal(got[k])
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("%s: %s = %s; ls --json says %s", what, k, gb, wb)
		}
	}
}
