package table

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/h5fs/h5fs/h5core"
)

// fixtureDir is the shared conformance corpus, beside the repository.
const fixtureDir = "../../shared/fixtures/hep001"

type obj = map[string]any

// loadExpected reads one expected JSON with exact numbers.
func loadExpected(t *testing.T, path string) obj {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m obj
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestConformance reads every file of the shared corpus as its expected
// JSON says.
func TestConformance(t *testing.T) {
	runCorpus(t, fixtureDir)
}

// TestOwnCorpus does the same for the files of testdata/gen.py.
func TestOwnCorpus(t *testing.T) {
	runCorpus(t, "testdata")
}

func runCorpus(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.expected.json"))
	if len(files) == 0 {
		t.Skip("corpus " + dir + " absent")
	}
	for _, ej := range files {
		exp := loadExpected(t, ej)
		name := exp["file"].(string)
		t.Run(strings.TrimSuffix(name, ".h5"), func(t *testing.T) {
			checkFixture(t, filepath.Join(dir, name), exp)
		})
	}
}

func checkFixture(t *testing.T, path string, exp obj) {
	f, err := h5core.Open(path)
	if exp["kind"] == "broken" {
		checkBroken(t, f, err, exp)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tables, fs, err := Discover(f, Lenient)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range fs {
		t.Errorf("file finding: %v", x)
	}
	want := exp["tables"].([]any)
	if len(tables) != len(want) {
		var got []string
		for _, tb := range tables {
			got = append(got, tb.Path)
		}
		t.Errorf("found %d tables %v, want %d", len(tables), got, len(want))
	}
	for _, w := range want {
		w := w.(obj)
		p := w["path"].(string)
		i := slices.IndexFunc(tables, func(tb *Table) bool { return tb.Path == p })
		if i < 0 {
			t.Errorf("table %s not found", p)
			continue
		}
		t.Run(strings.ReplaceAll(p, "/", "_"), func(t *testing.T) {
			if w["kind"] == KindHEP001 {
				checkHEP001(t, tables[i], w)
			} else {
				checkRowTable(t, tables[i], w)
			}
		})
	}
}

// checkBroken matches a broken file's expected behaviour: open fails, or
// no table is shown and (for defects of a table) a finding names it.
func checkBroken(t *testing.T, f *h5core.File, openErr error, exp obj) {
	behaviour := exp["expected_behaviour"].(string)
	if openErr != nil {
		if !strings.Contains(behaviour, "fail") {
			t.Fatalf("open: %v (expected: %s)", openErr, behaviour)
		}
		return
	}
	defer f.Close()
	tables, fs, err := Discover(f, Lenient)
	if err != nil {
		if !strings.Contains(behaviour, "fail") {
			t.Fatalf("discover: %v", err)
		}
		return
	}
	if len(tables) != 0 {
		t.Errorf("%d tables shown, want none (%s)", len(tables), behaviour)
	}
	if want, ok := exp["findings"].([]any); ok { // the repo's own broken files
		for _, w := range want {
			w := w.(obj)
			wantFinding(t, fs, w["path"].(string), w["rule"].(string))
		}
		return
	}
	switch {
	case strings.Contains(behaviour, "NOT a HEP001"):
		if len(fs) != 0 {
			t.Errorf("findings %v for a file with no table", fs)
		}
	case strings.Contains(behaviour, "NROWS"):
		wantFinding(t, fs, "/t", "§7.3")
	case strings.Contains(behaviour, "extents"):
		wantFinding(t, fs, "/t", "§12")
	default:
		wantFinding(t, fs, "/t", "")
	}
}

func wantFinding(t *testing.T, fs []Finding, path, rule string) {
	t.Helper()
	for _, f := range fs {
		if f.Path == path && f.Severity == SevError && strings.HasPrefix(f.Rule, rule) {
			return
		}
	}
	t.Errorf("no error finding %s for %s in %v", rule, path, fs)
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func checkHEP001(t *testing.T, tb *Table, w obj) {
	if tb.Kind != KindHEP001 {
		t.Fatalf("kind %s", tb.Kind)
	}
	if n := mustInt(w["nrows"]); tb.NRows != n {
		t.Errorf("NRows %d, want %d", tb.NRows, n)
	}
	if tb.Version != w["version"] {
		t.Errorf("version %q, want %v", tb.Version, w["version"])
	}
	order := strs(w["column_order"])
	if !slices.Equal(tb.ColumnOrder, order) {
		t.Errorf("column order %v, want %v", tb.ColumnOrder, order)
	}
	idx := strs(w["index_columns"])
	if s, ok := w["_index"].(string); ok && !slices.Contains(idx, s) {
		idx = append(idx, s)
	}
	if !slices.Equal(tb.IndexColumns, idx) {
		t.Errorf("index columns %v, want %v", tb.IndexColumns, idx)
	}
	view := slices.Clone(idx)
	for _, n := range order {
		if !slices.Contains(idx, n) {
			view = append(view, n)
		}
	}
	var got []string
	for _, c := range tb.Columns {
		got = append(got, c.Name)
	}
	if !slices.Equal(got, view) {
		t.Errorf("view order %v, want %v", got, view)
	}
	for k, v := range w["attributes"].(obj) {
		if tb.Attrs[k] != v {
			t.Errorf("attribute %s = %q, want %q", k, tb.Attrs[k], v)
		}
	}
	for _, e := range tb.Findings {
		if e.Severity == SevError {
			t.Errorf("finding: %v", e)
		}
	}
	for _, wc := range w["columns"].([]any) {
		wc := wc.(obj)
		c := tb.Column(wc["name"].(string))
		if c == nil {
			t.Errorf("column %s missing", wc["name"])
			continue
		}
		t.Run(c.Name, func(t *testing.T) { checkColumn(t, c, wc) })
	}
	checkCategories(t, tb, w)
	checkSearchIndexes(t, tb, w)
	for _, e := range tb.Check(true) {
		if e.Severity == SevError {
			t.Errorf("check: %v", e)
		}
	}
}

func mustInt(v any) int64 {
	n, err := v.(json.Number).Int64()
	if err != nil {
		panic(err)
	}
	return n
}

var logicalOf = map[string]string{
	"int": LogicalInt, "float": LogicalFloat, "bool8": LogicalBool, "enum": LogicalEnum, "fstr": LogicalString,
	"vstr": LogicalString, "compound": LogicalCompound, "opaque": LogicalOpaque, "cat": LogicalCategorical,
}

func checkColumn(t *testing.T, c *Column, w obj) {
	if want := logicalOf[w["kind"].(string)]; c.Logical != want {
		t.Errorf("logical %s, want %s", c.Logical, want)
	}
	if h, ok := w["fill_value_hex"].(string); ok && hex.EncodeToString(c.Fill) != h {
		t.Errorf("fill %x, want %s", c.Fill, h)
	}
	if a, ok := w["attributes"].(obj); ok {
		if u, ok := a["units"]; ok && c.Units != u {
			t.Errorf("units %q, want %q", c.Units, u)
		}
		if u, ok := a["units_vocabulary"]; ok && c.UnitsVocabulary != u {
			t.Errorf("units_vocabulary %q, want %q", c.UnitsVocabulary, u)
		}
		if d, ok := a["description"]; ok && c.Description != d {
			t.Errorf("description %q, want %q", c.Description, d)
		}
	}
	if (w["valid_min"] != nil) != (c.ValidMin != "") {
		t.Errorf("valid_min %q, want %v", c.ValidMin, w["valid_min"])
	}
	if p, ok := w["categories_path"].(string); ok && (c.Categories == nil || c.Categories.Path != p) {
		t.Errorf("categories %v, want %s", c.Categories, p)
	}
	var sis []string
	for _, si := range c.SearchIndexes {
		sis = append(sis, si.Path)
	}
	if want := strs(w["search_indexes"]); !slices.Equal(sis, want) && !(len(want) == 0 && len(sis) == 0) {
		t.Errorf("search indexes %v, want %v", sis, want)
	}
	f := c.Field()
	if f.Nullable != (c.Fill != nil) {
		t.Errorf("nullable %v with fill %x", f.Nullable, c.Fill)
	}
	checkValues(t, c, w)
	if h, ok := w["raw_le_sha256"].(string); ok {
		if got := rawSHA(t, c); got != h {
			t.Errorf("raw sha256 %s, want %s", got, h)
		}
	}
}

// rawSHA hashes ReadRaw of every row, read in uneven batches.
func rawSHA(t *testing.T, c *Column) string {
	h := sha256.New()
	step := max(c.ChunkRows/3+7, 1)
	buf := make([]byte, step*int64(c.ElemSize))
	for s := int64(0); s < c.t.NRows; s += step {
		n := min(step, c.t.NRows-s)
		if err := c.ReadRaw(s, n, buf); err != nil {
			t.Fatal(err)
		}
		h.Write(buf[:n*int64(c.ElemSize)])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readAll reads every row, in batches that start and end inside chunks.
func readAll(t *testing.T, c *Column, from, to int64) []any {
	var out []any
	step := max(c.ChunkRows*2/3+1, 1)
	for s := from; s < to; s += step {
		n := min(step, to-s)
		a, err := c.Read(s, n)
		if err != nil {
			t.Fatal(err)
		}
		if a.Len() != int(n) {
			t.Fatalf("read %d rows, got %d", n, a.Len())
		}
		if !arrow.TypeEqual(a.DataType(), c.Field().Type) {
			t.Fatalf("array type %s, field type %s", a.DataType(), c.Field().Type)
		}
		for i := 0; i < a.Len(); i++ {
			out = append(out, goValue(a, i))
		}
		a.Release()
	}
	return out
}

func checkValues(t *testing.T, c *Column, w obj) {
	n := c.t.NRows
	type part struct {
		key      string
		from, to int64
	}
	parts := []part{{"values", 0, n}}
	if w["values"] == nil {
		h := int64(len(w["values_head"].([]any)))
		parts = []part{{"values_head", 0, h}, {"values_tail", n - int64(len(w["values_tail"].([]any))), n}}
	}
	for _, p := range parts {
		got := readAll(t, c, p.from, p.to)
		want := w[p.key].([]any)
		labels, _ := w[strings.Replace(p.key, "values", "labels", 1)].([]any)
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", p.key, len(got), len(want))
		}
		bad := 0
		for i := range want {
			g := got[i]
			if d, ok := g.(dictValue); ok {
				g = d.index
				if labels != nil && !sameValue(labels[i], d.label) {
					t.Errorf("row %d: label %v, want %v", p.from+int64(i), d.label, labels[i])
				}
				if c.Logical == LogicalEnum {
					g = d.label
				}
			}
			if !sameValue(want[i], g) {
				if bad++; bad <= 5 {
					t.Errorf("%s row %d: got %#v, want %#v", p.key, p.from+int64(i), g, want[i])
				}
			}
		}
	}
}

// dictValue is one element of a dictionary array.
type dictValue struct {
	index any
	label any
}

// goValue returns element i of an Arrow array as a Go value.
func goValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case interface{ Value(int) int8 }:
		return int64(x.Value(i))
	case interface{ Value(int) int16 }:
		return int64(x.Value(i))
	case interface{ Value(int) int32 }:
		return int64(x.Value(i))
	case interface{ Value(int) int64 }:
		return x.Value(i)
	case interface{ Value(int) uint8 }:
		return uint64(x.Value(i))
	case interface{ Value(int) uint16 }:
		return uint64(x.Value(i))
	case interface{ Value(int) uint32 }:
		return uint64(x.Value(i))
	case interface{ Value(int) uint64 }:
		return x.Value(i)
	case interface{ Value(int) float32 }:
		return float64(x.Value(i))
	case interface{ Value(int) float64 }:
		return x.Value(i)
	case interface{ Value(int) bool }:
		return x.Value(i)
	case interface{ Value(int) string }:
		return x.Value(i)
	case interface{ Value(int) []byte }:
		return hex.EncodeToString(x.Value(i))
	}
	if x, ok := a.(interface{ Value(int) arrow.Timestamp }); ok {
		return int64(x.Value(i))
	}
	if x, ok := a.(interface{ Value(int) float16.Num }); ok {
		return float64(x.Value(i).Float32())
	}
	switch x := a.(type) {
	case interface {
		GetValueIndex(int) int
		Dictionary() arrow.Array
	}:
		k := x.GetValueIndex(i)
		return dictValue{int64(k), goValue(x.Dictionary(), k)}
	case interface {
		Field(int) arrow.Array
		NumField() int
	}:
		st := a.DataType().(*arrow.StructType)
		m := obj{}
		for k := 0; k < x.NumField(); k++ {
			m[st.Field(k).Name] = goValue(x.Field(k), i)
		}
		return m
	case interface {
		ListValues() arrow.Array
		ValueOffsets(int) (int64, int64)
	}:
		s, e := x.ValueOffsets(i)
		var l []any
		for k := s; k < e; k++ {
			l = append(l, goValue(x.ListValues(), int(k)))
		}
		return l
	}
	return fmt.Sprintf("unhandled %s", a.DataType())
}

// sameValue compares an expected JSON value with a Go value.
func sameValue(want, got any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case json.Number:
		switch g := got.(type) {
		case int64:
			return w.String() == fmt.Sprint(g)
		case uint64:
			return w.String() == fmt.Sprint(g)
		case bool:
			return w.String() == map[bool]string{false: "0", true: "1"}[g]
		case float64:
			f, err := w.Float64()
			return err == nil && (f == g && math.Signbit(f) == math.Signbit(g))
		}
	case string:
		if g, ok := got.(float64); ok {
			switch w {
			case "NaN":
				return math.IsNaN(g)
			case "Infinity":
				return math.IsInf(g, 1)
			case "-Infinity":
				return math.IsInf(g, -1)
			}
		}
		return got == w
	case bool:
		return got == w
	case obj:
		g, ok := got.(obj)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if !sameValue(v, g[k]) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k := range w {
			if !sameValue(w[k], g[k]) {
				return false
			}
		}
		return true
	}
	return false
}

func checkCategories(t *testing.T, tb *Table, w obj) {
	want, _ := w["categories"].([]any)
	if len(want) != len(tb.Categories) {
		t.Errorf("%d categories datasets, want %d", len(tb.Categories), len(want))
	}
	for _, wk := range want {
		wk := wk.(obj)
		i := slices.IndexFunc(tb.Categories, func(k *Categories) bool { return k.Path == wk["path"] })
		if i < 0 {
			t.Errorf("categories %s missing", wk["path"])
			continue
		}
		k := tb.Categories[i]
		labels, err := k.Labels()
		if err != nil {
			t.Fatal(err)
		}
		for j, l := range wk["labels"].([]any) {
			if !sameValue(l, goValue(labels, j)) {
				t.Errorf("%s label %d = %v, want %v", k.Path, j, goValue(labels, j), l)
			}
		}
		if o, set := wk["ordered"].(bool); set != k.OrderedSet || o != k.Ordered {
			t.Errorf("%s ordered %v/%v, want %v", k.Path, k.Ordered, k.OrderedSet, wk["ordered"])
		}
	}
}

func checkSearchIndexes(t *testing.T, tb *Table, w obj) {
	want, _ := w["search_indexes"].([]any)
	if len(want) != len(tb.SearchIndexes) {
		t.Errorf("%d search indexes, want %d", len(tb.SearchIndexes), len(want))
	}
	for _, ws := range want {
		ws := ws.(obj)
		i := slices.IndexFunc(tb.SearchIndexes, func(s *SearchIndex) bool { return s.Path == ws["path"] })
		if i < 0 {
			t.Errorf("search index %s missing", ws["path"])
			continue
		}
		si := tb.SearchIndexes[i]
		t.Run(si.Name, func(t *testing.T) { checkSearchIndex(t, si, ws) })
	}
}

func checkSearchIndex(t *testing.T, si *SearchIndex, w obj) {
	if si.Kind != w["kind"] || si.Column == nil || si.Column.Name != w["column"] {
		t.Fatalf("kind %s column %v, want %v %v", si.Kind, si.Column, w["kind"], w["column"])
	}
	c := si.Column
	for _, f := range si.Verify() {
		t.Errorf("verify: %v", f)
	}
	switch si.Kind {
	case KindChunkMinMax:
		got, err := si.MinMax()
		if err != nil {
			t.Fatal(err)
		}
		entries := w["entries"].([]any)
		if len(got) != len(entries) {
			t.Fatalf("%d entries, want %d", len(got), len(entries))
		}
		if entries, ok := c.VerifiedMinMax(); !ok || len(entries) != len(got) {
			t.Errorf("VerifiedMinMax: %d entries, %v", len(entries), ok)
		}
		for k, we := range entries {
			we := we.(obj)
			g := got[k]
			gmin, gmax := minmaxJSON(c, g.Min), minmaxJSON(c, g.Max)
			if !sameValue(we["min"], gmin) || !sameValue(we["max"], gmax) ||
				mustInt(we["nan_count"]) != int64(g.NaNCount) || mustInt(we["fill_count"]) != int64(g.FillCount) || mustInt(we["n"]) != int64(g.N) {
				t.Errorf("entry %d: %+v, want %v", k, g, we)
			}
		}
	case KindSortedRows:
		perm, err := si.Permutation()
		if err != nil {
			t.Fatal(err)
		}
		wp := w["permutation"].([]any)
		if len(perm) != len(wp) {
			t.Fatalf("%d entries, want %d", len(perm), len(wp))
		}
		for k := range wp {
			if mustInt(wp[k]) != int64(perm[k]) {
				t.Fatalf("entry %d = %d, want %v", k, perm[k], wp[k])
			}
		}
		if int64(si.NaNTail) != mustInt(w["nan_tail_length"]) || int64(si.FillTail) != mustInt(w["fill_tail_length"]) {
			t.Errorf("tails %d/%d, want %v/%v", si.NaNTail, si.FillTail, w["nan_tail_length"], w["fill_tail_length"])
		}
	case KindBitmap:
		vals, rows, err := si.Bitmap()
		if err != nil {
			t.Fatal(err)
		}
		if si.ValuesPath != w["values_path"] || si.Ordered != w["ordered"] {
			t.Errorf("values %s ordered %v, want %v %v", si.ValuesPath, si.Ordered, w["values_path"], w["ordered"])
		}
		for k, wv := range w["values"].([]any) {
			g := goValue(vals, k)
			if d, ok := g.(dictValue); ok {
				g = d.label
			}
			if !sameValue(wv, g) {
				t.Errorf("value %d = %v, want %v", k, g, wv)
			}
			wr := w["rows_by_value"].([]any)[k].([]any)
			if len(wr) != len(rows[k]) {
				t.Errorf("value %d: %d rows, want %d", k, len(rows[k]), len(wr))
				continue
			}
			for j := range wr {
				if mustInt(wr[j]) != rows[k][j] {
					t.Errorf("value %d: row %d, want %v", k, rows[k][j], wr[j])
					break
				}
			}
		}
	case KindChunkBloom:
		if int64(si.K) != mustInt(w["k"]) || int64(si.MBits) != mustInt(w["m_bits"]) || int64(si.Seed) != mustInt(w["seed"]) {
			t.Errorf("k/m_bits/seed %d/%d/%d, want %v/%v/%v", si.K, si.MBits, si.Seed, w["k"], w["m_bits"], w["seed"])
		}
		filters, err := si.BloomFilters()
		if err != nil {
			t.Fatal(err)
		}
		wf := strs(w["filters_hex"])
		if len(filters) != len(wf) {
			t.Fatalf("%d filters, want %d", len(filters), len(wf))
		}
		for k := range wf {
			if hex.EncodeToString(filters[k]) != wf[k] {
				t.Errorf("filter %d differs", k)
			}
		}
		for _, p := range w["probes"].([]any) {
			p := p.(obj)
			canon, _ := hex.DecodeString(p["canonical_hex"].(string))
			ha, hb := bloomHashes(canon, si.Seed)
			if fmt.Sprintf("%016x", ha) != p["h_a"] || fmt.Sprintf("%016x", hb) != p["h_b"] {
				t.Errorf("probe %v: h_a/h_b %016x/%016x", p["value"], ha, hb)
			}
			pos := bloomPositions(canon, si.K, si.MBits, si.Seed)
			for j, b := range p["bits"].([]any) {
				if mustInt(b) != int64(pos[j]) {
					t.Errorf("probe %v: bit %d = %d, want %v", p["value"], j, pos[j], b)
				}
			}
			if !si.MayContain(filters[mustInt(p["chunk"])], canon) {
				t.Errorf("probe %v not in its chunk's filter", p["value"])
			}
		}
	}
}

// minmaxJSON maps a MinMaxEntry bound to the expected JSON's form.
func minmaxJSON(c *Column, v any) any {
	switch x := v.(type) {
	case []byte:
		return hex.EncodeToString(x)
	case int64, uint64:
		if c.Type.Class == h5core.ClassEnum {
			code, _, _, _ := integer(x)
			for _, m := range c.Type.Members {
				if c.Type.Base.Int64(m.Value) == code {
					return m.Name
				}
			}
		}
	}
	return v
}

func checkRowTable(t *testing.T, tb *Table, w obj) {
	if tb.Kind != w["kind"] {
		t.Errorf("kind %s, want %v", tb.Kind, w["kind"])
	}
	if n := mustInt(w["nrows"]); tb.NRows != n {
		t.Errorf("NRows %d, want %d", tb.NRows, n)
	}
	if order := strs(w["column_order"]); !slices.Equal(tb.ColumnOrder, order) {
		t.Errorf("column order %v, want %v", tb.ColumnOrder, order)
	}
	cols := w["columns"].([]any)
	if ix, ok := w["index"].(obj); ok {
		cols = append(cols, obj{"name": ix["name"], "values": ix["values"]})
		if !slices.Equal(tb.IndexColumns, []string{ix["name"].(string)}) {
			t.Errorf("index columns %v, want %v", tb.IndexColumns, ix["name"])
		}
	}
	for _, wc := range cols {
		wc := wc.(obj)
		c := tb.Column(wc["name"].(string))
		if c == nil {
			t.Errorf("column %s missing", wc["name"])
			continue
		}
		got := readAll(t, c, 0, tb.NRows)
		for i, wv := range wc["values"].([]any) {
			if d, ok := got[i].(dictValue); ok {
				got[i] = d.label
			}
			if !sameValue(wv, got[i]) {
				t.Errorf("%s row %d: %#v, want %#v", c.Name, i, got[i], wv)
				break
			}
		}
	}
}
