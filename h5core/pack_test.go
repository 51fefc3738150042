package h5core

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// checkPacking checks toPackedLE against element-wise appendPackedLE.
func checkPacking(t *testing.T, dt *Datatype, data []byte, n int) {
	t.Helper()
	var each []byte
	for i := range n {
		each = dt.appendPackedLE(each, data[i*dt.Size:(i+1)*dt.Size])
	}
	whole := dt.AppendPackedLE([]byte("prefix"), data, n)
	if !bytes.Equal(whole[6:], each) || string(whole[:6]) != "prefix" {
		t.Errorf("toPackedLE % x\nappendPackedLE % x", whole[6:], each)
	}
	if len(each) != n*dt.PackedSize() {
		t.Errorf("packed %d bytes for %d elements of packed size %d", len(each), n, dt.PackedSize())
	}
	// AppendStored inverts it: packed → stored → packed is the identity.
	stored, err := dt.AppendStored([]byte("prefix"), each, n)
	if err != nil || string(stored[:6]) != "prefix" || len(stored) != 6+n*dt.Size {
		t.Fatalf("%s: AppendStored: %d bytes, %v", dt, len(stored), err)
	}
	if again := dt.AppendPackedLE(nil, stored[6:], n); !bytes.Equal(again, each) {
		t.Errorf("%s: packed % x\nstored and packed again % x", dt, each, again)
	}
}

// The generator stores the same values in both byte orders: packing the
// big-endian dataset must give the little-endian one's bytes.
func TestToPackedLEMatchesLittleEndianTwin(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "dtypes", "dtypes.h5"))
	if err != nil {
		t.Fatal(err)
	}
	f := rawFile(raw)
	cases := map[string]testdataCase{}
	for _, c := range loadTestdata(t) {
		cases[c.Name] = c
	}
	pairs := 0
	for name, be := range cases {
		le, ok := cases[strings.TrimSuffix(name, "be")+"le"]
		if !strings.HasSuffix(name, "be") || !ok || le.Count != be.Count || le.Name == "i12at2le" {
			continue
		}
		pairs++
		dt := testdataType(t, be)
		bb, _ := f.read(be.Offset, uint64(be.Count*be.ElemSize))
		lb, _ := f.read(le.Offset, uint64(le.Count*le.ElemSize))
		if got := dt.AppendPackedLE(nil, bb, be.Count); !bytes.Equal(got, lb) {
			t.Errorf("%s packed % x, %s stores % x", name, got, le.Name, lb)
		}
	}
	if pairs < 9 {
		t.Errorf("only %d BE/LE pairs", pairs)
	}
}

func TestAppendPackedLE(t *testing.T) {
	cmp := dtMsg(6, 3, 3, 16, name0("a"), []byte{12}, i16le, name0("b"), []byte{0}, f64be, name0("c"), []byte{8}, u16be)
	elem := []byte{1, 2, 3, 4, 5, 6, 7, 8, 0xaa, 0xbb, 0, 0, 0x11, 0x22, 0, 0}
	cases := []struct {
		name string
		msg  []byte
		elem []byte
		want []byte
	}{
		{"LE int", i32le, []byte{1, 2, 3, 4}, []byte{1, 2, 3, 4}},
		{"BE int", i32be, []byte{1, 2, 3, 4}, []byte{4, 3, 2, 1}},
		{"BE 3-byte int", dtMsg(0, 1, 1, 3, le16(0), le16(24)), []byte{1, 2, 3}, []byte{3, 2, 1}},
		{"BE 12 bits at 2, shifted down as libhdf5 reads them", dtMsg(0, 1, 9, 2, le16(2), le16(12)), []byte{0x12, 0x34}, []byte{0x8d, 0x04}},
		{"LE signed 12 bits at 2, sign-extended", dtMsg(0, 1, 8, 2, le16(2), le16(12)), []byte{0xfc, 0x3f}, []byte{0xff, 0xff}},
		{"VAX", vaxF, []byte{0x80, 0x40, 0, 0}, []byte{0, 0, 0x80, 0x40}},
		{"VAX double", dtMsg(1, 3, 0x61|63<<8, 8, le16(0), le16(64), []byte{55, 8, 0, 55}, le32(129)),
			[]byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{7, 8, 5, 6, 3, 4, 1, 2}},
		{"string as stored", dtMsg(3, 1, 0, 3), []byte("ab\x00"), []byte("ab\x00")},
		{"compound packed in declaration order", cmp, elem, []byte{0x11, 0x22, 8, 7, 6, 5, 4, 3, 2, 1, 0xbb, 0xaa}},
		{"array of compounds", dtMsg(10, 3, 0, 32, []byte{1}, le32(2), cmp), append(slices.Clone(elem), elem...),
			[]byte{0x11, 0x22, 8, 7, 6, 5, 4, 3, 2, 1, 0xbb, 0xaa, 0x11, 0x22, 8, 7, 6, 5, 4, 3, 2, 1, 0xbb, 0xaa}},
		{"array of BE", dtMsg(10, 3, 0, 8, []byte{1}, le32(2), i32be), []byte{1, 2, 3, 4, 5, 6, 7, 8}, []byte{4, 3, 2, 1, 8, 7, 6, 5}},
		{"enum BE", dtMsg(8, 3, 0, 2, u16be), []byte{1, 2}, []byte{2, 1}},
		{"complex BE", dtMsg(11, 5, 1, 16, f64be), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
			[]byte{8, 7, 6, 5, 4, 3, 2, 1, 16, 15, 14, 13, 12, 11, 10, 9}},
		{"short element zero-extended", i32be, []byte{1, 2}, []byte{0, 0, 2, 1}},
	}
	for _, c := range cases {
		dt := mustType(t, c.msg)
		if got := dt.appendPackedLE(nil, c.elem); !bytes.Equal(got, c.want) {
			t.Errorf("%s: % x, want % x", c.name, got, c.want)
		}
		// A type built by hand (no cached ops) packs the same way.
		hand := *dt
		hand.pack = nil
		if got := hand.appendPackedLE(nil, c.elem); !bytes.Equal(got, c.want) {
			t.Errorf("%s without cached ops: % x", c.name, got)
		}
		if len(c.elem) >= dt.Size {
			checkPacking(t, dt, bytes.Repeat(c.elem[:dt.Size], 3), 3)
		}
	}
}

func TestPackOpsMerge(t *testing.T) {
	// A packed compound of LE fields is one copy; an array of BE ints one swap.
	if ops := mustType(t, compoundV2).packOps(); len(ops) != 1 || ops[0].kind != packCopy || ops[0].size != 12 {
		t.Errorf("compound ops %+v", ops)
	}
	if ops := mustType(t, dtMsg(10, 3, 0, 400, []byte{2}, le32(10), le32(10), i32be)).packOps(); len(ops) != 1 || ops[0].count != 100 {
		t.Errorf("array ops %+v", ops)
	}
}

func TestToPackedLEShortSource(t *testing.T) {
	dt := mustType(t, i32be)
	if got := dt.AppendPackedLE(nil, []byte{1, 2, 3, 4, 5, 6}, 5); !bytes.Equal(got, []byte{4, 3, 2, 1}) {
		t.Errorf("got % x", got)
	}
}

func TestSwapKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{2, 3, 4, 8, 16} {
		for n := 0; n < 12; n++ {
			src := make([]byte, size*n)
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			want := make([]byte, len(src))
			for i := 0; i < len(src); i += size {
				for j := range size {
					want[i+j] = src[i+size-1-j]
				}
			}
			got := make([]byte, len(src))
			packItems(got, src, packSwap, size)
			if !bytes.Equal(got, want) {
				t.Errorf("size %d n %d: % x, want % x", size, n, got, want)
			}
		}
	}
}

func BenchmarkToPackedLE(b *testing.B) {
	const n = 1 << 16
	for _, c := range []struct {
		name string
		msg  []byte
	}{
		{"f64le", f64le}, {"f64be", f64be}, {"i32be", i32be}, {"i16be", intMsg(2, true, true)},
		{"compound_le", compoundV2},
		{"compound_mixed", dtMsg(6, 3, 3, 16, name0("a"), []byte{12}, i16le, name0("b"), []byte{0}, f64be, name0("c"), []byte{8}, u16be)},
	} {
		dt := mustType(b, c.msg)
		src := make([]byte, n*dt.Size)
		dst := make([]byte, 0, n*dt.PackedSize())
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				dst = dt.AppendPackedLE(dst[:0], src, n)
			}
		})
	}
}

func TestAppendStored(t *testing.T) {
	cmp := dtMsg(6, 3, 3, 16, name0("a"), []byte{12}, i16le, name0("b"), []byte{0}, f64be, name0("c"), []byte{8}, u16be)
	s12at2 := dtMsg(0, 1, 8, 2, le16(2), le16(12)) // signed LE, 12 bits at bit 2
	u12at2 := dtMsg(0, 1, 9, 2, le16(2), le16(12)) // unsigned BE, 12 bits at bit 2
	for _, c := range []struct {
		name   string
		msg    []byte
		packed []byte
		want   string // stored bytes in hex, or "error: ..."
	}{
		{"LE int copied", i32le, []byte{1, 2, 3, 4}, "01020304"},
		{"BE int swapped", i32be, []byte{1, 2, 3, 4}, "04030201"},
		{"BE 3-byte int", dtMsg(0, 1, 1, 3, le16(0), le16(24)), []byte{1, 2, 3}, "030201"},
		{"VAX words reversed", vaxF, []byte{0, 0, 0x80, 0x40}, "80400000"},
		{"signed 12 bits at 2: -1", s12at2, []byte{0xff, 0xff}, "fc3f"},
		{"signed 12 bits at 2: 2047", s12at2, []byte{0xff, 0x07}, "fc1f"},
		{"signed 12 bits at 2: -2048", s12at2, []byte{0x00, 0xf8}, "0020"},
		{"signed 12 bits at 2: 2048 does not fit", s12at2, []byte{0x00, 0x08}, "error: value 2048 does not fit"},
		{"signed 12 bits at 2: -2049 does not fit", s12at2, []byte{0xff, 0xf7}, "error: value -2049 does not fit"},
		{"unsigned BE 12 bits at 2", u12at2, []byte{0x8d, 0x04}, "1234"},
		{"unsigned BE 12 bits at 2: 4096 does not fit", u12at2, []byte{0x00, 0x10}, "error: value 4096 does not fit"},
		{"compound: padding zero", cmp, []byte{0x11, 0x22, 8, 7, 6, 5, 4, 3, 2, 1, 0xbb, 0xaa}, "0102030405060708aabb000011220000"},
		{"array of BE", dtMsg(10, 3, 0, 8, []byte{1}, le32(2), i32be), []byte{4, 3, 2, 1, 8, 7, 6, 5}, "0102030405060708"},
		{"enum BE", dtMsg(8, 3, 0, 2, u16be), []byte{2, 1}, "0102"},
	} {
		dt := mustType(t, c.msg)
		got, err := dt.AppendStored(nil, c.packed, 1)
		if want, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "element 0") {
				t.Errorf("%s: got % x, %v; want error %q", c.name, got, err, want)
			}
			continue
		}
		if err != nil || hex.EncodeToString(got) != c.want {
			t.Errorf("%s: got %x, %v; want %s", c.name, got, err, c.want)
		}
	}
	// short input: only complete elements
	if got, err := mustType(t, i32be).AppendStored(nil, []byte{1, 2, 3, 4, 5, 6}, 5); err != nil || !bytes.Equal(got, []byte{4, 3, 2, 1}) {
		t.Errorf("short input: % x, %v", got, err)
	}
}
