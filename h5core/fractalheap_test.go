package h5core

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDoublingTable(t *testing.T) {
	// The attribute heaps of libhdf5: width 4, 1 KiB starting blocks,
	// 64 KiB direct blocks, 40-bit heap addresses.
	h := &fractalHeap{width: 4, startBlock: 1024, maxDirect: 65536, heapBits: 40, maxManSize: 4096, idLen: 8}
	if err := h.init(8); err != nil {
		t.Fatal(err)
	}
	if h.maxDirectRows != 8 || h.maxRootRows != 29 || h.offSize != 5 || h.lenSize != 2 || h.blockPrefix != 4+1+8+5 {
		t.Fatalf("derived %+v", h)
	}
	for _, c := range []struct {
		off      uint64
		row      int
		col      uint64
		size, at uint64 // row block size, row offset
	}{
		{0, 0, 0, 1024, 0},
		{1023, 0, 0, 1024, 0},
		{1024, 0, 1, 1024, 0},
		{4095, 0, 3, 1024, 0},
		{4096, 1, 0, 1024, 4096},
		{8191, 1, 3, 1024, 4096},
		{8192, 2, 0, 2048, 8192},
		{16383, 2, 3, 2048, 8192},
		{16384, 3, 0, 4096, 16384},
		{1 << 20, 9, 0, 1 << 18, 1 << 20}, // first row of child indirect blocks
	} {
		row, col := h.lookup(c.off)
		if row != c.row || col != c.col || h.rowSize(row) != c.size || h.rowOff(row) != c.at {
			t.Errorf("offset %d: row %d col %d (size %d at %d), want row %d col %d (size %d at %d)",
				c.off, row, col, h.rowSize(row), h.rowOff(row), c.row, c.col, c.size, c.at)
		}
	}
	for _, bad := range []*fractalHeap{
		{width: 3, startBlock: 1024, maxDirect: 65536, heapBits: 40, idLen: 8},
		{width: 4, startBlock: 1000, maxDirect: 65536, heapBits: 40, idLen: 8},
		{width: 4, startBlock: 1024, maxDirect: 512, heapBits: 40, idLen: 8},
		{width: 4, startBlock: 1024, maxDirect: 1 << 32, heapBits: 40, idLen: 8},
		{width: 4, startBlock: 1024, maxDirect: 65536, heapBits: 11, idLen: 8},
		{width: 4, startBlock: 1024, maxDirect: 65536, heapBits: 65, idLen: 8},
		{width: 4, startBlock: 1024, maxDirect: 65536, heapBits: 40, idLen: 0},
		{width: 4, startBlock: 1024, maxDirect: 65536, heapBits: 40, idLen: 8, rootRows: 30},
	} {
		if err := bad.init(8); err == nil {
			t.Errorf("heap %+v accepted", bad)
		}
	}
}

func TestTinyObjects(t *testing.T) {
	short := &fractalHeap{idLen: 8}
	if b, err := short.tiny([]byte{0x22, 'a', 'b', 'c', 0, 0, 0, 0}); err != nil || string(b) != "abc" {
		t.Errorf("short tiny object: %q, %v", b, err)
	}
	if _, err := short.tiny([]byte{0x27, 'a', 'b', 'c', 0, 0, 0, 0}); err == nil {
		t.Error("tiny object longer than its ID accepted")
	}
	// IDs longer than 18 bytes spend a second byte on the length.
	ext := &fractalHeap{idLen: 24}
	id := append([]byte{0x20, 0x04}, "hello world.........."...)
	if b, err := ext.tiny(id[:24]); err != nil || string(b) != "hello" {
		t.Errorf("extended tiny object: %q, %v", b, err)
	}
	if _, err := ext.tiny([]byte{0x21, 0x00, 'x'}); err == nil {
		t.Error("extended tiny object of 257 bytes in a 3-byte ID accepted")
	}
	if _, err := ext.tiny([]byte{0x20}); err == nil {
		t.Error("extended tiny ID of one byte accepted")
	}
}

// heapIDs returns the heap IDs of an object's dense attribute records.
func heapIDs(t *testing.T, f *File, path string) (uint64, [][]byte) {
	t.Helper()
	ai, recs := attrRecords(t, f, path)
	ids := make([][]byte, len(recs))
	for i, r := range recs {
		ids[i] = r[:8]
	}
	return ai.heapAddr, ids
}

// TestHeapObjectKinds checks that the test files reach what they are
// meant to: huge attributes and links, nested indirect blocks.
func TestHeapObjectKinds(t *testing.T) {
	f, _ := denseFile(t, "attrs.h5")
	_, ids := heapIDs(t, f, "/ds_attrs")
	huge := 0
	for _, id := range ids {
		if id[0]&0x30 == heapIDHuge {
			huge++
		}
	}
	if huge != 2 {
		t.Errorf("/ds_attrs has %d huge attributes, want 2", huge)
	}
	heap, _ := heapIDs(t, f, "/a_wide")
	h, err := f.fractalHeap(heap)
	if err != nil {
		t.Fatal(err)
	}
	if h.rootRows <= h.maxDirectRows {
		t.Errorf("/a_wide heap root has %d rows, not more than the %d direct rows: no child indirect blocks", h.rootRows, h.maxDirectRows)
	}
	g, _ := denseFile(t, "links.h5")
	li := linkIndex(t, g, "/huge")
	if h, err := g.fractalHeap(li.heapAddr); err != nil || h.hugeBtree == undefAddr {
		t.Errorf("/huge link heap has no huge objects (%v)", err)
	}
}

func TestHeapIDErrors(t *testing.T) {
	f, _ := denseFile(t, "small.h5")
	heap, ids := heapIDs(t, f, "/g")
	var managed []byte
	for _, id := range ids {
		if id[0]&0x30 == heapIDManaged {
			managed = id
		}
	}
	h, err := f.fractalHeap(heap)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(off, n uint64) []byte {
		id := make([]byte, 8)
		for i := 0; i < h.offSize; i++ {
			id[1+i] = byte(off >> (8 * i))
		}
		id[1+h.offSize], id[2+h.offSize] = byte(n), byte(n>>8)
		return id
	}
	for name, id := range map[string][]byte{
		"empty":          {},
		"version 1":      append([]byte{0x40}, managed[1:]...),
		"reserved type":  append([]byte{0x30}, managed[1:]...),
		"short managed":  managed[:3],
		"zero length":    mk(100, 0),
		"in block head":  mk(2, 4),
		"past the heap":  mk(h.manSize, 1),
		"over the limit": mk(100, h.maxManSize+1),
		"huge, no tree":  {0x10, 9, 9, 9, 9, 9, 9, 9},
	} {
		if _, err := f.fractalHeapObject(heap, id); err == nil {
			t.Errorf("%s heap ID %x accepted", name, id)
		}
	}
	if _, err := f.fractalHeapObject(heap+1, managed); err == nil {
		t.Error("heap header at a wrong address accepted")
	}
}

// TestHeapDirectBlockChecksum corrupts an attribute message inside a
// checksummed direct block.
func TestHeapDirectBlockChecksum(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "dense", "small.h5"))
	if err != nil {
		t.Fatal(err)
	}
	f := memFile(t, orig)
	heap, ids := heapIDs(t, f, "/g")
	id := ids[0]
	for _, x := range ids {
		if x[0]&0x30 == heapIDManaged {
			id = x
		}
	}
	_, at, err := f.heapObject(heap, id)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(orig)
	bad[at+5] ^= 0x10
	g := memFile(t, bad)
	if _, err := g.fractalHeapObject(heap, id); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("corrupt direct block: %v", err)
	}
}
