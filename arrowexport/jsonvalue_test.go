package arrowexport

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// TestJSONValue writes a value of each kind in the one JSON encoding and
// checks that encoding/json reads the text back.
func TestJSONValue(t *testing.T) {
	f16 := &h5core.Datatype{Class: h5core.ClassFloat, Size: 2}
	f32 := &h5core.Datatype{Class: h5core.ClassFloat, Size: 4}
	i32 := &h5core.Datatype{Class: h5core.ClassFixedPoint, Size: 4, Signed: true}
	point := &h5core.Datatype{Class: h5core.ClassCompound, Size: 12, Fields: []h5core.Field{{Name: "z", Type: f32}, {Name: "a", Type: i32}}}
	huge, _ := new(big.Int).SetString("-170141183460469231731687303715884105728", 10)
	for _, c := range []struct {
		v     JSONValue
		want  string
		label string
	}{
		{JSONValue{Value: int64(math.MinInt64)}, `-9223372036854775808`, "int64"},
		{JSONValue{Value: uint64(math.MaxUint64)}, `18446744073709551615`, "uint64"},
		{JSONValue{Value: huge}, `-170141183460469231731687303715884105728`, "128-bit"},
		{JSONValue{Value: float32(0.1)}, `0.1`, "float32"},
		{JSONValue{Type: f16, Value: h5core.Float16(0x2e66)}, `0.099975586`, "float16 (its float32 form)"},
		{JSONValue{Value: 0.1}, `0.1`, "float64"},
		{JSONValue{Value: 1e300}, `1e+300`, "exponent"},
		{JSONValue{Value: math.Copysign(0, -1)}, `-0`, "negative zero"},
		{JSONValue{Value: math.NaN()}, `"NaN"`, "NaN"},
		{JSONValue{Value: math.Inf(1)}, `"Infinity"`, "+inf"},
		{JSONValue{Value: float32(math.Inf(-1))}, `"-Infinity"`, "-inf"},
		{JSONValue{Value: complex(1.5, -2)}, `[1.5,-2]`, "complex"},
		{JSONValue{Value: "say \"<hi>\" & ω\n"}, `"say \"<hi>\" & ω\n"`, "string"},
		{JSONValue{Value: []byte{0xde, 0xad, 0xbe, 0xef, 0}}, `"3q2+7wA="`, "opaque"},
		{JSONValue{Value: h5core.EnumValue{Name: "RED", Value: 0}}, `"RED"`, "enum"},
		{JSONValue{Value: h5core.EnumValue{Value: 7}}, `7`, "enum value of no member"},
		{JSONValue{Type: point, Value: h5core.Compound{{Name: "z", Value: float32(0.5)}, {Name: "a", Value: int64(-1)}}},
			`{"z":0.5,"a":-1}`, "compound, in field order"},
		{JSONValue{Value: []any{int64(1), []any{"x", nil}}}, `[1,["x",null]]`, "sequences"},
		{JSONValue{Value: h5core.ObjectRef(0)}, `null`, "null reference"},
		{JSONValue{Value: h5core.ObjectRef(800)}, `{"object":800}`, "object reference"},
		{JSONValue{Value: h5core.RegionRef{Object: 1832, Selection: []byte{1, 2}}}, `{"object":1832,"region":"AQI="}`, "region reference"},
		{JSONValue{Value: h5core.Reference{Type: h5core.RefAttr, Object: 96, Attr: "units"}}, `{"object":96,"attribute":"units"}`, "attribute reference"},
		{JSONValue{Value: h5core.Reference{Type: h5core.RefObject2, Object: 9, File: "other.h5"}}, `{"object":9,"file":"other.h5"}`, "external reference"},
		{JSONValue{Value: h5core.Reference{}}, `null`, "null revised reference"},
		{JSONValue{Value: nil}, `null`, "no value"},
		{JSONValue{Type: i32, Shape: []uint64{2, 3}, Value: []any{int64(0), int64(1), int64(2), int64(3), int64(4), int64(5)}},
			`[[0,1,2],[3,4,5]]`, "nested by shape"},
		{JSONValue{Type: i32, Shape: []uint64{1 << 62, 0}, Value: []any{}}, `[]`, "no elements"},
	} {
		b, err := c.v.MarshalJSON()
		if err != nil || string(b) != c.want {
			t.Errorf("%s: %s, %v; want %s", c.label, b, err, c.want)
			continue
		}
		var back JSONValue
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("%s: %s does not read back: %v", c.label, b, err)
		}
	}
}
