package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestExport exports the sample's tables in parts of two 64-row chunks
// and reads every part back with arrow-go's Parquet reader: rows, row
// groups aligned to the chunks, statistics; then resumes an export whose
// second part is missing, beside a stale part and a temporary file of an
// interrupted run.
func TestExport(t *testing.T) {
	dest := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := runExport(args, &out); err != nil {
			t.Fatalf("export %v: %v", args, err)
		}
		return out.String()
	}
	out := run("--part-rows", "100", "sample/sample.h5", dest)
	events := filepath.Join(dest, "run1", "events")
	if !strings.Contains(out, events+": 200 rows in 2 files (2 written, 0 already there)") {
		t.Errorf("export output:\n%s", out)
	}
	parts := []struct {
		name   string
		groups []int64
	}{
		{"part-000000000000-000000000128.parquet", []int64{64, 64}},
		{"part-000000000128-000000000200.parquet", []int64{64, 8}},
	}
	for _, p := range parts {
		if got := rowGroups(t, filepath.Join(events, p.name)); !slices.Equal(got, p.groups) {
			t.Errorf("%s: row groups of %v rows, want %v", p.name, got, p.groups)
		}
	}
	if got := rowGroups(t, filepath.Join(dest, "run1", "summary", "part-000000000000-000000000004.parquet")); !slices.Equal(got, []int64{4}) {
		t.Errorf("summary: row groups of %v rows, want [4]", got)
	}

	// resume: the first part stays as it is, the second is written again,
	// the stale part and the temporary file go
	first := filepath.Join(events, parts[0].name)
	before, err := os.Stat(first)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(events, parts[1].name))
	stale := filepath.Join(events, "part-000000000128-000000000150.parquet")
	tmp := filepath.Join(events, "."+parts[1].name+".123.tmp")
	for _, f := range []string{stale, tmp} {
		if err := os.WriteFile(f, []byte("PAR1 cut short"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out = run("--table", "run1/events", "--part-rows", "100", "sample/sample.h5", dest)
	if !strings.Contains(out, "200 rows in 2 files (1 written, 1 already there)") || strings.Contains(out, "summary") {
		t.Errorf("resumed export output:\n%s", out)
	}
	if after, err := os.Stat(first); err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("%s was rewritten", first)
	}
	if got := rowGroups(t, filepath.Join(events, parts[1].name)); !slices.Equal(got, parts[1].groups) {
		t.Errorf("rewritten %s: row groups of %v rows", parts[1].name, got)
	}
	for _, f := range []string{stale, tmp} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v, want removed", f, err)
		}
	}

	if err := runExport([]string{"--table", "/run1/nothing", "sample/sample.h5", dest}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), `no table at "/run1/nothing"`) {
		t.Errorf("export of a missing table: %v", err)
	}
	if err := runExport([]string{"sample/sample.h5"}, &bytes.Buffer{}); !errors.Is(err, errUsage) {
		t.Errorf("no destination: %v, want usage", err)
	}
}

// rowGroups reads the Parquet file name whole and returns its row groups'
// row counts; every column chunk of a plain column must have min/max
// statistics.
func rowGroups(t *testing.T, name string) []int64 {
	t.Helper()
	r, err := file.OpenParquetFile(name, false)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer r.Close()
	fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer tbl.Release()
	var groups []int64
	for i := range r.NumRowGroups() {
		rg := r.MetaData().RowGroup(i)
		groups = append(groups, rg.NumRows())
		cc, err := rg.ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := cc.Statistics(); err != nil || st == nil || !st.HasMinMax() {
			t.Errorf("%s row group %d column 0: no min/max statistics (%v)", name, i, err)
		}
	}
	if tbl.NumRows() != sum(groups) {
		t.Errorf("%s: read %d rows, row groups %v", name, tbl.NumRows(), groups)
	}
	return groups
}

func sum(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}
