package arrowexport

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ParquetCachedSize returns the exact size of a Parquet view of t when
// the sizing cache holds its layout, without making the view (making it
// converts the schema for every column, which costs more than a stat of
// an unchanged file should); ok is false otherwise.
func ParquetCachedSize(t *Table, opts Options) (size int64, ok bool) {
	_, unit, err := checkTable(t)
	if err != nil {
		return 0, false
	}
	var l framedLayout
	if !opts.load(parquetKind(unit), &l) {
		return 0, false
	}
	return l.size(), true
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
