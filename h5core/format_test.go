package h5core

import (
	"math"
	"math/big"
	"testing"
)

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
