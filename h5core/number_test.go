package h5core

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// x87 is the 80-bit extended float as libhdf5 describes it: explicit
// leading mantissa bit, no normalization, in 16 bytes.
var x87 = dtMsg(1, 1, 79<<8, 16, le16(0), le16(80), []byte{64, 15, 0, 64}, le32(16383))

func x87Bytes(signExp uint16, mant uint64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, mant)
	b = binary.LittleEndian.AppendUint16(b, signExp)
	return append(b, make([]byte, 6)...)
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

// TestFloat16Bits converts every binary16 value back and forth, and
// rounds values between them to the nearest (ties to even).
func TestFloat16Bits(t *testing.T) {
	for h := range 1 << 16 {
		x := Float16(uint16(h))
		got := Float16Bits(x)
		if math.IsNaN(x) {
			if !math.IsNaN(Float16(got)) || got&0x8000 != uint16(h)&0x8000 {
				t.Fatalf("NaN %#04x → %#04x", h, got)
			}
			continue
		}
		if got != uint16(h) {
			t.Fatalf("%#04x (%g) → %#04x", h, x, got)
		}
	}
	for _, c := range []struct {
		x    float64
		want uint16
	}{
		{1 + 0x1p-11, 0x3c00},           // halfway to the next: even (down)
		{1 + 3*0x1p-11, 0x3c02},         // halfway: even (up)
		{1 + 0x1p-11 + 0x1p-30, 0x3c01}, // just above halfway
		{65519.99, 0x7bff},              // below the overflow threshold
		{65520, 0x7c00},                 // rounds to infinity
		{1e300, 0x7c00},                 // overflow
		{-1e300, 0xfc00},                // negative overflow
		{0x1p-25, 0},                    // halfway to the smallest subnormal: even (0)
		{0x1p-25 + 0x1p-40, 1},          // above it
		{3 * 0x1p-25, 2},                // halfway between subnormals 1 and 2: even
		{0x1p-14 - 0x1p-26, 0x0400},     // rounds up to the smallest normal
		{math.Copysign(0, -1), 0x8000},  // -0
		{math.Inf(-1), 0xfc00},          // -inf
	} {
		if got := Float16Bits(c.x); got != c.want {
			t.Errorf("Float16Bits(%g) = %#04x, want %#04x", c.x, got, c.want)
		}
	}
}

// TestPutNumbers stores numbers and reads them back with Int64, Float64 and
// the element values; values a type cannot hold are errors.
func TestPutNumbers(t *testing.T) {
	s12at2 := mustType(t, dtMsg(0, 1, 8, 2, le16(2), le16(12)))   // signed LE, 12 bits at bit 2
	u12at2be := mustType(t, dtMsg(0, 1, 9, 2, le16(2), le16(12))) // unsigned BE
	i24be := mustType(t, dtMsg(0, 1, 9, 3, le16(0), le16(24)))    // signed BE 3 bytes
	i128 := mustType(t, dtMsg(0, 1, 8, 16, le16(0), le16(128)))
	enum := mustType(t, dtMsg(8, 3, 0, 2, u16be))
	for _, c := range []struct {
		name string
		t    *Datatype
		v    any    // int64 or uint64
		want string // stored hex, or "error: ..."
	}{
		{"i8 -128", mustType(t, i8), int64(-128), "80"},
		{"i8 127", mustType(t, i8), int64(127), "7f"},
		{"i8 128", mustType(t, i8), int64(128), "error: does not fit"},
		{"i8 -129", mustType(t, i8), int64(-129), "error: does not fit"},
		{"u8 255", mustType(t, u8), uint64(255), "ff"},
		{"u8 256", mustType(t, u8), uint64(256), "error: does not fit"},
		{"u8 -1", mustType(t, u8), int64(-1), "error: does not fit"},
		{"i32be", mustType(t, i32be), int64(-2), "fffffffe"},
		{"u16be", mustType(t, u16be), uint64(0x1234), "1234"},
		{"i24be", i24be, int64(-8388608), "800000"},
		{"i24be overflow", i24be, int64(8388608), "error: does not fit"},
		{"12 bits at 2", s12at2, int64(-1), "fc3f"},
		{"12 bits at 2 max", s12at2, uint64(2047), "fc1f"},
		{"12 bits at 2 overflow", s12at2, uint64(2048), "error: does not fit"},
		{"BE unsigned 12 bits at 2", u12at2be, int64(0x48d), "1234"},
		{"i128 -1", i128, int64(-1), "ffffffffffffffffffffffffffffffff"},
		{"i128 big", i128, uint64(1 << 63), "00000000000000800000000000000000"},
		{"enum base", enum, int64(258), "0102"},
		{"float element", mustType(t, f32le), int64(1), "error: cannot store an integer"},
	} {
		elem := make([]byte, c.t.Size)
		var err error
		switch v := c.v.(type) {
		case int64:
			err = c.t.PutInt(elem, v)
		case uint64:
			err = c.t.PutUint(elem, v)
		}
		if want, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %x, %v; want error %q", c.name, elem, err, want)
			}
			continue
		}
		if err != nil || hex.EncodeToString(elem) != c.want {
			t.Errorf("%s: got %x, %v; want %s", c.name, elem, err, c.want)
			continue
		}
		var back int64
		switch v := c.v.(type) {
		case int64:
			back = v
		case uint64:
			back = int64(v)
		}
		if got := c.t.Int64(elem); got != back {
			t.Errorf("%s: Int64 reads back %d", c.name, got)
		}
	}
	for _, c := range []struct {
		name string
		msg  []byte
		v    float64
		want string
	}{
		{"f16", f16le, 1.5, "003e"},
		{"f32", f32le, 1.5, "0000c03f"},
		{"f64be", f64be, -2, "c000000000000000"},
		{"f64 NaN (Go's bits)", f64le, math.NaN(), "010000000000f87f"},
		{"f32 overflow", f32le, 1e300, "0000807f"},
		{"VAX", vaxF, 1, "error: cannot store floating-point"},
		{"int", i32le, 1, "error: cannot store floating-point"},
	} {
		dt := mustType(t, c.msg)
		elem := make([]byte, dt.Size)
		err := dt.PutFloat(elem, c.v)
		if want, ok := strings.CutPrefix(c.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: got %x, %v; want error %q", c.name, elem, err, want)
			}
			continue
		}
		if err != nil || hex.EncodeToString(elem) != c.want {
			t.Errorf("%s: got %x, %v; want %s", c.name, elem, err, c.want)
			continue
		}
		if got := dt.Float64(elem); got != c.v && !(math.IsNaN(c.v) && math.IsNaN(got)) && !math.IsInf(got, 1) {
			t.Errorf("%s: Float64 reads back %g", c.name, got)
		}
	}
}

// TestInt64 reads integers of every width, order and precision as int64.
func TestInt64(t *testing.T) {
	fixed := func(size int, signed bool, order ByteOrder) *Datatype {
		return &Datatype{Class: ClassFixedPoint, Size: size, Signed: signed, ByteOrder: order, Precision: 8 * size}
	}
	for _, c := range []struct {
		t    *Datatype
		in   string
		want int64
	}{
		{fixed(1, true, LittleEndian), "81", -127},
		{fixed(1, false, LittleEndian), "ff", 255},
		{fixed(2, true, BigEndian), "8001", -32767},
		{fixed(4, true, LittleEndian), "01000080", -2147483647},
		{fixed(8, false, LittleEndian), "feffffffffffffff", -2},
		{&Datatype{Class: ClassFixedPoint, Size: 2, Precision: 12, ByteOrder: LittleEndian}, "fff0", 0xff},
		{&Datatype{Class: ClassFixedPoint, Size: 2, Precision: 4, BitOffset: 4, Signed: true, ByteOrder: LittleEndian}, "f000", -1},
		{fixed(16, true, LittleEndian), "feffffffffffffffffffffffffffffff", -2},
		{fixed(3, true, BigEndian), "fffffe", -2},
		{&Datatype{Class: ClassEnum, Size: 1, Base: fixed(1, true, LittleEndian)}, "fe", -2},
	} {
		b, _ := hex.DecodeString(c.in)
		if got := c.t.Int64(b); got != c.want {
			t.Errorf("%s.Int64(%s) = %d, want %d", c.t, c.in, got, c.want)
		}
	}
}
