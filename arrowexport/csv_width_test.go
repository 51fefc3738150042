package arrowexport

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCSVBoundFromStats checks the size a CSV view shows before its data
// pass for columns with ChunkStats: never below the exact size and, for
// data whose stats say how wide its fields are, at most 1.5 times it; the
// type's bound stays for data whose range holds tiny or huge values.
func TestCSVBoundFromStats(t *testing.T) {
	const rows = 20000
	rng := rand.New(rand.NewPCG(3, 4))
	mem := memory.NewGoAllocator()
	column := func(name string, typ arrow.DataType, b array.Builder) statsMemColumn {
		return withStats(&memColumn{field: arrow.Field{Name: name, Type: typ, Nullable: true}, arr: b.NewArray(), chunkRows: 1000})
	}
	small := array.NewInt64Builder(mem) // 0..99, some missing
	wide := array.NewInt64Builder(mem)  // a chunk of small values, then big ones
	energy := array.NewFloat64Builder(mem)
	f32 := array.NewFloat32Builder(mem)
	signed := array.NewFloat64Builder(mem) // around zero: any exponent
	flag := array.NewBooleanBuilder(mem)
	for i := range rows {
		if i%17 == 0 {
			small.AppendNull()
		} else {
			small.Append(int64(rng.IntN(100)))
		}
		wide.Append(int64(i) * int64(1+i/1000*1000))
		energy.Append(0.5 + rng.Float64()*1000)
		f32.Append(float32(1 + rng.Float64()*9))
		signed.Append(rng.NormFloat64())
		flag.Append(i%3 == 0)
	}
	for _, tc := range []struct {
		col   ColumnSource
		tight bool // bounded within 1.5x
	}{
		{column("small", arrow.PrimitiveTypes.Int64, small), true},
		{column("wide", arrow.PrimitiveTypes.Int64, wide), true},
		{column("energy", arrow.PrimitiveTypes.Float64, energy), true},
		{column("f32", arrow.PrimitiveTypes.Float32, f32), true},
		{column("flag", arrow.FixedWidthTypes.Boolean, flag), true},
		{column("signed", arrow.PrimitiveTypes.Float64, signed), false},
	} {
		name := tc.col.Field().Name
		v, err := NewCSVView(&Table{Columns: []ColumnSource{tc.col}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		bound := v.Size()
		if err := v.Finalize(); err != nil {
			t.Fatal(err)
		}
		exact := v.Size()
		ratio := float64(bound) / float64(exact)
		t.Logf("%s: bound %d, exact %d (%.2fx)", name, bound, exact, ratio)
		if bound < exact || (tc.tight && ratio > 1.5) {
			t.Errorf("%s: bound %d for %d bytes (%.2fx)", name, bound, exact, ratio)
		}
	}
}

// TestFloatWidth checks floatWidth against the shortest forms of floats
// spread over the range it bounds.
func TestFloatWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, r := range [][2]float64{{1e-7, 1e-3}, {0.5, 2}, {1, 999999}, {-5e8, -3}, {1e-300, 1e300}, {-1, 1}, {3, 3}} {
		for _, bits := range []int{32, 64} {
			digits := map[int]int{32: 9, 64: 17}[bits]
			w := floatWidth(r[0], r[1], digits)
			for range 2000 {
				x := r[0] + rng.Float64()*(r[1]-r[0])
				if rng.IntN(2) == 0 && r[0] > 0 { // log-uniform too
					x = math.Exp(math.Log(r[0]) + rng.Float64()*(math.Log(r[1])-math.Log(r[0])))
				}
				if bits == 32 {
					x = float64(float32(x))
				}
				if n := len(appendFloat(nil, x, bits)); int64(n) > w {
					t.Fatalf("[%g, %g] float%d: %g takes %d bytes, bound %d", r[0], r[1], bits, x, n, w)
				}
			}
		}
	}
}
