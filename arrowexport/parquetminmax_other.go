//go:build !amd64

package arrowexport

// floatMinMax64 returns the least and greatest of the little-endian
// float64 values in v, NaN left out (+Inf and -Inf when there are none);
// the sign of a zero result is unspecified.
func floatMinMax64(v []byte) (lo, hi float64) { return floatMinMax64Go(v) }
