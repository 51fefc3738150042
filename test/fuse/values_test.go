package fuse_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/h5fs/h5fs/test/fuse/fusetest"
)

// TestTableValues checks every table of every fixture through the mount:
// each column's .raw against the expected sha256, each column's .csv and
// the whole-table .csv against the expected values.
func TestTableValues(t *testing.T) {
	for _, name := range fusetest.FixtureFiles(t) {
		exp, ok := fusetest.LoadExpected(t, name)
		if !ok || len(exp.Tables) == 0 {
			continue
		}
		t.Run(filepath.Base(name), func(t *testing.T) {
			mp := fusetest.Mount(t, name, nil)
			for _, tb := range exp.Tables {
				dir := fusetest.MountPath(mp, tb.Path)
				for _, c := range tb.Columns {
					col := filepath.Join(dir, fsnodeName(c.Name))
					if c.RawSHA256 != "" {
						checkSHA(t, col+".raw", c.RawSHA256)
					}
					rows := readCSV(t, col+".csv")
					if rows == nil {
						continue
					}
					if len(rows[0]) != 1 || rows[0][0] != c.Name {
						t.Errorf("%s.csv: header %q, want %q", col, rows[0], c.Name)
					}
					if int64(len(rows)-1) != tb.NRows {
						t.Errorf("%s.csv: %d rows, want %d", col, len(rows)-1, tb.NRows)
						continue
					}
					for i, r := range rows[1:] {
						if want, ok := expectedAt(c, i, tb.NRows); ok && c.Kind != "opaque" && c.Kind != "compound" {
							if err := sameValue(c, r[0], tb.Label(c, i, want)); err != nil {
								t.Errorf("%s.csv row %d: %v", col, i, err)
								break
							}
						}
					}
				}
				whole := readCSV(t, fusetest.WholeTable(mp, tb.Path, "csv"))
				if whole != nil && int64(len(whole)-1) != tb.NRows {
					t.Errorf("%s: whole-table csv has %d rows, want %d", tb.Path, len(whole)-1, tb.NRows)
				}
				if whole != nil && len(whole[0]) != len(tb.Columns)+tb.IndexColumnCount() {
					t.Errorf("%s: whole-table csv header %q, want %d columns", tb.Path, whole[0], len(tb.Columns))
				}
			}
			for _, o := range exp.Others {
				if o.Type == "dataset" && o.SHA256 != "" {
					checkSHA(t, fusetest.MountPath(mp, o.Path)+".raw", o.SHA256)
				}
			}
		})
	}
}

// fsnodeName is the file-name stem of a column.
func fsnodeName(name string) string { return filepath.Base(fusetest.MountPath("/", name)) }

func checkSHA(t *testing.T, p, want string) {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Errorf("%v", err)
		return
	}
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != want {
		t.Errorf("%s: sha256 %x, want %s", p, h, want)
	}
}

// readCSV parses a CSV file of the mount; nil (and a test error) if it
// cannot be read.
func readCSV(t *testing.T, p string) [][]string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Errorf("%v", err)
		return nil
	}
	rows, err := fusetest.ReadCSV(b)
	if err != nil || len(rows) == 0 {
		t.Errorf("%s: %v (%d rows)", p, err, len(rows))
		return nil
	}
	return rows
}

// expectedAt returns the expected value of row i, when the fixture gives it
// (large tables give only the first and last rows).
func expectedAt(c fusetest.ExpectedColumn, i int, nrows int64) (any, bool) {
	switch {
	case c.Values != nil:
		return c.Values[i], true
	case i < len(c.Head):
		return c.Head[i], true
	case int64(i) >= nrows-int64(len(c.Tail)):
		return c.Tail[int64(i)-(nrows-int64(len(c.Tail)))], true
	}
	return nil, false
}

// sameValue compares one CSV field with an expected value: missing is an
// empty field, categorical codes show as their labels, numbers compare at
// the column's precision. Compounds and opaque values are not compared.
func sameValue(c fusetest.ExpectedColumn, got string, want any) error {
	if want == nil {
		if got != "" {
			return fmt.Errorf("got %q, want an empty field (missing)", got)
		}
		return nil
	}
	switch w := want.(type) {
	case string:
		if isFloatKind(c) || w == "NaN" || w == "Infinity" || w == "-Infinity" {
			return sameFloat(c, got, w)
		}
		if got != w {
			return fmt.Errorf("got %q, want %q", got, w)
		}
	case json.Number:
		if strings.HasPrefix(c.PandasDType, "datetime64") {
			// nanoseconds since the epoch, shown as an ISO 8601 timestamp
			ts, err := time.Parse("2006-01-02T15:04:05.999999999", got)
			if err != nil || strconv.FormatInt(ts.UnixNano(), 10) != string(w) {
				return fmt.Errorf("got %q, want %s ns", got, w)
			}
			return nil
		}
		if c.Kind == "bool8" {
			if (w == "1" && (got == "true" || got == "1")) || (w == "0" && (got == "false" || got == "0")) {
				return nil
			}
			return fmt.Errorf("got %q, want %s", got, w)
		}
		if isFloatKind(c) {
			return sameFloat(c, got, string(w))
		}
		if got != string(w) {
			return fmt.Errorf("got %q, want %s", got, w)
		}
	}
	return nil
}

func isFloatKind(c fusetest.ExpectedColumn) bool {
	return c.Kind == "float" || c.DType["class"] == "float"
}

// sameFloat compares floats at the column's width.
func sameFloat(c fusetest.ExpectedColumn, got, want string) error {
	g, err1 := strconv.ParseFloat(strings.TrimSpace(got), 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("got %q, want %s", got, want)
	}
	size := fusetest.Int(c.DType["size"])
	switch {
	case math.IsNaN(g) && math.IsNaN(w):
	case size == 4 && float32(g) == float32(w):
	case size == 2 && math.Abs(g-w) <= 1e-3*math.Abs(w):
	case g == w:
	default:
		return fmt.Errorf("got %q, want %s", got, want)
	}
	return nil
}
