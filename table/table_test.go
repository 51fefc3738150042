package table

import (
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

func openTestFile(t *testing.T, name string) *h5core.File {
	t.Helper()
	f, err := h5core.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// hasFinding reports an error finding for path under rule (a prefix).
func hasFinding(fs []Finding, sev, path, rule string) bool {
	for _, f := range fs {
		if f.Severity == sev && f.Path == path && strings.HasPrefix(f.Rule, rule) {
			return true
		}
	}
	return false
}

func TestDiscoverBrokenTables(t *testing.T) {
	f := openTestFile(t, "tampered.h5")
	tables, fs, err := Discover(f, Lenient)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, tb := range tables {
		paths = append(paths, tb.Path)
	}
	if strings.Join(paths, " ") != "/events /stray" {
		t.Errorf("tables %v, want /events /stray", paths)
	}
	for _, c := range []struct{ path, rule string }{
		{"/bad_nrows", "§7.3"},
		{"/bad_extent", "§12"},
		{"/bad_version", "§7"},
	} {
		if !hasFinding(fs, SevError, c.path, c.rule) {
			t.Errorf("no %s finding for %s in %v", c.rule, c.path, fs)
		}
	}
	for _, x := range fs {
		if strings.HasPrefix(x.Path, "/wrong_class") {
			t.Errorf("finding for a group that is no table: %v", x)
		}
		if x.Path == "/bad_version" && !strings.Contains(x.Msg, "major version 2") {
			t.Errorf("version refusal says %q", x.Msg)
		}
	}
}

func TestStrayObjects(t *testing.T) {
	f := openTestFile(t, "tampered.h5")
	tb, err := Open(f, "/stray", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, rule string }{
		{"/stray/notes", "§7.6"}, // a group
		{"/stray/grid", "§7.6"},  // a 2-D dataset
		{"/stray", "§12"},        // column-order names "zz"
	} {
		if !hasFinding(tb.Findings, SevError, c.path, c.rule) {
			t.Errorf("no %s finding for %s in %v", c.rule, c.path, tb.Findings)
		}
	}
	if got := strings.Join(tb.ColumnOrder, ","); got != "b,a" {
		t.Errorf("column order %s, want b,a", got)
	}
	if _, err := Open(f, "/stray", Strict); err == nil {
		t.Error("strict mode opened a table with errors")
	}
	if _, err := Open(f, "/wrong_class", Lenient); err == nil {
		t.Error("opened a group whose CLASS is not COLUMN_TABLE")
	}
}

func TestTamperedIndexes(t *testing.T) {
	f := openTestFile(t, "tampered.h5")
	tb, err := Open(f, "/events", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	fs := tb.Check(false)
	if HasErrors(fs) {
		t.Errorf("structural check: %v", fs)
	}
	fs = tb.Check(true)
	for _, c := range []struct{ path, rule string }{
		{"/events/SEARCH_INDEXES/ts__chunk_minmax", "§10.4"},
		{"/events/SEARCH_INDEXES/energy__sorted_rows", "§10.5"},
		{"/events/SEARCH_INDEXES/flag__bitmap", "§10.6"},
		{"/events/SEARCH_INDEXES/ts__chunk_bloom", "§10.7"},
	} {
		if !hasFinding(fs, SevError, c.path, c.rule) {
			t.Errorf("tampered %s not reported (%s) in %v", c.path, c.rule, fs)
		}
	}
	ts := tb.Column("ts")
	if _, ok := ts.VerifiedMinMax(); ok {
		t.Error("VerifiedMinMax trusted a tampered index")
	}
	if e, ok := tb.Column("energy").VerifiedMinMax(); !ok || len(e) != 4 {
		t.Errorf("energy min/max: %d entries, %v", len(e), ok)
	}
}

func TestFieldTypes(t *testing.T) {
	f := openTestFile(t, "hep_tables.h5")
	tb, err := Open(f, "/run/events", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		col, typ string
		nullable bool
		meta     map[string]string
	}{
		{"run", "uint16", true, map[string]string{"index_level": "0", "hdf5_type": "uint16 LE", "fill_value": "65535"}},
		{"evt", "int64", true, map[string]string{"index_level": "1", "hdf5_type": "int64 BE"}},
		{"ts", "int64", true, map[string]string{"units": "ms", "units_vocabulary": "UDUNITS-2"}},
		{"energy", "float32", true, map[string]string{"units": "GeV", "units_vocabulary": "UCUM", "valid_min": "-1", "valid_max": "1e+06"}},
		{"charge", "float64", true, map[string]string{"fill_value": "nan"}},
		{"flag", "bool", true, map[string]string{"logical_type": "bool", "fill_value": "2"}},
		{"color", "dictionary<values=utf8, indices=int8, ordered=false>", true, map[string]string{"logical_type": "enum"}},
		{"det", "dictionary<values=utf8, indices=int8, ordered=false>", true, map[string]string{"categories": "/run/events/CATEGORIES/detectors", "ordered": "false"}},
		{"tag", "utf8", true, nil},
		{"note", "utf8", true, map[string]string{"fill_value": "<NA>"}},
		{"hit", "struct<x: float32 nullable, y: float32 nullable, id: int32 nullable>", true, nil},
		{"blob", "fixed_size_binary[4]", true, map[string]string{"logical_type": "opaque"}},
		{"h16", "float16", true, nil},
	} {
		col := tb.Column(c.col)
		if col == nil {
			t.Errorf("no column %s", c.col)
			continue
		}
		fl := col.Field()
		if fl.Type.String() != c.typ || fl.Nullable != c.nullable {
			t.Errorf("%s: %s nullable %v, want %s %v", c.col, fl.Type, fl.Nullable, c.typ, c.nullable)
		}
		for k, v := range c.meta {
			if got, ok := fl.Metadata.GetValue(k); !ok || got != v {
				t.Errorf("%s: metadata %s = %q, want %q", c.col, k, got, v)
			}
		}
	}
}

func TestReadRanges(t *testing.T) {
	f := openTestFile(t, "hep_tables.h5")
	tb, err := Open(f, "/run/prealloc", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	c := tb.Column("ts")
	for _, r := range [][2]int64{{0, 0}, {199, 1}, {200, 0}, {-1, 1}, {199, 2}, {0, 201}} {
		ok := r[0] >= 0 && r[0]+r[1] <= tb.NRows
		a, err := c.Read(r[0], r[1])
		if (err == nil) != ok {
			t.Errorf("Read(%d, %d): %v", r[0], r[1], err)
		}
		if err == nil && int64(a.Len()) != r[1] {
			t.Errorf("Read(%d, %d): %d rows", r[0], r[1], a.Len())
		}
		if err := c.ReadRaw(r[0], r[1], make([]byte, 8*max(r[1], 0))); (err == nil) != ok {
			t.Errorf("ReadRaw(%d, %d): %v", r[0], r[1], err)
		}
	}
	if err := c.ReadRaw(0, 10, make([]byte, 79)); err == nil {
		t.Error("ReadRaw into a short buffer")
	}
	if err := tb.Column("note").ReadRaw(0, 1, make([]byte, 16)); err == nil {
		t.Error("ReadRaw of a vlen string column")
	}
}

func TestPandasTypes(t *testing.T) {
	f := openTestFile(t, "pandas.h5")
	tb, err := Open(f, "/frame/table", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	for col, typ := range map[string]string{"rid": "utf8", "a": "int64", "b": "float64", "c": "utf8", "d": "bool", "t": "timestamp[ns]"} {
		c := tb.Column(col)
		if c == nil {
			t.Errorf("no column %s", col)
		} else if got := c.Field().Type.String(); got != typ || c.Field().Nullable {
			t.Errorf("%s: %s nullable %v, want %s", col, got, c.Field().Nullable, typ)
		}
	}
}
