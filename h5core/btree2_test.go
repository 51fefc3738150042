package h5core

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBtree2Geometry(t *testing.T) {
	cases := []struct {
		node     uint64
		rec      int
		depth    int
		maxRecs  []uint64
		widths   []int
		nrecSize int
	}{
		// Link name index of a 3000-link group as libhdf5 1.10 writes it:
		// leaf (512-10)/11 = 45; depth 1: pointers of 8+1 bytes, (512-10-9)/20
		// = 24, 25*45+24 = 1149 records below (2 bytes); depth 2: pointers of
		// 8+1+2 bytes, (512-10-11)/22 = 22.
		{512, 11, 2, []uint64{45, 24, 22}, []int{0, 2, 2}, 1},
		// Chunk records of 24 bytes in 2048-byte nodes.
		{2048, 24, 1, []uint64{84, 61}, []int{0, 2}, 1},
		// More than 255 records in a leaf: two-byte record counts.
		{4096, 11, 1, []uint64{371, 194}, []int{0, 3}, 2},
	}
	for _, c := range cases {
		bt := &btree2{nodeSize: c.node, recSize: c.rec, depth: c.depth}
		if err := bt.geometry(8); err != nil {
			t.Fatal(err)
		}
		if !equalU64(bt.maxRecs, c.maxRecs) || bt.nrecWidth != c.nrecSize {
			t.Errorf("node %d rec %d: max records %v (count width %d), want %v (%d)", c.node, c.rec, bt.maxRecs, bt.nrecWidth, c.maxRecs, c.nrecSize)
		}
		for i, w := range c.widths {
			if bt.totalWidth[i] != w {
				t.Errorf("node %d rec %d: total width at depth %d = %d, want %d", c.node, c.rec, i, bt.totalWidth[i], w)
			}
		}
	}
	for _, bad := range []btree2{
		{nodeSize: 512, recSize: 0},
		{nodeSize: 12, recSize: 11},
		{nodeSize: 512, recSize: 11, depth: maxBtree2Depth + 1},
		{nodeSize: 30, recSize: 11, depth: 1}, // internal nodes hold no record
	} {
		if err := bad.geometry(8); err == nil {
			t.Errorf("geometry of %+v accepted", bad)
		}
	}
}

// linkIndex returns the link info of a dense group.
func linkIndex(t *testing.T, f *File, path string) *linkInfo {
	t.Helper()
	o, err := f.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m := o.oh.find(msgLinkInfo)
	if m == nil {
		t.Fatalf("%s: no link info message", path)
	}
	li, err := f.parseLinkInfo(m.data, m.addr)
	if err != nil {
		t.Fatal(err)
	}
	return li
}

// TestBtree2WalkFind walks the depth-2 name index of a 3000-link group:
// every record once, in hash order, each hash that of its link's name,
// and each found again by descending the tree.
func TestBtree2WalkFind(t *testing.T) {
	f, _ := denseFile(t, "links.h5")
	li := linkIndex(t, f, "/g3000")
	bt, err := f.readBtree2(li.nameIndexAddr, bt2LinkName, linkNameRecSize)
	if err != nil {
		t.Fatal(err)
	}
	if bt.depth < 2 {
		t.Fatalf("depth %d: the test wants internal nodes of both kinds", bt.depth)
	}
	var prev uint32
	var recs [][]byte
	err = f.walkBtree2(bt, func(rec []byte) error {
		h := binary.LittleEndian.Uint32(rec)
		if h < prev {
			t.Fatalf("hash %#x after %#x: records out of order", h, prev)
		}
		prev = h
		b, err := f.fractalHeapObject(li.heapAddr, rec[4:])
		if err != nil {
			return err
		}
		l, err := f.parseLink(b, 0)
		if err != nil {
			return err
		}
		if lookup3([]byte(l.Name), 0) != h {
			t.Fatalf("record hash %#x is not the hash of %q", h, l.Name)
		}
		recs = append(recs, append([]byte(nil), rec...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(recs)) != bt.total || len(recs) != 3000 {
		t.Fatalf("walked %d records, header counts %d", len(recs), bt.total)
	}
	for _, r := range recs {
		want := binary.LittleEndian.Uint32(r)
		got, err := f.findBtree2(bt, func(rec []byte) int {
			h := binary.LittleEndian.Uint32(rec)
			switch {
			case want < h:
				return -1
			case want > h:
				return 1
			}
			return 0
		})
		if err != nil || got == nil || binary.LittleEndian.Uint32(got) != want {
			t.Fatalf("find hash %#x: %x, %v", want, got, err)
		}
	}
	if got, err := f.findBtree2(bt, func([]byte) int { return 1 }); got != nil || err != nil {
		t.Fatalf("find past the last record: %x, %v", got, err)
	}
}

// memFile opens a modified copy of a test file.
func memFile(t *testing.T, b []byte) *File {
	t.Helper()
	f, err := NewFile(bytes.NewReader(b), int64(len(b)), "mem.h5", Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// rechecksum recomputes the trailing lookup3 checksum of b[at:at+n].
func rechecksum(b []byte, at, n uint64) {
	binary.LittleEndian.PutUint32(b[at+n-4:], lookup3(b[at:at+n-4], 0))
}

// TestBtree2Hostile edits the 3000-link name index: a child pointer back
// to the root (a loop), a record count beyond the node capacity, a bad
// checksum. Each must be an error naming the problem.
func TestBtree2Hostile(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "dense", "links.h5"))
	if err != nil {
		t.Fatal(err)
	}
	f := memFile(t, orig)
	li := linkIndex(t, f, "/g3000")
	bt, err := f.readBtree2(li.nameIndexAddr, bt2LinkName, linkNameRecSize)
	if err != nil {
		t.Fatal(err)
	}
	root, n := bt.root, bt.rootRecs
	ptrs := root + bt2Prefix + n*uint64(bt.recSize)
	ptrSize := uint64(f.so + bt.nrecWidth + bt.totalWidth[bt.depth-1])
	size := ptrs + (n+1)*ptrSize + 4 - root

	walk := func(b []byte) error {
		g := memFile(t, b)
		bt, err := g.readBtree2(li.nameIndexAddr, bt2LinkName, linkNameRecSize)
		if err != nil {
			return err
		}
		return g.walkBtree2(bt, func([]byte) error { return nil })
	}
	loop := bytes.Clone(orig)
	binary.LittleEndian.PutUint64(loop[ptrs:], root)
	rechecksum(loop, root, size)
	if err := walk(loop); err == nil || !strings.Contains(err.Error(), "loop") {
		t.Errorf("child pointer to the root: %v", err)
	}
	over := bytes.Clone(orig)
	over[ptrs+uint64(f.so)] = 0xff // first child's record count
	rechecksum(over, root, size)
	if err := walk(over); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("record count beyond capacity: %v", err)
	}
	sum := bytes.Clone(orig)
	sum[root+bt2Prefix] ^= 1
	if err := walk(sum); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("corrupt node: %v", err)
	}
}

func TestBtree2ChunkRecords(t *testing.T) {
	if w := chunkSizeWidth(80); w != 2 {
		t.Errorf("chunk size width for 80 bytes = %d, want 2", w)
	}
	if w := chunkSizeWidth(1 << 40); w != 7 {
		t.Errorf("chunk size width for 1 TiB = %d, want 7", w)
	}
	if w := chunkSizeWidth(1<<63 + 1); w != 8 {
		t.Errorf("chunk size width is capped at 8, got %d", w)
	}
	f, _ := denseFile(t, "chunks.h5")
	o, err := f.Open("/many")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := o.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	bt, err := f.readBtree2(ds.layout.addr, bt2Chunk, f.so+16)
	if err != nil {
		t.Fatal(err)
	}
	if bt.depth < 1 || bt.total != 3600 {
		t.Fatalf("chunk B-tree of depth %d with %d records: the test wants internal nodes and 3600 chunks", bt.depth, bt.total)
	}
}
