package h5core

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// mustType parses a datatype message or fails the test.
func mustType(t testing.TB, msg []byte) *Datatype {
	t.Helper()
	dt, _, err := parseDatatype(msg, 0)
	if err != nil {
		t.Fatal(err)
	}
	return dt
}

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

// TestPutString stores fixed strings under each padding and reads them
// back with TrimString; strings that would not read back are errors.
func TestPutString(t *testing.T) {
	for _, c := range []struct {
		pad  StrPad
		s    string
		want string // stored, or "error: ..."
	}{
		{NullTerm, "ab", "ab\x00\x00"},
		{NullTerm, "abcd", "abcd"},
		{NullPad, "ab", "ab\x00\x00"},
		{NullPad, "a\x00b", "a\x00b\x00"},
		{SpacePad, "ab", "ab  "},
		{SpacePad, "a\x00", "a\x00  "},
		{NullTerm, "abcde", "error: does not fit"},
		{NullTerm, "a\x00b", "error: would not read back"},
		{NullPad, "ab\x00", "error: would not read back"},
		{SpacePad, "ab ", "error: would not read back"},
	} {
		dt := &Datatype{Class: ClassString, Size: 4, StrPad: c.pad}
		elem := []byte("zzzz")
		err := dt.PutString(elem, c.s)
		if want, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) || string(elem) != "zzzz" {
				t.Errorf("%s %q: got %q, %v; want error %q", c.pad, c.s, elem, err, want)
			}
			continue
		}
		if err != nil || string(elem) != c.want {
			t.Errorf("%s %q: got %q, %v; want %q", c.pad, c.s, elem, err, c.want)
		}
		if got := TrimString(elem, c.pad); got != c.s {
			t.Errorf("%s %q: reads back %q", c.pad, c.s, got)
		}
	}
	if err := mustType(t, i32le).PutString(make([]byte, 4), "a"); err == nil {
		t.Error("PutString on an integer type: no error")
	}
}
