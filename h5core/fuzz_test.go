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
		h, err := NewFile(bytes.NewReader(b), int64(len(b)), "fuzz.h5", Options{ChunkCacheBytes: 4 << 20, MaxChunkBytes: 4 << 20})
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
	f.Add([]byte{1, 2, 2, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0}) // layout v1, chunked 1-D
	f.Add([]byte{1, 1, 2, 0, 255, 255, 255, 255})                                         // fill value v1, undefined
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

// rawFile wraps arbitrary bytes as a file with 8-byte offsets and lengths
// and no superblock, so single structures can be decoded at address 0.
func rawFile(b []byte) *File {
	f := &File{r: bytes.NewReader(b), name: "fuzz", so: 8, sl: 8,
		headers: map[uint64]*objectHeader{}, links: map[uint64][]Link{}, gheaps: map[uint64]*globalHeap{},
		cache: newChunkCache(1 << 20), maxChunk: 1 << 20}
	f.size.Store(int64(len(b)))
	return f
}

// FuzzSuperblock decodes arbitrary bytes as a superblock (any version).
func FuzzSuperblock(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			b = b[:4096]
		}
		NewFile(bytes.NewReader(b), int64(len(b)), "fuzz", Options{})
	})
}

// FuzzObjectHeader decodes arbitrary bytes as a v1 or v2 object header
// with continuation chunks, then its dataset and group messages.
func FuzzObjectHeader(f *testing.F) {
	f.Add([]byte("OHDR\x02\x00\x10\x00\x01\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte{1, 0, 1, 0, 1, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		h := rawFile(b)
		oh, err := h.readObjectHeader(0)
		if err != nil {
			return
		}
		o := &Object{f: h, Path: "/x", oh: oh}
		o.Attributes()
		o.Links()
		if ds, err := o.Dataset(); err == nil {
			ds.ReadValues(0, min(ds.NumElements(), 16))
		}
	})
}

// FuzzBtree1 walks arbitrary bytes as a v1 B-tree of either node type,
// with a local heap and symbol nodes for group trees.
func FuzzBtree1(f *testing.F) {
	f.Add([]byte("TREE\x00\x00\x01\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Add([]byte("TREE\x01\x00\x01\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h := rawFile(b)
		h.walkBtree1(0, btree1Chunk, 8+8*3, func([]byte, uint64) error { return nil })
		h.walkBtree1(0, btree1Group, 8, func([]byte, uint64) error { return nil })
		if heap, err := h.readLocalHeap(0); err == nil {
			heap.stringAt(0)
			h.readSymbolNode(0, heap)
		}
	})
}
