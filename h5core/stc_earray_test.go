package h5core

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
)

// TestStructuredPagedExtensibleArray reads a hand-built extensible array
// of structured-chunk records (2 sections, unfiltered) whose last super
// block has paged data blocks, one page never initialised, with the
// ordinary extensible array reader. The dataset is 6×18 in chunks of 2×2,
// the second dimension unlimited, so entries are swizzled.
func TestStructuredPagedExtensibleArray(t *testing.T) {
	const (
		hdr    = 8
		es     = 8 + 2 + 8 // address, chunk size (csl 2), offset of section 1
		maxIdx = 27
		head   = 6 + 8 + 1 // data and super block prefix: offset field of 1 byte
	)
	le := binary.LittleEndian
	present := func(i uint64) bool { return i != 5 && (i < 19 || i >= 23) && i < maxIdx }
	entry := func(b []byte, i uint64) []byte {
		if !present(i) {
			return append(b, bytes.Repeat([]byte{0xff}, es)...)
		}
		b = le.AppendUint64(b, 1000+i)
		b = le.AppendUint16(b, uint16(10+i))
		return le.AppendUint64(b, i/2)
	}
	b := make([]byte, hdr+72) // header written last
	seal := func(start int) { b = le.AppendUint32(b, Checksum(b[start:])) }
	prefix := func(sig string) int {
		start := len(b)
		b = append(b, sig...)
		b = append(b, 1, 2)
		b = le.AppendUint64(b, hdr)
		return start
	}
	dblock := func(first, n uint64) uint64 { // not paged
		start := prefix("EADB")
		b = append(b, byte(first))
		for i := first; i < first+n; i++ {
			b = entry(b, i)
		}
		seal(start)
		return uint64(start)
	}
	u0, u1 := dblock(1, 2), dblock(3, 4)
	u2a, u2b := dblock(7, 4), dblock(11, 4)
	var u3 [2]uint64
	for k := range u3 { // 8 entries in pages of 4; page 1 of both is uninitialised
		first := 15 + 8*uint64(k)
		start := prefix("EADB")
		b = append(b, byte(first))
		seal(start)
		page := len(b)
		for i := first; i < first+4; i++ {
			b = entry(b, i)
		}
		seal(page)
		b = append(b, bytes.Repeat([]byte{0xab}, 4*es+4)...)
		u3[k] = uint64(start)
	}
	sblock := func(first uint64, bitmap []byte, dblks ...uint64) uint64 {
		start := prefix("EASB")
		b = append(b, byte(first))
		b = append(b, bitmap...)
		for _, a := range dblks {
			b = le.AppendUint64(b, a)
		}
		seal(start)
		return uint64(start)
	}
	s2 := sblock(7, nil, u2a, u2b)
	s3 := sblock(15, []byte{0xa0, 0}, u3[0], u3[1]) // bits 0 and 2: page 0 of each
	start := prefix("EAIB")
	b = entry(b, 0)
	for _, a := range []uint64{u0, u1, s2, s3, undefAddr} {
		b = le.AppendUint64(b, a)
	}
	seal(start)
	iblk := uint64(start)

	h := append([]byte("EAHD"), 1, 2, es, 5, 1, 2, 2, 2) // max bits 5, 1 entry in the index block, 2, 2, page bits 2
	h = append(h, make([]byte, 4*8)...)
	h = le.AppendUint64(h, maxIdx)
	h = le.AppendUint64(h, maxIdx)
	h = le.AppendUint64(h, iblk)
	h = le.AppendUint32(h, Checksum(h))
	copy(b[hdr:], h)

	f := &File{r: bytes.NewReader(b), so: 8, sl: 8}
	f.size.Store(int64(len(b)))
	l := &layout{addr: hdr, index: IndexExtensibleArr, stc: &stcLayout{sections: 2, csl: 2}}
	g := &chunkGeom{dims: []uint64{6, 18}, maxDims: []uint64{6, unlimited}, chunk: []uint64{2, 2}, elemSize: 4}
	x, err := f.newChunkIndex(l, g)
	if err != nil {
		t.Fatal(err)
	}
	var want []uint64 // entry numbers, in row-major order of the chunks
	for s0 := uint64(0); s0 < 3; s0++ {
		for s1 := uint64(0); s1 < 9; s1++ {
			i := s1*3 + s0
			loc, err := x.chunk([]uint64{s0, s1})
			if err != nil {
				t.Fatal(err)
			}
			if !present(i) {
				if loc.addr != undefAddr {
					t.Errorf("chunk [%d %d]: entry %d at %d, want none", s0, s1, i, loc.addr)
				}
				continue
			}
			want = append(want, i)
			if loc.addr != 1000+i || loc.size != 10+i || loc.stc == nil || loc.stc.offsets[1] != i/2 {
				t.Errorf("chunk [%d %d]: %+v %+v, want entry %d", s0, s1, loc, loc.stc, i)
			}
		}
	}
	var got []uint64
	err = x.forEach(func(loc chunkLoc) error {
		if i := loc.scaled[1]*3 + loc.scaled[0]; loc.addr == 1000+i && loc.stc.offsets[1] == i/2 {
			got = append(got, i)
		} else {
			t.Errorf("chunk %v: %+v", loc.scaled, loc)
		}
		return nil
	})
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("forEach visits entries %v (%v), want %v", got, err, want)
	}
}
