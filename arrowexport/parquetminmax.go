package arrowexport

import (
	"encoding/binary"
	"math"
)

// The page statistics of a float64 column chunk take a pass over its
// values, as long as reading them: floatMinMax64 is the most of a
// rendering's time in Go, so on amd64 it is SSE2 assembly
// (parquetminmax_amd64.s), which runs at the speed of a copy.
// floatMinMax64 returns the least and greatest of the little-endian
// float64 values in v, NaN left out (+Inf and -Inf when there are none);
// the sign of a zero result is unspecified.

// floatMinMax64Go is floatMinMax64 in Go, four values at a time into
// independent minima and maxima: the form for machines without an
// assembly one, and what tests check that against.
func floatMinMax64Go(v []byte) (lo, hi float64) {
	var a, b [4]float64
	for k := range a {
		a[k], b[k] = math.Inf(1), math.Inf(-1)
	}
	for ; len(v) >= 32; v = v[32:] {
		for k := range 4 {
			x := math.Float64frombits(binary.LittleEndian.Uint64(v[8*k:]))
			if x < a[k] { // NaN is neither less nor greater
				a[k] = x
			}
			if x > b[k] {
				b[k] = x
			}
		}
	}
	for ; len(v) >= 8; v = v[8:] {
		x := math.Float64frombits(binary.LittleEndian.Uint64(v))
		if x < a[0] {
			a[0] = x
		}
		if x > b[0] {
			b[0] = x
		}
	}
	lo, hi = a[0], b[0]
	for k := 1; k < 4; k++ {
		if a[k] < lo {
			lo = a[k]
		}
		if b[k] > hi {
			hi = b[k]
		}
	}
	return lo, hi
}
