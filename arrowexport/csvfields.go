package arrowexport

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/h5fs/h5fs/h5core"
)

// fieldAppender appends the CSV field of row i (not null) to dst.
type fieldAppender func(dst []byte, i int) []byte

// csvAppender returns the appender of array a's values: integers in
// decimal, floats in the shortest form that round-trips ("nan", "inf",
// "-inf" for the special values), booleans as true/false, categoricals as
// their labels, strings as they are (quoted when needed), compounds and
// arrays as JSON (jsonAppender), anything else as arrow-go's ValueStr.
func csvAppender(a arrow.Array) fieldAppender {
	switch a := a.(type) {
	case *array.Int8:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }
	case *array.Int16:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }
	case *array.Int32:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(a.Value(i)), 10) }
	case *array.Int64:
		return func(d []byte, i int) []byte { return strconv.AppendInt(d, a.Value(i), 10) }
	case *array.Uint8:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) }
	case *array.Uint16:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) }
	case *array.Uint32:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, uint64(a.Value(i)), 10) }
	case *array.Uint64:
		return func(d []byte, i int) []byte { return strconv.AppendUint(d, a.Value(i), 10) }
	case *array.Float16:
		// h5core's conversion: arrow-go's Float32 gets subnormals wrong
		return func(d []byte, i int) []byte { return appendFloat(d, h5core.Float16(a.Value(i).Uint16()), 32) }
	case *array.Float32:
		return func(d []byte, i int) []byte { return appendFloat(d, float64(a.Value(i)), 32) }
	case *array.Float64:
		return func(d []byte, i int) []byte { return appendFloat(d, a.Value(i), 64) }
	case *array.Boolean:
		return func(d []byte, i int) []byte { return strconv.AppendBool(d, a.Value(i)) }
	case *array.String:
		return func(d []byte, i int) []byte { return appendQuoted(d, a.Value(i)) }
	case *array.LargeString:
		return func(d []byte, i int) []byte { return appendQuoted(d, a.Value(i)) }
	case *array.Struct, *array.FixedSizeList:
		value := jsonAppender(a)
		return func(d []byte, i int) []byte { return appendQuoted(d, string(value(nil, i))) }
	case *array.Dictionary:
		labels := csvAppender(a.Dictionary())
		dict := a.Dictionary()
		return func(d []byte, i int) []byte {
			k := a.GetValueIndex(i)
			if dict.IsNull(k) {
				return d
			}
			return labels(d, k)
		}
	}
	return func(d []byte, i int) []byte { return appendQuoted(d, a.ValueStr(i)) }
}

// appendFloat appends v in the shortest form that reads back as the same
// float of the given bits (32 or 64), as strconv.AppendFloat(dst, v, 'g',
// -1, bits) writes it, but with "nan", "inf" and "-inf" for the special
// values.
func appendFloat(dst []byte, v float64, bits int) []byte {
	if m, nd, e, ok := shortDecimal(v, bits); ok {
		return appendDecimal(dst, math.Signbit(v), m, nd, e)
	}
	switch {
	case math.IsNaN(v):
		return append(dst, "nan"...)
	case math.IsInf(v, 1):
		return append(dst, "inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, bits)
}

// floatLen is len(appendFloat(nil, v, bits)), computed without writing
// the digits when v takes the fast path.
func floatLen(v float64, bits int) int {
	if _, nd, e, ok := shortDecimal(v, bits); ok {
		return decimalLen(math.Signbit(v), nd, e)
	}
	var buf [32]byte
	return len(appendFloat(buf[:0], v, bits))
}

// missingField is how a CSV view writes a missing value of type t: an
// empty field, as <table>.csv does, so that it differs from an empty
// string (""). In a one-column CSV (<col>.csv) that field is a line of its
// own, which pandas, R and Go's encoding/csv skip as blank: there a type
// with no empty value (numbers, booleans, bytes, JSON cells) writes ""
// instead, which those readers take as missing; strings keep the empty
// line, the only form that keeps them apart from the empty string.
func missingField(t arrow.DataType, oneColumn bool) string {
	if oneColumn && !hasEmptyValue(t) {
		return `""`
	}
	return ""
}

// hasEmptyValue reports whether a value of type t can be the empty text:
// strings, and dictionaries of strings (a categorical's labels).
func hasEmptyValue(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.StringType, *arrow.LargeStringType:
		return true
	case *arrow.DictionaryType:
		return hasEmptyValue(t.ValueType)
	}
	return false
}

// appendLines appends the lines of a one-column CSV of a's values, a
// missing value as missingField says. Floats take a loop of their own.
func appendLines(dst []byte, a arrow.Array) []byte {
	nulls := a.NullN() > 0
	missing := missingField(a.DataType(), true)
	switch a := a.(type) {
	case *array.Float64:
		for r, x := range a.Float64Values() {
			if nulls && a.IsNull(r) {
				dst = append(dst, missing...)
			} else {
				dst = appendFloat(dst, x, 64)
			}
			dst = append(dst, '\n')
		}
		return dst
	case *array.Float32:
		for r, x := range a.Float32Values() {
			if nulls && a.IsNull(r) {
				dst = append(dst, missing...)
			} else {
				dst = appendFloat(dst, float64(x), 32)
			}
			dst = append(dst, '\n')
		}
		return dst
	}
	field := csvAppender(a)
	for r := range a.Len() {
		if nulls && a.IsNull(r) {
			dst = append(dst, missing...)
		} else {
			dst = field(dst, r)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// fieldsLen returns the total length of the CSV fields of a's values, in
// a CSV of one column or more (missingField). Floats are measured without
// rendering them; other values are rendered one by one into scratch,
// which it returns, grown as needed, for the next call.
func fieldsLen(a arrow.Array, oneColumn bool, scratch []byte) (int64, []byte) {
	var n int64
	nulls := a.NullN() > 0
	nullLen := int64(len(missingField(a.DataType(), oneColumn)))
	switch a := a.(type) {
	case *array.Float64:
		for r, x := range a.Float64Values() {
			if nulls && a.IsNull(r) {
				n += nullLen
			} else {
				n += int64(floatLen(x, 64))
			}
		}
		return n, scratch
	case *array.Float32:
		for r, x := range a.Float32Values() {
			if nulls && a.IsNull(r) {
				n += nullLen
			} else {
				n += int64(floatLen(float64(x), 32))
			}
		}
		return n, scratch
	}
	field := csvAppender(a)
	for r := range a.Len() {
		if nulls && a.IsNull(r) {
			n += nullLen
		} else {
			scratch = field(scratch[:0], r)
			n += int64(len(scratch))
		}
	}
	return n, scratch
}

// pow10s[i] is the float64 nearest 10^(i-pow10Bias); exact for i >=
// pow10Bias.
var pow10s = [...]float64{
	1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1,
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
}

const pow10Bias = 8

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// shortDecimal is appendFloat's fast path: it returns the shortest decimal
// digits m (nd of them, no trailing zeros) and exponent e (of the first
// digit) that read back as v, for zeros and for values that are the float
// nearest a decimal of at most 15 significant digits between 1e-8 and 1e15
// (for float32: 6 digits, between 1e-5 and 1e6), which is what most stored
// measurements are. ok is false for any other value.
//
// Two different decimals of at most 15 significant digits are never the
// same float64 (DBL_DIG; FLT_DIG = 6 for float32), so when the 15-digit
// decimal m×10^-k nearest v reads back as v, it is the shortest decimal
// that does, once its trailing zeros are dropped, and strconv would print
// its digits. Reading back is exact: m and 10^k are exact float64s, so
// m/10^k is the correctly rounded quotient, which is what
// strconv.ParseFloat returns. For float32, m < 2^24 and 10^k <= 10^10 are
// exact float32s too, and rounding the quotient to float64 and then to
// float32 still rounds it correctly (53 >= 2*24+2).
func shortDecimal(v float64, bits int) (m uint64, nd, e int, ok bool) {
	if v == 0 {
		return 0, 1, 0, true
	}
	a := math.Abs(v)
	digits, lo, hi, mlo, mhi := 15, 1e-8, 1e15, uint64(1e14), uint64(1e15)
	if bits == 32 {
		digits, lo, hi, mlo, mhi = 6, 1e-5, 1e6, 1e5, 1e6
	}
	if !(a >= lo && a < hi) { // NaN and ±Inf too
		return 0, 0, 0, false
	}
	// e = floor(log10(a)): estimated from the binary exponent (at most one
	// low), then corrected. A wrong e only makes m miss its range below.
	e = ((int(math.Float64bits(a)>>52) - 1023) * 78913) >> 18
	if a >= pow10s[e+1+pow10Bias] {
		e++
	}
	p := pow10s[digits-1-e+pow10Bias]
	m = uint64(int64(a*p + 0.5))
	if m < mlo || m >= mhi {
		return 0, 0, 0, false
	}
	if q := float64(m) / p; bits == 32 && float32(q) != float32(a) || bits != 32 && q != a {
		return 0, 0, 0, false
	}
	// drop trailing zeros (at most digits-1 of them)
	nd = digits
	if m%1e8 == 0 {
		m /= 1e8
		nd -= 8
	}
	if m%1e4 == 0 {
		m /= 1e4
		nd -= 4
	}
	if m%100 == 0 {
		m /= 100
		nd -= 2
	}
	if m%10 == 0 {
		m /= 10
		nd--
	}
	return m, nd, e, true
}

// appendDecimal appends the decimal of digits m (nd of them, at most 15)
// and exponent e (-8 <= e < 15) as strconv's shortest 'g' format does:
// d.ddde±XX when e < -4 or e >= 6, else plain.
func appendDecimal(dst []byte, neg bool, m uint64, nd, e int) []byte {
	var buf [16]byte
	d := buf[:nd]
	i := nd
	for m >= 100 {
		r := m % 100
		m /= 100
		i -= 2
		d[i], d[i+1] = digitPairs[2*r], digitPairs[2*r+1]
	}
	if m >= 10 {
		d[i-2], d[i-1] = digitPairs[2*m], digitPairs[2*m+1]
	} else {
		d[i-1] = byte('0' + m)
	}

	if neg {
		dst = append(dst, '-')
	}
	if e < -4 || e >= 6 {
		dst = append(dst, d[0])
		if nd > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		sign := byte('+')
		if e < 0 {
			sign, e = '-', -e
		}
		return append(dst, 'e', sign, byte('0'+e/10), byte('0'+e%10))
	}
	switch dp := e + 1; {
	case dp <= 0: // 0.000ddd
		dst = append(dst, "0.000"[:2-dp]...)
		dst = append(dst, d...)
	case dp >= nd: // ddd000
		dst = append(dst, d...)
		dst = append(dst, "00000"[:dp-nd]...)
	default:
		dst = append(dst, d[:dp]...)
		dst = append(dst, '.')
		dst = append(dst, d[dp:]...)
	}
	return dst
}

// decimalLen is the length appendDecimal gives.
func decimalLen(neg bool, nd, e int) int {
	n := nd
	if neg {
		n++
	}
	if e < -4 || e >= 6 {
		if nd > 1 {
			n++ // the point
		}
		return n + 4 // e±XX
	}
	switch dp := e + 1; {
	case dp <= 0:
		return n + 2 - dp
	case dp >= nd:
		return n - nd + dp
	}
	return n + 1
}

// appendQuoted appends s as an RFC 4180 field: quoted when it holds a
// comma, quote, CR or LF, or is empty (so an empty string differs from a
// missing value), with quotes doubled.
func appendQuoted(dst []byte, s string) []byte {
	need := s == ""
	for i := 0; i < len(s) && !need; i++ {
		switch s[i] {
		case ',', '"', '\n', '\r':
			need = true
		}
	}
	if !need {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}

// csvWidther is implemented by columns that bound their CSV fields more
// tightly than their Arrow type does; a width of 0 means no better bound.
type csvWidther interface{ csvWidth() int64 }

// csvFieldBound is an upper bound of the bytes of one field of c, for the
// size estimate shown before the data pass. Strings without a known width
// and categoricals get a guess.
func csvFieldBound(c ColumnSource) int64 {
	if w, ok := c.(csvWidther); ok && w.csvWidth() > 0 {
		return w.csvWidth()
	}
	switch c.Field().Type.ID() {
	case arrow.BOOL:
		return 5
	case arrow.INT8:
		return 4
	case arrow.UINT8:
		return 3
	case arrow.INT16:
		return 6
	case arrow.UINT16:
		return 5
	case arrow.INT32:
		return 11
	case arrow.UINT32:
		return 10
	case arrow.INT64, arrow.UINT64:
		return 20
	case arrow.FLOAT16, arrow.FLOAT32:
		return 16
	case arrow.FLOAT64:
		return 24
	case arrow.STRING, arrow.LARGE_STRING:
		return int64(2*stringBound(c) + 2)
	case arrow.FIXED_SIZE_BINARY: // base64
		return 4 * int64(c.Field().Type.(*arrow.FixedSizeBinaryType).ByteWidth+2) / 3
	case arrow.STRUCT, arrow.FIXED_SIZE_LIST:
		return jsonCellBound(c)
	}
	return unknownWidth
}

// unknownWidth is the guessed width of values whose width metadata does
// not bound.
const unknownWidth = 64

// stringBound is the most bytes one string value of c holds: the
// element size of fixed-length strings, else a guess.
func stringBound(c ColumnSource) int {
	if rs, ok := c.(RawSource); ok && rs.ElemSize() > 0 {
		return rs.ElemSize()
	}
	return unknownWidth
}
