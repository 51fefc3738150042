package fusetest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/fsnode"
)

// Expected is the part of a fixture's <name>.expected.json the kernel
// tests check (see shared/fixtures/README.md).
type Expected struct {
	Kind   string          `json:"kind"`
	Tables []ExpectedTable `json:"tables"`
	Others []ExpectedObj   `json:"other_objects"`
}

// ExpectedTable is one table of a fixture.
type ExpectedTable struct {
	Path         string           `json:"path"`
	NRows        int64            `json:"nrows"`
	ColumnOrder  []string         `json:"column_order"`
	IndexColumns []string         `json:"index_columns"`
	Columns      []ExpectedColumn `json:"columns"`
	Index        json.RawMessage  `json:"index"` // pandas: the index column
	Categories   []struct {
		Path   string `json:"path"`
		Labels []any  `json:"labels"`
	} `json:"categories"`
}

// Label returns what a reader shows for row i of column c, whose expected
// value is v: for a categorical column the label of the code, else v.
func (t ExpectedTable) Label(c ExpectedColumn, i int, v any) any {
	if c.Kind != "cat" || v == nil {
		return v
	}
	if i < len(c.Labels) {
		return c.Labels[i]
	}
	for _, k := range t.Categories {
		if code := Int(v); k.Path == c.CategoriesPath && code >= 0 && code < int64(len(k.Labels)) {
			return k.Labels[code]
		}
	}
	return v
}

// IndexColumnCount is the number of columns the table has besides
// Columns (the pandas index).
func (t ExpectedTable) IndexColumnCount() int {
	if len(t.Index) > 0 && t.Index[0] == '{' {
		return 1
	}
	return 0
}

// ExpectedColumn is one column of a table.
type ExpectedColumn struct {
	Name           string         `json:"name"`
	Kind           string         `json:"kind"`
	DType          map[string]any `json:"dtype"`
	Values         []any          `json:"values"`
	Head           []any          `json:"values_head"`
	Tail           []any          `json:"values_tail"`
	Labels         []any          `json:"labels"` // per row, for categoricals
	CategoriesPath string         `json:"categories_path"`
	PandasDType    string         `json:"pandas_dtype"`
	RawSHA256      string         `json:"raw_le_sha256"`
}

// ExpectedObj is a dataset or group beside the tables.
type ExpectedObj struct {
	Path   string  `json:"path"`
	Type   string  `json:"type"`
	Shape  []int64 `json:"shape"`
	DType  string  `json:"dtype"`
	Values any     `json:"values"`
	SHA256 string  `json:"sha256_le"`
}

// LoadExpected reads the expected JSON beside an .h5 fixture; ok is false
// when there is none.
func LoadExpected(t testing.TB, h5 string) (*Expected, bool) {
	b, err := os.ReadFile(strings.TrimSuffix(h5, ".h5") + ".expected.json")
	if err != nil {
		return nil, false
	}
	var e Expected
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&e); err != nil {
		t.Fatalf("%s: %v", h5, err)
	}
	return &e, true
}

// MountPath returns where the mount at mp shows the HDF5 path p.
func MountPath(mp, p string) string {
	out := mp
	for _, c := range strings.Split(p, "/") {
		if c != "" {
			out = filepath.Join(out, fsnode.EscapeName(c))
		}
	}
	return out
}

// WholeTable returns the whole-table file of table path p in format ext:
// <table>.<ext> beside the table's directory, _table.<ext> for the root.
func WholeTable(mp, p, ext string) string {
	if strings.Trim(p, "/") == "" {
		return filepath.Join(mp, "_table."+ext)
	}
	return MountPath(mp, p) + "." + ext
}

// Numeric reports whether c holds plain numbers (ints or floats, no NaN or
// infinity, no integer beyond 2^53 that a float64 reader would round), and
// their count and sum when missing values are skipped.
func (c ExpectedColumn) Numeric() (n int64, sum float64, ok bool) {
	n, sum, _, ok = c.numeric()
	return n, sum, ok
}

// SumNear reports whether got is the sum of c's values, to the precision a
// reader of their text (or float64) forms can reach: float32 text parsed
// as float64 is off by up to 2^-24 of each value.
func (c ExpectedColumn) SumNear(got float64) bool {
	_, sum, abs, _ := c.numeric()
	eps := 1e-12
	if c.Kind == "float" && Int(c.DType["size"]) <= 4 {
		eps = 1.0 / (1 << 23)
	}
	return math.Abs(got-sum) <= eps*abs+1e-9
}

func (c ExpectedColumn) numeric() (n int64, sum, abs float64, ok bool) {
	if (c.Kind != "int" && c.Kind != "float") || c.Values == nil {
		return 0, 0, 0, false
	}
	for _, v := range c.Values {
		if v == nil {
			continue
		}
		num, isNum := v.(json.Number)
		if !isNum {
			return 0, 0, 0, false
		}
		f, err := num.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || (c.Kind == "int" && math.Abs(f) > 1<<53) {
			return 0, 0, 0, false
		}
		n++
		sum += f
		abs += math.Abs(f)
	}
	return n, sum, abs, true
}

// Int returns a JSON integer, or -1 for anything else.
func Int(v any) int64 {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	return -1
}
