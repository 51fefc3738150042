package arrowexport

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ParquetStatSize returns the size a Parquet view of t shows until it is
// opened, without making the view (making it converts the schema for
// every column, which costs more than a directory listing should pay per
// file): exact when the sizing cache holds its layout, else the view's
// size bound.
func ParquetStatSize(t *Table, opts Options) (size int64, exact bool, err error) {
	rows, unit, err := checkTable(t)
	if err != nil {
		return 0, false, err
	}
	var l framedLayout
	if opts.load(parquetKind(unit), &l) {
		return l.size(), true, nil
	}
	return parquetEstimate(t, rows, numUnits(rows, unit)), false, nil
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
