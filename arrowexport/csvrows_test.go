package arrowexport

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// TestCSVRowAt checks RowAt against the line starts encoding/csv finds:
// every line start maps to its row, and an offset after a line break
// inside a quoted field, inside a line, inside the header or past the
// end is no row boundary.
func TestCSVRowAt(t *testing.T) {
	for _, rows := range []int{0, 1, 300} {
		tbl, _ := testTable(rows)
		v, err := NewCSVView(tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := checkView(t, v)
		r := csv.NewReader(bytes.NewReader(b))
		starts := map[int64]int64{0: 0} // line start -> rows before it
		for k := int64(0); ; k++ {
			if _, err := r.Read(); err != nil {
				break
			}
			starts[r.InputOffset()] = k
		}
		if len(starts) != rows+2 {
			t.Fatalf("%d rows: encoding/csv finds %d line starts", rows, len(starts))
		}
		// offsets to try: every line start, the byte after it, every byte
		// after a line break, the end of the header and past the end
		offs := map[int64]bool{int64(len(v.header)) - 1: true, int64(len(b)) + 1: true}
		for off := range starts {
			offs[off], offs[off+1] = true, true
		}
		for i, c := range b {
			if c == '\n' {
				offs[int64(i)+1] = true
			}
		}
		var quotedBreaks int
		for off := range offs {
			want, wantOK := starts[off]
			got, ok, err := v.RowAt(off)
			if err != nil {
				t.Fatal(err)
			}
			if ok != wantOK || ok && got != want {
				t.Fatalf("%d rows: RowAt(%d) = %d, %v; want %d, %v", rows, off, got, ok, want, wantOK)
			}
			if !wantOK && off > 0 && off < int64(len(b)) && b[off-1] == '\n' {
				quotedBreaks++
			}
		}
		if rows > 100 && quotedBreaks == 0 {
			t.Errorf("%d rows: no line break inside a quoted field was tried", rows)
		}
	}
}
