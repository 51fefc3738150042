package h5core

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
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
