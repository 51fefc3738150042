package arrowexport

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ParquetStatSize returns the size a Parquet view of t shows at its first
// stat, without keeping the view: exact when the sizing cache holds its
// layout, when a table of the same shape was sized before (see
// parquetShapeKey), or when its size bound is at most limit (by sizing it:
// making the view and its data pass); else the bound.
func ParquetStatSize(t *Table, opts Options, limit int64) (size int64, exact bool, err error) {
	rows, unit, err := checkTable(t)
	if err != nil {
		return 0, false, err
	}
	var l framedLayout
	if opts.load(parquetKind(unit), &l) {
		return l.size(), true, nil
	}
	key, shaped := parquetShapeKey(t, rows, unit)
	if shaped {
		if size, ok := parquetSizes.load(key); ok {
			return size, true, nil
		}
	}
	if est := parquetEstimate(t, rows, numUnits(rows, unit)); est > limit {
		return est, false, nil
	}
	v, err := NewParquetView(t, opts)
	if err != nil {
		return 0, false, err
	}
	if err := v.Finalize(); err != nil {
		return 0, false, err
	}
	if shaped {
		parquetSizes.store(key, v.Size())
	}
	return v.Size(), true, nil
}

// parquetSizes is the memo of the sizes of Parquet views whose size
// depends on their shape alone.
var parquetSizes shapeMemo[int64]

// parquetShapeKey returns the shape key (see shapeKey) of a table whose
// Parquet size depends on nothing else: every column a non-nullable
// integer or boolean. Its pages are PLAIN values of a fixed width (no
// definition levels), and its statistics (page and column chunk min and
// max) have that width too, so two such tables of one schema, row count
// and row group length differ in bytes, never in size.
func parquetShapeKey(t *Table, rows, unit int64) (string, bool) {
	for _, c := range t.Columns {
		f := c.Field()
		if f.Nullable || !(arrow.IsInteger(f.Type.ID()) || f.Type.ID() == arrow.BOOL) {
			return "", false
		}
	}
	return shapeKey(t.schema(), rows, unit)
}

// parquetKind is the cache entry kind of a Parquet view with unit rows per
// row group.
func parquetKind(unit int64) string {
	return kindOf(parquetLayoutVersion, arrowGoVersion(), fmt.Sprint(unit))
}

// parquetEstimate is an upper bound of the size of table t as Parquet,
// with rows rows in nunits row groups, for the usual types.
func parquetEstimate(t *Table, rows int64, nunits int) int64 {
	perRow := int64(0)
	for _, c := range t.Columns {
		if w := fixedBits(c.Field().Type); w > 0 && c.Field().Type.ID() != arrow.DICTIONARY {
			if arrow.IsInteger(c.Field().Type.ID()) {
				w = max(w, 32) // Parquet stores narrower integers as INT32
			}
			perRow += (w+7)/8 + 1
		} else {
			perRow += int64(stringBound(c)) + 5
		}
	}
	perGroup := int64(len(t.Columns)) * 512
	return 8192 + 2048*int64(len(t.Columns)) + int64(nunits)*perGroup + rows*perRow
}
