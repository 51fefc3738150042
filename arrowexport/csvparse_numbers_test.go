package arrowexport

import (
	"math"
	"strconv"
	"testing"
)

// checkNumbers checks the fast number parsers against strconv on s:
// whatever they take, strconv takes, to the same bits.
func checkNumbers(t *testing.T, s string) {
	if v, ok := parseDecimal([]byte(s)); ok {
		if w, err := strconv.ParseInt(s, 10, 64); err != nil || v != w {
			t.Errorf("parseDecimal(%q) = %d, strconv %d, %v", s, v, w, err)
		}
		for _, bits := range []int{8, 16, 32, 64} {
			_, err := strconv.ParseInt(s, 10, bits)
			if fits := fitsBits(v, bits, true); fits != (err == nil) {
				t.Errorf("fitsBits(%d, %d, signed) = %v, strconv: %v", v, bits, fits, err)
			}
			_, err = strconv.ParseUint(s, 10, bits)
			if fits := s[0] != '-' && fitsBits(v, bits, false); fits != (err == nil) { // as the uint parser asks
				t.Errorf("fitsBits(%d, %d, unsigned) = %v, strconv: %v", v, bits, fits, err)
			}
		}
	}
	for _, bits := range []int{32, 64} {
		v, ok := parseDecimalFloat([]byte(s), bits)
		if !ok {
			continue
		}
		w, err := strconv.ParseFloat(s, bits)
		if err != nil || math.Float64bits(v) != math.Float64bits(w) {
			t.Errorf("parseDecimalFloat(%q, %d) = %v, strconv %v, %v", s, bits, v, w, err)
		}
	}
}

// TestParseNumbers: the forms the CSV view writes take the fast paths,
// and give what strconv gives; the others are left to strconv.
func TestParseNumbers(t *testing.T) {
	for _, c := range []struct {
		s          string
		dec, fl    bool // taken by parseDecimal, by parseDecimalFloat at 64 bits
		dec32, f32 bool // fits int32; taken by parseDecimalFloat at 32 bits
	}{
		{"0", true, true, true, true},
		{"-0", true, true, true, true},
		{"007", true, true, true, true},
		{"-570757254", true, true, true, false},
		{"999999999999999999", true, false, false, false},
		{"9999999999999999999", false, false, false, false},
		{"1.053116", false, true, false, true},
		{"-7.1e-05", false, true, false, true},
		{"1E+3", false, true, false, true},
		{"0.1234567890123456789", false, false, false, false},
		{"9007199254740993", true, false, false, false},
		{"1e23", false, false, false, false},
		{"+5", false, false, false, false},
		{"1_0", false, false, false, false},
		{".5", false, true, false, true},
		{"5.", false, true, false, true},
		{"", false, false, false, false},
		{"-", false, false, false, false},
		{"1e", false, false, false, false},
		{"1e10000", false, false, false, false},
		{"nan", false, false, false, false},
		{"0x10", false, false, false, false},
	} {
		checkNumbers(t, c.s)
		v, dec := parseDecimal([]byte(c.s))
		_, fl := parseDecimalFloat([]byte(c.s), 64)
		_, f32 := parseDecimalFloat([]byte(c.s), 32)
		if dec != c.dec || fl != c.fl || f32 != c.f32 || (dec && fitsBits(v, 32, true) != c.dec32) {
			t.Errorf("%q: decimal %v (fits int32 %v), float %v, float32 %v; want %v (%v), %v, %v", c.s, dec, fitsBits(v, 32, true), fl, f32, c.dec, c.dec32, c.fl, c.f32)
		}
	}
}

// FuzzParseNumbers: the fast parsers never disagree with strconv.
func FuzzParseNumbers(f *testing.F) {
	for _, s := range []string{"1.053116", "-7.1e-05", "16777217", "0.3", "123456789012345678", "2e-22", "9007199254740992e22"} {
		f.Add(s)
	}
	f.Fuzz(checkNumbers)
}
