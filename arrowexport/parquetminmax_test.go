package arrowexport

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloatMinMax64 checks floatMinMax64 (assembly on amd64) against a
// value-at-a-time reference and against floatMinMax64Go, for lengths
// around its step and tail (with a partial value at the end, ignored),
// NaN anywhere (all NaN: +Inf and -Inf), signed zeros, infinities and
// extremes.
func TestFloatMinMax64(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	specials := []float64{nan, 0, math.Copysign(0, -1), inf, -inf, -1.5, 2.5, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func(i int) float64{
		"random":   func(int) float64 { return r.NormFloat64() },
		"specials": func(int) float64 { return specials[r.IntN(len(specials))] },
		"nan":      func(int) float64 { return nan },
		"nan+one": func(i int) float64 {
			if i == 5 {
				return -3
			}
			return nan
		},
		"zeros": func(i int) float64 { return math.Copysign(0, float64(i%2)-0.5) },
		"walk":  func(i int) float64 { return float64(i%97) - float64(i%89) },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 1000, 131072} {
			v := make([]byte, 8*n, 8*n+5)
			for i := range n {
				binary.LittleEndian.PutUint64(v[8*i:], math.Float64bits(gen(i)))
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for i := range n {
				x := math.Float64frombits(binary.LittleEndian.Uint64(v[8*i:]))
				if x < lo {
					lo = x
				}
				if x > hi {
					hi = x
				}
			}
			for _, f := range []struct {
				name string
				fn   func([]byte) (float64, float64)
			}{{"floatMinMax64", floatMinMax64}, {"floatMinMax64Go", floatMinMax64Go}} {
				// trailing bytes short of a value are not a value
				gl, gh := f.fn(append(v, 0xff, 0xff, 0xff, 0xff, 0xff))
				if gl != lo || gh != hi {
					t.Errorf("%s %s n=%d: got %v %v, want %v %v", f.name, name, n, gl, gh, lo, hi)
				}
			}
		}
	}
}

// BenchmarkFloatMinMax64 measures the page statistics pass over a
// Parquet page of float64 (1 MiB), beside a copy of it.
func BenchmarkFloatMinMax64(b *testing.B) {
	v := make([]byte, 1<<20)
	x := 0.0
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(v); i += 8 {
		x += r.NormFloat64()
		binary.LittleEndian.PutUint64(v[i:], math.Float64bits(x))
	}
	dst := make([]byte, len(v))
	for _, c := range []struct {
		name string
		fn   func([]byte)
	}{
		{"asm", func(v []byte) { floatMinMax64(v) }},
		{"go", func(v []byte) { floatMinMax64Go(v) }},
		{"copy", func(v []byte) { copy(dst, v) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(v)))
			for b.Loop() {
				c.fn(v)
			}
		})
	}
}
