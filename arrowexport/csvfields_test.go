package arrowexport

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// checkFloat fails unless appendFloat writes v as strconv does and
// floatLen gives its length.
func checkFloat(t *testing.T, v float64, bits int) {
	t.Helper()
	want := strconv.FormatFloat(v, 'g', -1, bits)
	switch want {
	case "NaN":
		want = "nan"
	case "+Inf":
		want = "inf"
	case "-Inf":
		want = "-inf"
	}
	if got := string(appendFloat([]byte("x"), v, bits)); got != "x"+want {
		t.Fatalf("appendFloat(%v (%#x), %d) = %q, want %q", v, math.Float64bits(v), bits, got[1:], want)
	}
	if n := floatLen(v, bits); n != len(want) {
		t.Fatalf("floatLen(%v (%#x), %d) = %d, want %d (%q)", v, math.Float64bits(v), bits, n, len(want), want)
	}
}

// TestAppendFloatMatchesStrconv compares the fast path with strconv over
// short and long decimals of every scale, their neighbours, powers of ten
// and random bit patterns.
func TestAppendFloatMatchesStrconv(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 300000
	if testing.Short() {
		n = 30000
	}
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e15, 1e15 - 0.125, 999999999999999, 1e-8, 1e-5, 1e-4, 1e6, 999999.5,
		math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, math.MaxFloat32, math.SmallestNonzeroFloat32} {
		checkFloat(t, v, 64)
		checkFloat(t, float64(float32(v)), 32)
	}
	for e := -12; e <= 22; e++ {
		p := math.Pow(10, float64(e))
		for _, v := range []float64{p, math.Nextafter(p, 0), math.Nextafter(p, 2*p)} {
			checkFloat(t, v, 64)
			checkFloat(t, -v, 64)
			f := float32(v)
			checkFloat(t, float64(f), 32)
			checkFloat(t, float64(math.Nextafter32(f, 0)), 32)
			checkFloat(t, float64(math.Nextafter32(f, 2*f)), 32)
		}
	}
	for range n {
		// a decimal of 1 to 17 digits at scale 10^-14 .. 10^20
		digits := 1 + r.IntN(17)
		m := r.Int64N(int64(math.Pow10(digits)))
		s := strconv.FormatInt(m, 10) + "e" + strconv.Itoa(r.IntN(35)-14-digits)
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		v, _ := strconv.ParseFloat(s, 64)
		checkFloat(t, v, 64)
		checkFloat(t, math.Nextafter(v, math.Inf(1)), 64)
		f, _ := strconv.ParseFloat(s, 32)
		checkFloat(t, f, 32)
		checkFloat(t, float64(math.Nextafter32(float32(f), float32(math.Inf(1)))), 32)
		// any bits
		checkFloat(t, math.Float64frombits(r.Uint64()), 64)
		checkFloat(t, float64(math.Float32frombits(r.Uint32())), 32)
		// a value near 1
		checkFloat(t, 1+r.Float64(), 64)
		checkFloat(t, float64(float32(r.Float64()*1000)), 32)
	}
}

// BenchmarkAppendFloat formats float64 values of 3 decimals (the fast
// path) and of full precision (strconv).
func BenchmarkAppendFloat(b *testing.B) {
	short, long := make([]float64, 4096), make([]float64, 4096)
	for i := range short {
		short[i] = math.Round(math.Sin(float64(i))*1e6) / 1e3
		long[i] = math.Sin(float64(i))
	}
	for _, c := range []struct {
		name string
		vals []float64
	}{{"short", short}, {"long", long}} {
		b.Run(c.name, func(b *testing.B) {
			var d []byte
			for i := range b.N {
				d = appendFloat(d[:0], c.vals[i&4095], 64)
			}
		})
	}
}
