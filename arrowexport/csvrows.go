package arrowexport

import (
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// RowAt returns the number of rows whose lines end at or before byte off
// of the CSV, when off is where a line starts (the end of the header for
// row 0, the end of the file for all rows; 0, an empty file, also counts
// as no rows). ok is false for an offset inside a line or past the end.
// It renders at most the block holding off, row by row.
func (v *CSVView) RowAt(off int64) (rows int64, ok bool, err error) {
	if err := v.Finalize(); err != nil {
		return 0, false, err
	}
	v.mu.Lock()
	starts := v.starts
	v.mu.Unlock()
	if off == 0 {
		return 0, true, nil
	}
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	switch {
	case i < 0 || i == len(starts)-1 && off > starts[i]:
		return 0, false, nil // inside the header, or past the end
	case off == starts[i]:
		return min(int64(i)*v.block, v.rows), true, nil
	}
	start, _ := unitRange(i, v.block, v.rows)
	err = v.withBlock(i, func(arrs []arrow.Array) {
		pos, line := starts[i], []byte(nil)
		one := make([]arrow.Array, len(arrs))
		for r := range arrs[0].Len() {
			for j, a := range arrs {
				one[j] = array.NewSlice(a, int64(r), int64(r+1))
			}
			line = appendRows(line[:0], one)
			releaseAll(one)
			if pos += int64(len(line)); pos >= off {
				rows, ok = start+int64(r)+1, pos == off
				return
			}
		}
	})
	return rows, ok, err
}
