package h5core

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// walkAll opens every object reachable from the root, decodes every
// attribute and reads the start of every dataset, returning the number of
// errors. It must never panic or hang, whatever the input.
func walkAll(f *File) int {
	errs := 0
	root, err := f.Root()
	if err != nil {
		return 1
	}
	seen := map[uint64]bool{}
	var walk func(o *Object, depth int)
	walk = func(o *Object, depth int) {
		if seen[o.Addr] || depth > 32 {
			return
		}
		seen[o.Addr] = true
		if attrs, err := o.Attributes(); err != nil {
			errs++
		} else {
			for _, a := range attrs {
				if _, err := a.Value(); err != nil {
					errs++
				}
			}
		}
		switch o.Kind() {
		case KindDataset:
			ds, err := o.Dataset()
			if err != nil {
				errs++
				return
			}
			if ds.Size() > 64<<20 {
				return
			}
			if _, err := ds.ReadValues(0, min(ds.NumElements(), 1024)); err != nil {
				errs++
			}
			if ds.Layout() == "chunked" {
				if _, err := ds.Chunks(); err != nil {
					errs++
				}
			}
		case KindGroup:
			links, err := o.Links()
			if err != nil {
				errs++
				return
			}
			for _, l := range links {
				c, err := o.OpenLink(l)
				if err != nil {
					errs++
					continue
				}
				walk(c, depth+1)
			}
		}
	}
	walk(root, 0)
	return errs
}

// TestMalformed runs every malformed input of the shared corpus (public
// inputs from libhdf5 CVE reports) through a full walk: each must give
// errors or data, never a panic or a hang.
func TestMalformed(t *testing.T) {
	files, _ := filepath.Glob("../../shared/fixtures/malformed/*")
	if len(files) == 0 {
		t.Skip("../shared/fixtures/malformed is absent: skipping the CVE corpus")
	}
	for _, fn := range files {
		if filepath.Ext(fn) == ".md" {
			continue
		}
		t.Run(filepath.Base(fn), func(t *testing.T) {
			b, err := os.ReadFile(fn)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			f, err := NewFile(bytes.NewReader(b), int64(len(b)), filepath.Base(fn), Options{ChunkCacheBytes: 8 << 20, MaxChunkBytes: 64 << 20})
			if err != nil {
				t.Logf("open: %v", err)
				return
			}
			n := walkAll(f)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<30 {
				t.Errorf("walking a %d-byte file allocated %d bytes", len(b), alloc)
			}
			t.Logf("%d errors", n)
		})
	}
}
