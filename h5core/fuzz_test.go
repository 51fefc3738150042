package h5core

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds adds small HDF5 files as seeds: the package's own test data
// and, when present, the shared conformance and malformed corpora.
func fuzzSeeds(f *testing.F) {
	var files []string
	for _, pat := range []string{
		"testdata/*/*.h5",
		"../../shared/fixtures/hep001/*.h5",
		"../../shared/fixtures/malformed/*",
	} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	for _, fn := range files {
		b, err := os.ReadFile(fn)
		if err == nil && len(b) < 1<<20 {
			f.Add(b)
		}
	}
}

// FuzzOpen walks every object of a mutated file: superblock, object
// headers, every message decoder, groups (v1 B-trees, local heaps,
// symbol nodes, link messages, dense storage), attributes and dataset
// reads through every chunk index.
func FuzzOpen(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := NewFile(bytes.NewReader(b), int64(len(b)), "fuzz.h5", Options{ChunkCacheBytes: 4 << 20})
		if err != nil {
			return
		}
		walkAll(h)
	})
}

// FuzzMessages feeds arbitrary bytes to each header message decoder.
func FuzzMessages(f *testing.F) {
	f.Add([]byte{1, 1, 1, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255})
	f.Add([]byte{2, 1, 1, 1, 4, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 2, 2, 3, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{4, 2, 0, 2, 4, 10, 0, 0, 0, 8, 0, 0, 0, 3, 10, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{1, 0x18, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 0, 2, 0, 8, 0, 8, 0, 0, 'x', 0})
	h := &File{so: 8, sl: 8, name: "fuzz"}
	f.Fuzz(func(t *testing.T, b []byte) {
		h.parseDataspace(b, 0)
		h.parseLayout(b, 0)
		h.parseFillValue(b, 0)
		h.parseFillValueOld(b, 0)
		h.parseLink(b, 0)
		h.parseLinkInfo(b, 0)
		h.parseAttribute(b, 0)
		h.parseAttrInfo(b, 0)
	})
}
