package h5core

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// memFile is a File over b with 8-byte offsets and lengths.
func mustType(t testing.TB, msg []byte) *Datatype {
	t.Helper()
	dt, _, err := parseDatatype(msg, 0)
	if err != nil {
		t.Fatal(err)
	}
	return dt
}

// ---- real-file vectors from testdata/gen_dtypes.py ----

func TestElementValuesTestdata(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "dtypes", "dtypes.h5"))
	if err != nil {
		t.Fatal(err)
	}
	f := rawFile(raw)
	for _, c := range loadTestdata(t) {
		t.Run(c.Name, func(t *testing.T) {
			dt := testdataType(t, c)
			if !dt.IsFixedSize() {
				// H5Tencode records the in-memory size of vlen types.
				dt.Size = c.ElemSize
			}
			data, err := f.read(c.Offset, uint64(c.Count*c.ElemSize))
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range c.Values {
				v, err := f.elementValue(dt, data[i*dt.Size:])
				if err != nil {
					t.Fatalf("element %d: %v", i, err)
				}
				var w any
				dec := json.NewDecoder(bytes.NewReader(want))
				dec.UseNumber()
				if err := dec.Decode(&w); err != nil {
					t.Fatal(err)
				}
				if err := sameValue(w, v); err != nil {
					t.Errorf("element %d = %s: %v", i, FormatValue(v), err)
				}
			}
			if dt.IsFixedSize() {
				checkPacking(t, dt, data, c.Count)
			}
		})
	}
}

// sameValue compares a value from elementValue with its JSON form written
// by gen_dtypes.py (expect()).
func sameValue(want, got any) error {
	switch w := want.(type) {
	case json.Number:
		switch g := got.(type) {
		case int64:
			if w.String() == fmt.Sprint(g) {
				return nil
			}
		case uint64:
			if w.String() == fmt.Sprint(g) {
				return nil
			}
		case float32, float64:
			wf, err := w.Float64()
			if err == nil && wf == toFloat64(g) && math.Signbit(wf) == math.Signbit(toFloat64(g)) {
				return nil
			}
		}
	case string:
		switch g := got.(type) {
		case string:
			if g == w {
				return nil
			}
		case float32, float64:
			if FormatValue(g) == w {
				return nil
			}
		}
	case []any:
		var items []any
		switch g := got.(type) {
		case []any:
			items = g
		case Compound:
			if len(g) != len(w) {
				return fmt.Errorf("%d fields, want %d", len(g), len(w))
			}
			for i, fv := range g {
				pair := w[i].([]any)
				if pair[0] != fv.Name {
					return fmt.Errorf("field %d named %q, want %q", i, fv.Name, pair[0])
				}
				if err := sameValue(pair[1], fv.Value); err != nil {
					return fmt.Errorf("field %s: %v", fv.Name, err)
				}
			}
			return nil
		default:
			return fmt.Errorf("got %T, want a list", got)
		}
		if len(items) != len(w) {
			return fmt.Errorf("%d items, want %d", len(items), len(w))
		}
		for i := range items {
			if err := sameValue(w[i], items[i]); err != nil {
				return fmt.Errorf("item %d: %v", i, err)
			}
		}
		return nil
	case map[string]any:
		switch g := got.(type) {
		case EnumValue:
			if w["enum"] == g.Name && w["value"].(json.Number).String() == fmt.Sprint(g.Value) {
				return nil
			}
		case []byte:
			if w["bytes"] == fmt.Sprintf("%x", g) {
				return nil
			}
		case ObjectRef:
			if w["object"].(json.Number).String() == fmt.Sprint(uint64(g)) {
				return nil
			}
		case RegionRef:
			if w["region"].(json.Number).String() == fmt.Sprint(g.Object) && len(g.Selection) > 0 {
				return nil
			}
		}
	}
	return fmt.Errorf("got %T %v, want %v", got, got, want)
}

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

// ---- packing of hand-made types ----

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

// ---- values of hand-made types ----

func TestElementValue(t *testing.T) {
	f := rawFile(nil)
	big128, _ := new(big.Int).SetString("-170141183460469231731687303715884105728", 10)
	cases := []struct {
		name string
		msg  []byte
		elem []byte
		want string
	}{
		{"int8", i8, []byte{0x80}, "-128"},
		{"uint16 BE", u16be, []byte{0xea, 0x60}, "60000"},
		{"int 12 bits at 2 LE", dtMsg(0, 1, 8, 2, le16(2), le16(12)), []byte{0xfc, 0xff}, "-1"},
		{"uint 12 bits at 2 BE", dtMsg(0, 1, 1, 2, le16(2), le16(12)), []byte{0x20, 0x04}, "2049"},
		{"int 3 bytes BE", dtMsg(0, 1, 9, 3, le16(0), le16(24)), []byte{0xff, 0xff, 0xfe}, "-2"},
		{"int128 min", dtMsg(0, 1, 8, 16, le16(0), le16(128)), append(make([]byte, 15), 0x80), big128.String()},
		{"uint128", dtMsg(0, 1, 0, 16, le16(0), le16(128)), append([]byte{5}, make([]byte, 15)...), "5"},
		{"int 70 bits at 3", dtMsg(0, 1, 8, 10, le16(3), le16(70)), []byte{0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "-1"},
		{"bitfield", dtMsg(4, 1, 1, 2, le16(0), le16(16)), []byte{0x80, 0x01}, "32769"},
		{"time", dtMsg(2, 1, 1, 4, le16(32)), []byte{0x65, 0x53, 0xf1, 0x00}, "1700000000"},
		{"float16", f16le, []byte{0x00, 0x3e}, "1.5"},
		{"float16 subnormal", f16le, []byte{0x01, 0x80}, "-5.960464477539063e-08"},
		{"float16 inf", f16le, []byte{0x00, 0x7c}, "inf"},
		{"float16 nan", f16le, []byte{0x01, 0x7c}, "nan"},
		{"float32", f32le, binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.1)), "0.1"},
		{"float64 BE", f64be, binary.BigEndian.AppendUint64(nil, math.Float64bits(-2.5e-300)), "-2.5e-300"},
		{"VAX F 1.0", vaxF, []byte{0x80, 0x40, 0, 0}, "1"},
		{"VAX F -0.75", vaxF, []byte{0x40, 0xc0, 0, 0}, "-0.75"},
		{"bfloat16", dtMsg(1, 1, 0x20|15<<8, 2, le16(0), le16(16), []byte{7, 8, 0, 7}, le32(127)), []byte{0xc0, 0x3f}, "1.5"},
		{"x87 1.5", x87, x87Bytes(0x3fff, 0xc000000000000000), "1.5"},
		{"x87 -3", x87, x87Bytes(0x8000|0x4000, 0xc000000000000000), "-3"},
		{"x87 inf", x87, x87Bytes(0x7fff, 0x8000000000000000), "inf"},
		{"x87 nan", x87, x87Bytes(0x7fff, 0xc000000000000000), "nan"},
		{"x87 subnormal", x87, x87Bytes(0, 1), "0"},
		{"24-bit float, no normalization", dtMsg(1, 1, 23<<8, 3, le16(0), le16(24), []byte{16, 7, 0, 16}, le32(63)),
			[]byte{0x00, 0x80, 0x3f}, "1"},
		{"E4M3 max", dtMsg(1, 1, 0x20|7<<8, 1, le16(0), le16(8), []byte{3, 4, 0, 3}, le32(7)), []byte{0x7e}, "448"},
		{"E4M3 nan", dtMsg(1, 1, 0x20|7<<8, 1, le16(0), le16(8), []byte{3, 4, 0, 3}, le32(7)), []byte{0xff}, "nan"},
		{"complex", dtMsg(11, 5, 1, 8, f32le), cat(le32(int(math.Float32bits(1.5))), le32(int(math.Float32bits(-2)))), "1.5-2i"},
		{"string nullterm", dtMsg(3, 1, 0, 6), []byte("ab\x00cd\x00"), `"ab"`},
		{"string nullpad", dtMsg(3, 1, 1, 6), []byte("a\x00b\x00\x00\x00"), `"a\x00b"`},
		{"string spacepad", dtMsg(3, 1, 2, 6), []byte("ab c  "), `"ab c"`},
		{"string utf-8", dtMsg(3, 1, 0x11, 4), []byte("é\x00\x00"), `"é"`},
		{"opaque", dtMsg(5, 1, 0, 3), []byte{1, 2, 255}, "0x0102ff"},
		{"compound", compoundV2, cat(le32(int(math.Float32bits(2.5))), le32(0), le32(-7)), "{2.5, 0, -7}"},
		{"enum", validMsg("enum v3"), []byte{0xea, 0x60}, "HIGH"},
		{"enum unknown value", validMsg("enum v3"), []byte{0, 7}, "7"},
		{"array", validMsg("array v2 with permutation"), cat(le32(1), le32(2), le32(3), le32(4), le32(5), le32(-6)), "[1, 2, 3, 4, 5, -6]"},
		{"object reference", dtMsg(7, 1, 0, 8), le32(0x578)[:4:4], ""},
		{"object reference", dtMsg(7, 1, 0, 8), append(le32(0x578), 0, 0, 0, 0), "object(1400)"},
		{"null object reference", dtMsg(7, 1, 0, 8), make([]byte, 8), "NULL"},
		{"undefined object reference", dtMsg(7, 1, 0, 4), []byte{255, 255, 255, 255}, "NULL"},
		{"null region reference", dtMsg(7, 1, 1, 12), make([]byte, 12), "NULL"},
		{"null revised reference", dtMsg(7, 4, 0x12, 18), make([]byte, 18), "NULL"},
		{"revised object reference inline", dtMsg(7, 4, 0x12, 18), cat([]byte{2, 0, 8}, le32(0x800), make([]byte, 11)), "object(2048)"},
		{"empty vlen string", dtMsg(9, 1, 1, 16, u8), make([]byte, 16), `""`},
		{"empty vlen sequence", dtMsg(9, 1, 0, 16, i32le), make([]byte, 16), "[]"},
	}
	for _, c := range cases {
		dt := mustType(t, c.msg)
		v, err := f.elementValue(dt, c.elem)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: got %v, want an error", c.name, v)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := FormatValue(v); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// x87 is the 80-bit extended float as libhdf5 describes it: explicit
// leading mantissa bit, no normalization, in 16 bytes.
var x87 = dtMsg(1, 1, 79<<8, 16, le16(0), le16(80), []byte{64, 15, 0, 64}, le32(16383))

func x87Bytes(signExp uint16, mant uint64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, mant)
	b = binary.LittleEndian.AppendUint16(b, signExp)
	return append(b, make([]byte, 6)...)
}

func TestElementValueTypes(t *testing.T) {
	f := rawFile(nil)
	check := func(msg, elem []byte, want any) {
		t.Helper()
		v, err := f.elementValue(mustType(t, msg), elem)
		if err != nil || !reflect.DeepEqual(v, want) {
			t.Errorf("got %#v (%v), want %#v", v, err, want)
		}
	}
	check(i32be, []byte{0xff, 0xff, 0xff, 0xfe}, int64(-2))
	check(u16be, []byte{0xff, 0xfe}, uint64(0xfffe))
	check(f32le, le32(int(math.Float32bits(0.1))), float32(0.1))
	check(f16le, []byte{0x00, 0x3c}, float64(1))
	check(dtMsg(2, 1, 0, 4, le16(32)), []byte{0xff, 0xff, 0xff, 0xff}, int64(0xffffffff))
	check(validMsg("enum v3"), []byte{0, 1}, EnumValue{"LOW", 1})
	check(compoundV2, make([]byte, 12), Compound{{"x", float32(0)}, {"y", float32(0)}, {"id", int64(0)}})
	check(dtMsg(7, 1, 0, 8), append(le32(0x578), 0, 0, 0, 0), ObjectRef(0x578))
}

func TestElementValueShort(t *testing.T) {
	if _, err := rawFile(nil).elementValue(mustType(t, i32le), []byte{1, 2}); err == nil {
		t.Error("no error for a short element")
	}
}

// The fast IEEE paths and the generic decoder agree on every kind of value.
func TestGenericFloatMatchesIEEE(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, msg := range [][]byte{f16le, f32le, f64le} {
		dt := mustType(t, msg)
		elem := make([]byte, dt.Size)
		for i := range 20000 {
			for j := range elem {
				elem[j] = byte(rng.Uint32())
			}
			if i < 4 { // zeros, and all-ones exponents
				clear(elem)
				elem[dt.Size-1] = [4]byte{0, 0x80, 0x7f, 0xff}[i]
			}
			fast := toFloat64(dt.floatValue(elem))
			slow := dt.genericFloat(elem)
			if fast != slow && !(math.IsNaN(fast) && math.IsNaN(slow)) || math.Signbit(fast) != math.Signbit(slow) && !math.IsNaN(fast) {
				t.Fatalf("%s % x: fast %v, generic %v", dt, elem, fast, slow)
			}
		}
	}
}

// ---- global heap, variable-length data and references ----

// heapFile builds a file holding a global heap collection at 0x40 with the
// given objects (index -> data), followed by a free-space object.
func heapFile(objs map[uint16][]byte, order ...uint16) []byte {
	b := make([]byte, 0x40)
	coll := []byte("GCOL\x01\x00\x00\x00")
	coll = binary.LittleEndian.AppendUint64(coll, 0) // size, set below
	for _, idx := range order {
		data := objs[idx]
		coll = binary.LittleEndian.AppendUint16(coll, idx)
		coll = append(coll, 1, 0, 0, 0, 0, 0)
		coll = binary.LittleEndian.AppendUint64(coll, uint64(len(data)))
		coll = append(coll, data...)
		coll = append(coll, make([]byte, align8(len(data))-len(data))...)
	}
	free := max(4096, len(coll)+16) - len(coll)
	coll = append(coll, 0, 0, 0, 0, 0, 0, 0, 0)
	coll = binary.LittleEndian.AppendUint64(coll, uint64(free))
	coll = append(coll, make([]byte, free-16)...)
	binary.LittleEndian.PutUint64(coll[8:], uint64(len(coll)))
	return append(b, coll...)
}

// heapID is a global heap id: collection address and object index.
func heapID(addr uint64, index uint32) []byte {
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, addr), index)
}

func TestGlobalHeap(t *testing.T) {
	file := heapFile(map[uint16][]byte{1: []byte("hello"), 7: {}, 3: bytes.Repeat([]byte{9}, 20)}, 3, 1, 7)
	f := rawFile(file)
	for idx, want := range map[uint32]string{1: "hello", 7: "", 3: string(bytes.Repeat([]byte{9}, 20))} {
		got, err := f.globalHeapObject(0x40, idx)
		if err != nil || string(got) != want {
			t.Errorf("object %d: %q %v, want %q", idx, got, err, want)
		}
	}
	if len(f.gheaps) != 1 {
		t.Errorf("%d cached collections", len(f.gheaps))
	}
	for _, c := range []struct {
		addr  uint64
		index uint32
		want  string
	}{
		{0x40, 2, "no object 2"},
		{0x40, 0, "index 0"},
		{0x40, 70000, "index 70000"},
		{0x10, 1, "signature"},
		{0x2000, 1, "beyond the end"},
		{undefAddr, 1, "beyond the end"},
	} {
		if _, err := f.globalHeapObject(c.addr, c.index); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("object %d at %#x: %v, want %q", c.index, c.addr, err, c.want)
		}
	}
}

func TestGlobalHeapCorrupt(t *testing.T) {
	good := heapFile(map[uint16][]byte{1: []byte("hello"), 2: []byte("x")}, 1, 2)
	cases := []struct {
		name  string
		patch func(b []byte) []byte
		want  string
	}{
		{"version", func(b []byte) []byte { b[0x44] = 2; return b }, "version 2"},
		{"size below header", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[0x48:], 8); return b }, "below its 16-byte header"},
		{"size beyond the file", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[0x48:], 1<<40); return b }, "beyond the end of the file"},
		{"object overruns", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[0x58:], 5000); return b }, "overruns its collection"},
		{"duplicate index", func(b []byte) []byte { b[0x68] = 1; return b }, "appears twice"},
		{"free space of 0 bytes", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[0x88:], 0); return b }, "free space of 0 bytes"},
		{"truncated file", func(b []byte) []byte { return b[:0x4c] }, "truncated"},
	}
	for _, c := range cases {
		f := rawFile(c.patch(slices.Clone(good)))
		if _, err := f.globalHeapObject(0x40, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// A collection bigger than the first read is read whole.
	big := heapFile(map[uint16][]byte{1: bytes.Repeat([]byte{7}, 5000)}, 1)
	if v, err := rawFile(big).globalHeapObject(0x40, 1); err != nil || len(v) != 5000 {
		t.Errorf("large object: %d bytes, %v", len(v), err)
	}
}

func TestGlobalHeapCacheBudget(t *testing.T) {
	f := rawFile(heapFile(map[uint16][]byte{1: []byte("a")}, 1))
	for a := range uint64(gheapCacheMax + 10) {
		f.cacheGlobalHeap(a+1000, &globalHeap{data: make([]byte, 16)})
	}
	if len(f.gheaps) > gheapCacheMax {
		t.Errorf("%d cached collections", len(f.gheaps))
	}
	f.cacheGlobalHeap(1, &globalHeap{data: make([]byte, gheapCacheBytes-100)})
	total := 0
	for _, h := range f.gheaps {
		total += len(h.data)
	}
	if total > gheapCacheBytes || f.gheaps[1] == nil {
		t.Errorf("cache holds %d bytes", total)
	}
	f.cacheGlobalHeap(2, &globalHeap{data: make([]byte, gheapCacheBytes+1)})
	if f.gheaps[2] != nil {
		t.Error("cached a collection larger than the budget")
	}
}

func TestVlenAndHeapReferences(t *testing.T) {
	seq := []byte{0, 1, 0, 2, 0xff, 0xfd} // int16 BE 1, 2, -3
	region := cat(binary.LittleEndian.AppendUint64(nil, 0x578), []byte{2, 0, 0, 0, 1, 2, 3})
	ext := cat([]byte{8}, binary.LittleEndian.AppendUint64(nil, 0x900), le16(7), []byte("other.h"))
	reg2 := cat([]byte{8}, binary.LittleEndian.AppendUint64(nil, 0x900), le32(3), []byte{1, 2, 3})
	attr := cat([]byte{8}, binary.LittleEndian.AppendUint64(nil, 0x900), le16(5), []byte("units"))
	f := rawFile(heapFile(map[uint16][]byte{1: []byte("héllo\x00"), 2: seq, 3: region, 4: ext, 5: reg2, 6: attr, 7: {1, 2, 3, 4}},
		1, 2, 3, 4, 5, 6, 7))
	vstr := mustType(t, dtMsg(9, 1, 0x101, 16, u8))
	vseq := mustType(t, dtMsg(9, 1, 0, 16, dtMsg(0, 1, 9, 2, le16(0), le16(16))))
	rev := mustType(t, dtMsg(7, 4, 0x13, 18))
	cases := []struct {
		name string
		dt   *Datatype
		elem []byte
		want string
	}{
		{"vlen string", vstr, cat(le32(7), heapID(0x40, 1)), `"héllo"`},
		{"vlen string prefix", vstr, cat(le32(2), heapID(0x40, 1)), `"h\xc3"`},
		{"vlen sequence", vseq, cat(le32(3), heapID(0x40, 2)), "[1, 2, -3]"},
		{"region reference", mustType(t, dtMsg(7, 1, 1, 12)), heapID(0x40, 3), "region(1400)"},
		{"external object reference", rev, cat([]byte{2, 1}, le32(len(ext)), heapID(0x40, 4)), `object("other.h", 2304)`},
		{"region2 reference", rev, cat([]byte{3, 0}, le32(len(reg2)), heapID(0x40, 5)), "region(2304)"},
		{"attribute reference", rev, cat([]byte{4, 0}, le32(len(attr)), heapID(0x40, 6)), `attribute(2304, "units")`},
		{"region reference short heap object", mustType(t, dtMsg(7, 1, 1, 12)), heapID(0x40, 7), "heap object 7 of 4 bytes"},
		{"vlen longer than its heap object", vstr, cat(le32(8), heapID(0x40, 1)), "claims 8 items"},
		{"vlen sequence longer than its heap object", vseq, cat(le32(4), heapID(0x40, 2)), "claims 4 items of 2 bytes"},
		{"vlen bad heap address", vstr, cat(le32(1), heapID(0x41, 1)), "signature"},
		{"vlen heap beyond the file", vstr, cat(le32(1), heapID(1<<40, 1)), "beyond the end"},
		{"vlen missing object", vstr, cat(le32(1), heapID(0x40, 9)), "no object 9"},
		{"vlen truncated heap id", mustType(t, dtMsg(9, 1, 0x101, 8, u8)), cat(le32(1), le32(0x40)), "global heap id of 4 bytes"},
		{"revised reference longer than its heap object", rev, cat([]byte{3, 0}, le32(100), heapID(0x40, 5)), "claims 100 bytes"},
		{"revised reference bad type", rev, cat([]byte{9, 0}, make([]byte, 16)), "of type 9"},
		{"revised reference truncated blob", rev, cat([]byte{4, 0}, le32(10), heapID(0x40, 6)), "truncated"},
		{"revised reference huge token", rev, cat([]byte{2, 0, 20}, make([]byte, 30)), "token of 20 bytes"},
	}
	for _, c := range cases {
		v, err := f.elementValue(c.dt, c.elem)
		got := FormatValue(v)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	v, _ := f.elementValue(rev, cat([]byte{3, 0}, le32(len(reg2)), heapID(0x40, 5)))
	if r := v.(Reference); r.Type != RefRegion2 || !bytes.Equal(r.Region, []byte{1, 2, 3}) || len(r.Token) != 8 {
		t.Errorf("region2 reference %+v", r)
	}
	v, _ = f.elementValue(mustType(t, dtMsg(7, 1, 1, 12)), heapID(0x40, 3))
	if r := v.(RegionRef); !bytes.Equal(r.Selection, []byte{2, 0, 0, 0, 1, 2, 3}) {
		t.Errorf("region reference %+v", r)
	}
}

func TestFormatValue(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{nil, "NULL"},
		{int64(-3), "-3"},
		{uint64(math.MaxUint64), "18446744073709551615"},
		{float32(0.1), "0.1"},
		{0.1, "0.1"},
		{1e21, "1e+21"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
		{complex(1, -2), "1-2i"},
		{complex(0, math.NaN()), "0+nani"},
		{"a\"b\n", `"a\"b\n"`},
		{[]byte{0xde, 0xad}, "0xdead"},
		{Compound{{"a", int64(1)}, {"b", 2.5}, {"c", "x"}}, `{1, 2.5, "x"}`},
		{[]any{int64(1), []any{}, Compound{}}, "[1, [], {}]"},
		{EnumValue{"RED", 0}, "RED"},
		{EnumValue{"", -4}, "-4"},
		{ObjectRef(0), "NULL"},
		{ObjectRef(96), "object(96)"},
		{RegionRef{Object: 96}, "region(96)"},
		{RegionRef{}, "NULL"},
		{Reference{}, "NULL"},
		{Reference{Type: RefObject2, Object: 5, File: "f.h5"}, `object("f.h5", 5)`},
		{Reference{Type: RefAttr, Object: 5, Attr: "u"}, `attribute(5, "u")`},
		{big.NewInt(-7), "-7"},
		{struct{ A int }{3}, "{3}"},
	}
	for _, c := range cases {
		if got := FormatValue(c.v); got != c.want {
			t.Errorf("FormatValue(%#v) = %s, want %s", c.v, got, c.want)
		}
	}
}

// ---- performance of the packing paths used for bulk reads ----

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

// TestFloat16 checks binary16 decoding, subnormals included.
func TestFloat16(t *testing.T) {
	for _, tc := range []struct {
		bits uint16
		want float64
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0400, math.Ldexp(1, -14)},
		{0x0001, math.Ldexp(1, -24)}, {0x03ff, math.Ldexp(1023, -24)}, {0x8001, -math.Ldexp(1, -24)},
		{0x7c00, math.Inf(1)}, {0xfc00, math.Inf(-1)}, {0x0000, 0},
	} {
		if got := Float16(tc.bits); got != tc.want {
			t.Errorf("Float16(%#04x) = %g, want %g", tc.bits, got, tc.want)
		}
	}
	if !math.Signbit(Float16(0x8000)) || !math.IsNaN(Float16(0x7e00)) {
		t.Errorf("-0 or NaN wrong")
	}
}
