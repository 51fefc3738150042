package main

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"math"
	"strconv"
	"testing"
)

// TestCatDatasetCSV: `h5fs cat` serves an ordinary dataset's CSV, whose
// cells are the values of its .raw file: header 0..n-1, one line per row.
func TestCatDatasetCSV(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	const file, ds = "sample/sample.h5", "run1/calibration" // 8×8 float32
	var text, raw bytes.Buffer
	if err := runCat([]string{file, ds + ".csv"}, &text); err != nil {
		t.Fatal(err)
	}
	if err := runCat([]string{file, ds + ".raw"}, &raw); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&text).ReadAll()
	if err != nil || len(recs) != 9 {
		t.Fatalf("%d records: %v", len(recs), err)
	}
	for j, h := range recs[0] {
		if h != "c"+strconv.Itoa(j) {
			t.Fatalf("header %q", recs[0])
		}
	}
	for i, rec := range recs[1:] {
		for j, cell := range rec {
			want := math.Float32frombits(binary.LittleEndian.Uint32(raw.Bytes()[4*(8*i+j):]))
			got, err := strconv.ParseFloat(cell, 32)
			if err != nil || float32(got) != want {
				t.Fatalf("row %d column %d: %q, want %v", i, j, cell, want)
			}
		}
	}
}
