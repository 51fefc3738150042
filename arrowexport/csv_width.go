package arrowexport

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Before its data pass, a CSV view shows a bound of its size. The type
// alone bounds a field loosely (an int32 may take 11 bytes where the
// data's take 3); a column whose chunks have ChunkStats (a sound
// CHUNK_MINMAX index) is bounded chunk by chunk from them instead: an
// integer field by the digits of the chunk's least and greatest values, a
// float field by the decimal exponents between them, booleans by "false".

// csvRowsBound bounds the bytes of rows rows of t as CSV lines (every
// field, separator and line end), of which the type bound perRow (every
// column's csvFieldBound and its separator) bounds one line.
func csvRowsBound(t *Table, rows, perRow int64) int64 {
	n := int64(0)
	for _, c := range t.Columns {
		n += columnRowsBound(c, rows)
	}
	return min(n, rows*max(perRow, 3))
}

// columnRowsBound bounds the bytes of column c's fields in rows rows,
// each with its separator (a comma, or the line end).
func columnRowsBound(c ColumnSource, rows int64) int64 {
	whole := rows * (csvFieldBound(c) + 1)
	cs, ok := c.(ChunkStatsSource)
	if !ok || rows == 0 {
		return whole
	}
	cr := max(c.ChunkRows(), 1)
	n := int64(0)
	for k := int64(0); k*cr < rows; k++ {
		s, ok := cs.ChunkStats(k)
		if !ok {
			return whole
		}
		w, ok := statsWidth(c.Field().Type, s)
		if !ok {
			return whole
		}
		n += min(cr, rows-k*cr) * (w + 1)
	}
	return n
}

// statsWidth bounds the CSV field of any value of a chunk of type t with
// stats s, a missing one included (at most 2 bytes, ""); ok is false when
// s says too little.
func statsWidth(t arrow.DataType, s ChunkStats) (int64, bool) {
	w := int64(0)
	if s.Nulls > 0 {
		w = 2
	}
	if s.Min == nil || s.Max == nil {
		return w, s.Min == nil && s.Max == nil && s.NaNs == 0 // all missing
	}
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		lo, ok1 := intDigits(s.Min)
		hi, ok2 := intDigits(s.Max)
		return max(w, lo, hi), ok1 && ok2
	case arrow.FLOAT32, arrow.FLOAT64:
		lo, ok1 := s.Min.(float64)
		hi, ok2 := s.Max.(float64)
		if !ok1 || !ok2 {
			return 0, false
		}
		if s.NaNs > 0 {
			w = max(w, 3) // nan
		}
		digits := 17
		if t.ID() == arrow.FLOAT32 {
			digits = 9
		}
		return max(w, floatWidth(lo, hi, digits)), true
	case arrow.BOOL:
		return max(w, 5), true
	}
	return 0, false
}

// intDigits is the length of integer v (int64 or uint64) in decimal.
func intDigits(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return int64(len(strconv.FormatInt(x, 10))), true
	case uint64:
		return int64(len(strconv.FormatUint(x, 10))), true
	}
	return 0, false
}

// floatWidth bounds the length of the shortest 'g' form (see appendFloat)
// of any float in [lo, hi] with at most digits significant digits: from
// the decimal exponents between them when the range holds no zero (one
// more each way, as rounding to fewer digits may carry), else the longest
// form there is.
func floatWidth(lo, hi float64, digits int) int64 {
	neg := int64(0)
	if lo < 0 {
		neg = 1
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || (lo <= 0 && hi >= 0) {
		return neg + int64(digits) + 1 + 5 // d.ddde-308
	}
	a, b := math.Abs(lo), math.Abs(hi)
	if a > b {
		a, b = b, a
	}
	elo, ehi := int(math.Floor(math.Log10(a)))-1, int(math.Floor(math.Log10(b)))+1
	d := int64(digits)
	w := int64(0)
	for e := elo; e <= ehi; e++ {
		var n int64
		switch {
		case e < -4 || e >= 6: // d.ddde±XX
			n = d + 1 + 2 + max(2, int64(len(strconv.Itoa(abs(e)))))
		case e >= 0: // ddd.ddd
			n = max(d, int64(e)+1) + 1
		default: // 0.000ddd
			n = 2 + int64(-e-1) + d
		}
		w = max(w, n)
	}
	return neg + w
}

func abs(e int) int {
	if e < 0 {
		return -e
	}
	return e
}

// DataBytes estimates the stored bytes the data pass of v reads: the
// values of its fixed-width columns, and the bound of the text of the
// others. A view whose bound is loose may still be cheap to size exactly
// (a few rows of wide integers).
func (v *CSVView) DataBytes() int64 {
	n := int64(0)
	for _, c := range v.t.Columns {
		if w := fixedBits(c.Field().Type); w > 0 {
			n += v.rows * ((w + 7) / 8)
		} else {
			n += v.rows * csvFieldBound(c)
		}
	}
	return n
}
