package table

import (
	"bytes"
	"encoding/hex"
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/h5fs/h5fs/h5core"
)

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		in           string
		major, minor int
		ok           bool
	}{
		{"1.0", 1, 0, true}, {"1.3", 1, 3, true}, {"1.10", 1, 10, true}, {"1.0.0", 1, 0, true},
		{"2.0", 2, 0, true}, {" 1.2 ", 1, 2, true}, {"1", 1, 0, true},
		{"1.x", 0, 0, false}, {"", 0, 0, false}, {"1.2.3.4", 0, 0, false}, {"-1.0", 0, 0, false},
	} {
		major, minor, err := parseVersion(c.in)
		if (err == nil) != c.ok || (c.ok && (major != c.major || minor != c.minor)) {
			t.Errorf("parseVersion(%q) = %d, %d, %v", c.in, major, minor, err)
		}
	}
}

func TestPickleTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"(lp0\nVa\np1\naVc\np2\na.", []string{"a", "c"}},
		{"(lp0\n(I1\n(lp1\nVa\np2\naVb\np3\natp4\na.", []string{"a", "b"}},
		{"(dp0\nVindex_name\np1\nVrid\np2\ns.", []string{"index_name", "rid"}},
		{"(dp0\nVindex_name\np1\nNs.", []string{"index_name", ""}},
		{"(lp0\nVx\np1\nag1\na.", []string{"x", "x"}},
		{"(lp0\nVcaf\\u00e9\np1\na.", []string{"café"}},
		{"(lp0\nS'old'\np1\na.", []string{"old"}},
	} {
		if got := pickleTokens(c.in); !slices.Equal(got, c.want) {
			t.Errorf("pickleTokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestBloomPositions(t *testing.T) {
	// h_a, h_b and the bits of a probe of the shared corpus (run__bloom:
	// uint16 value 101, seed 7, k=4, m_bits=256).
	canon := []byte{0x65, 0x00}
	ha, hb := bloomHashes(canon, 7)
	if ha != 0x9df988abf244265e || hb != 0xc971d08d1155cd6b {
		t.Fatalf("h_a, h_b = %016x, %016x", ha, hb)
	}
	// The positions are (h_a + i*h_b) mod m computed exactly, which for an
	// m that is not a power of two differs from 64-bit wrapping.
	for _, m := range []uint64{256, 1000, 24} {
		got := bloomPositions(canon, 4, m, 7)
		for i, g := range got {
			var want uint64
			{
				// exact: (ha + i*hb) mod m via 128-bit long division by parts
				x := new128(ha).add(new128(hb).mul(uint64(i)))
				want = x.mod(m)
			}
			if g != want {
				t.Errorf("m=%d: position %d = %d, want %d", m, i, g, want)
			}
		}
	}
	f := make([]byte, 32)
	for _, g := range bloomPositions(canon, 4, 256, 7) {
		bloomSet(f, g)
	}
	si := &SearchIndex{K: 4, MBits: 256, Seed: 7}
	if !si.MayContain(f, canon) {
		t.Error("MayContain false for an inserted value")
	}
	if si.MayContain(make([]byte, 32), canon) {
		t.Error("MayContain true on an empty filter")
	}
}

// u128 is a small exact 128-bit helper for the test's reference values.
type u128 struct{ hi, lo uint64 }

func new128(x uint64) u128 { return u128{0, x} }

func (a u128) add(b u128) u128 {
	lo := a.lo + b.lo
	hi := a.hi + b.hi
	if lo < a.lo {
		hi++
	}
	return u128{hi, lo}
}

func (a u128) mul(k uint64) u128 {
	r := u128{}
	for i := uint64(0); i < k; i++ {
		r = r.add(a)
	}
	return r
}

func (a u128) mod(m uint64) uint64 {
	r := uint64(0)
	for bit := 127; bit >= 0; bit-- {
		var b uint64
		if bit >= 64 {
			b = a.hi >> (bit - 64) & 1
		} else {
			b = a.lo >> bit & 1
		}
		// r = (2r + b) mod m without overflow (m < 2^63 here)
		r = (r*2 + b) % m
	}
	return r
}

func fixedType(size int, signed bool, order h5core.ByteOrder) *h5core.Datatype {
	return &h5core.Datatype{Class: h5core.ClassFixedPoint, Size: size, Signed: signed, ByteOrder: order, Precision: 8 * size}
}

func TestIsBool8(t *testing.T) {
	u8 := fixedType(1, false, h5core.LittleEndian)
	for _, c := range []struct {
		t          *h5core.Datatype
		fill       []byte
		vmin, vmax any
		want       bool
	}{
		{u8, []byte{2}, nil, nil, true},
		{u8, []byte{3}, nil, nil, false},
		{u8, []byte{255}, nil, nil, false},
		{u8, []byte{255}, uint64(0), uint64(1), true},
		{u8, []byte{2}, uint64(0), uint64(100), false},
		{u8, nil, nil, nil, false},
		{fixedType(1, true, h5core.LittleEndian), []byte{2}, nil, nil, false},
	} {
		if got := isBool8(c.t, c.fill, c.vmin, c.vmax); got != c.want {
			t.Errorf("isBool8(%s, %x, %v, %v) = %v", c.t, c.fill, c.vmin, c.vmax, got)
		}
	}
}

func TestCodeIndexType(t *testing.T) {
	for _, c := range []struct {
		size   int
		signed bool
		want   arrow.DataType
	}{
		{1, true, arrow.PrimitiveTypes.Int8}, {1, false, arrow.PrimitiveTypes.Int16},
		{2, true, arrow.PrimitiveTypes.Int16}, {2, false, arrow.PrimitiveTypes.Int32},
		{4, false, arrow.PrimitiveTypes.Int64}, {8, true, arrow.PrimitiveTypes.Int64},
	} {
		if got := codeIndexType(c.size, c.signed); !arrow.TypeEqual(got, c.want) {
			t.Errorf("codeIndexType(%d, %v) = %s, want %s", c.size, c.signed, got, c.want)
		}
	}
}

func TestSortedRows(t *testing.T) {
	nan := math.NaN()
	rk := &rowKeys{kind: kFloat,
		keys:    []key{{f: 3}, {f: nan}, {f: -1}, {f: 9e36}, {f: 3}, {f: math.Copysign(0, -1)}, {f: 0}},
		missing: []bool{false, false, false, true, false, false, false},
		nan:     []bool{false, true, false, false, false, false, false}}
	perm, nanTail, fillTail := sortedRows(rk)
	// -1, then -0 and +0 as equal (row order), then 3, 3, fill row, NaN row
	if want := []uint64{2, 5, 6, 0, 4, 3, 1}; !slices.Equal(perm, want) || nanTail != 1 || fillTail != 1 {
		t.Errorf("sortedRows = %v, %d, %d; want %v, 1, 1", perm, nanTail, fillTail, want)
	}
}

func TestCanonical(t *testing.T) {
	f32 := &h5core.Datatype{Class: h5core.ClassFloat, Size: 4, ByteOrder: h5core.BigEndian, Precision: 32,
		Float: h5core.FloatLayout{SignPos: 31, ExpPos: 23, ExpSize: 8, MantSize: 23, Bias: 127, Norm: 2}}
	negZero := []byte{0x80, 0, 0, 0}
	if got := canonical(kFloat, f32, negZero, key{f: math.Copysign(0, -1)}); !bytes.Equal(got, make([]byte, 4)) {
		t.Errorf("canonical(-0) = %x, want +0", got)
	}
	one := []byte{0x3f, 0x80, 0, 0}
	if got := canonical(kFloat, f32, one, key{f: 1}); !bytes.Equal(got, []byte{0, 0, 0x80, 0x3f}) {
		t.Errorf("canonical(1 BE) = %x", got)
	}
	str := &h5core.Datatype{Class: h5core.ClassString, Size: 6, StrPad: h5core.SpacePad}
	if got := canonical(kBytes, str, []byte("ab    "), key{s: "ab"}); string(got) != "ab" {
		t.Errorf("canonical(string) = %q", got)
	}
}

// Integers of a partial precision or with a bit offset hash as their
// value's two's complement at the storage width (§10.7), not as their
// stored bits.
func TestCanonicalPartialPrecision(t *testing.T) {
	s12 := &h5core.Datatype{Class: h5core.ClassFixedPoint, Size: 2, Signed: true, Precision: 12, ByteOrder: h5core.LittleEndian}
	u6 := &h5core.Datatype{Class: h5core.ClassFixedPoint, Size: 2, Precision: 6, BitOffset: 2, ByteOrder: h5core.BigEndian}
	for _, c := range []struct {
		t          *h5core.Datatype
		k          keyKind
		stored, le string
	}{
		{s12, kInt, "fb0f", "fbff"}, // -5 in 12 bits
		{s12, kInt, "0508", "05f8"}, // -2043
		{s12, kInt, "ff07", "ff07"}, // 2047
		{u6, kUint, "0014", "0500"}, // 5 << 2, big-endian
	} {
		e, _ := hex.DecodeString(c.stored)
		if got := hex.EncodeToString(canonical(c.k, c.t, e, elemKey(c.k, c.t, e))); got != c.le {
			t.Errorf("canonical(%s, %s) = %s, want %s", c.t, c.stored, got, c.le)
		}
	}
}

// valid_min/valid_max compare with 64-bit integers exactly: a fill of
// INT64_MIN lies outside [INT64_MIN+1, INT64_MAX] (as float64, the fill
// equals valid_min).
func TestInRange(t *testing.T) {
	for _, c := range []struct {
		vmin, vmax, v any
		in, out       bool
	}{
		{int64(math.MinInt64 + 1), int64(math.MaxInt64), int64(math.MinInt64), false, true},
		{int64(math.MinInt64 + 1), int64(math.MaxInt64), int64(math.MinInt64 + 1), true, false},
		{uint64(0), uint64(math.MaxUint64 - 1), uint64(math.MaxUint64), false, true},
		{uint64(0), uint64(math.MaxUint64 - 1), int64(-1), false, true},
		{int64(-5), nil, uint64(math.MaxUint64), true, false},
		{-1.5, 2.5, int64(2), true, false},
		{-1.5, 2.5, 2.75, false, true},
		{-1.5, 2.5, math.NaN(), false, false},
		{nil, math.NaN(), 1.0, false, false},
	} {
		col := &Column{vmin: c.vmin, vmax: c.vmax}
		if in, out := col.inRange(c.v); in != c.in || out != c.out {
			t.Errorf("[%v, %v] ∋ %v: in, out = %v, %v; want %v, %v", c.vmin, c.vmax, c.v, in, out, c.in, c.out)
		}
	}
}

// BITMAP values of compounds (no order) compare by their fields' values:
// distinct values differ, padding does not count.
func TestValueEqualityCompound(t *testing.T) {
	comp := &h5core.Datatype{Class: h5core.ClassCompound, Size: 8, Fields: []h5core.Field{
		{Name: "a", Offset: 0, Type: fixedType(2, false, h5core.LittleEndian)},
		{Name: "b", Offset: 4, Type: fixedType(4, true, h5core.BigEndian)}}}
	raw := func(hexs ...string) []byte {
		var b []byte
		for _, h := range hexs {
			x, _ := hex.DecodeString(h)
			b = append(b, x...)
		}
		return b
	}
	rk := &rowKeys{kind: kNone, t: comp, keys: make([]key, 3), raw: raw("0100aaaa00000002", "0100bbbb00000002", "0200000000000002")}
	vk := &rowKeys{kind: kNone, t: comp, keys: make([]key, 2), raw: raw("0100000000000002", "0200000000000002")}
	equal, ok := valueEquality(rk, vk)
	if !ok {
		t.Fatal("compound values do not compare")
	}
	for _, c := range []struct {
		r, k int
		want bool
	}{{0, 0, true}, {1, 0, true}, {2, 0, false}, {0, 1, false}, {2, 1, true}} {
		if got := equal(c.r, c.k); got != c.want {
			t.Errorf("row %d = value %d: %v, want %v", c.r, c.k, got, c.want)
		}
	}
}
