package duckdbtest

import (
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// render writes view v to dir/name through ReadAt, after Finalize.
func render(t *testing.T, v arrowexport.View, dir, name string) string {
	t.Helper()
	if err := v.Finalize(); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(io.NewSectionReader(v, 0, v.Size()))
	if err != nil || int64(len(b)) != v.Size() {
		t.Fatalf("%s: read %d of %d bytes: %v", name, len(b), v.Size(), err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDuckDB has DuckDB read the Parquet and CSV views of the HEP001 test
// table and compares aggregates with the table's own values.
func TestDuckDB(t *testing.T) {
	f, err := h5core.Open("../testdata/datasets.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tt, err := table.Open(f, "/events", table.Lenient)
	if err != nil {
		t.Fatal(err)
	}
	tbl := arrowexport.FromTable(tt)
	dir := t.TempDir()
	pv, err := arrowexport.NewParquetView(tbl, arrowexport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cv, err := arrowexport.NewCSVView(tbl, arrowexport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pq, csv := render(t, pv, dir, "events.parquet"), render(t, cv, dir, "events.csv")

	// what the table itself says
	var nEnergy, nTS int64
	var sumCount int64
	detCounts := map[string]int64{}
	for _, c := range tt.Columns {
		a, err := c.Read(0, tt.NRows)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				if c.Name == "det" {
					detCounts["<null>"]++
				}
				continue
			}
			switch c.Name {
			case "energy":
				nEnergy++
			case "ts":
				nTS++
			case "count":
				var v int64
				fmt.Sscan(a.ValueStr(i), &v)
				sumCount += v
			case "det":
				detCounts[a.ValueStr(i)]++
			}
		}
		a.Release()
	}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, src := range []string{
		fmt.Sprintf("read_parquet('%s')", pq),
		fmt.Sprintf("read_csv('%s', header=true)", csv),
	} {
		var rows, ne, nts, sum int64
		q := "SELECT count(*), count(energy), count(ts), sum(count) FROM " + src
		if err := db.QueryRow(q).Scan(&rows, &ne, &nts, &sum); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if rows != tt.NRows || ne != nEnergy || nts != nTS || sum != sumCount {
			t.Fatalf("%s: %d rows, %d energies, %d ts, sum %d; want %d, %d, %d, %d",
				src, rows, ne, nts, sum, tt.NRows, nEnergy, nTS, sumCount)
		}
		res, err := db.Query("SELECT coalesce(CAST(det AS VARCHAR), '<null>'), count(*) FROM " + src + " GROUP BY 1")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for res.Next() {
			var k string
			var n int64
			if err := res.Scan(&k, &n); err != nil {
				t.Fatal(err)
			}
			got[k] = n
		}
		res.Close()
		if fmt.Sprint(got) != fmt.Sprint(detCounts) {
			t.Fatalf("%s: det counts %v, want %v", src, got, detCounts)
		}
	}
	// a range predicate, which DuckDB answers with row-group pruning
	var inRange, wantRange int64
	for i := int64(0); i < tt.NRows; i++ {
		if v := i % 65535; v >= 3000 && v <= 3999 {
			wantRange++
		}
	}
	if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM read_parquet('%s') WHERE count BETWEEN 3000 AND 3999", pq)).Scan(&inRange); err != nil || inRange != wantRange {
		t.Fatalf("range query: %d rows (%v), want %d", inRange, err, wantRange)
	}
	// every row group carries min/max statistics DuckDB can prune with
	var groups, withStats int64
	q := fmt.Sprintf("SELECT count(DISTINCT row_group_id), count(*) FILTER (WHERE stats_min IS NOT NULL) FROM parquet_metadata('%s') WHERE path_in_schema = 'ts'", pq)
	if err := db.QueryRow(q).Scan(&groups, &withStats); err != nil {
		t.Fatal(err)
	}
	if groups < 2 || withStats != groups {
		t.Fatalf("ts: %d row groups, %d with statistics", groups, withStats)
	}
}

// seqColumn is a column of rows values, in chunks of chunk rows: row i
// holds int64 3*i, or with nullEvery > 0 float64 i/2, null at every
// nullEvery-th row.
type seqColumn struct {
	name                   string
	rows, chunk, nullEvery int64
}

func (c seqColumn) Field() arrow.Field {
	if c.nullEvery > 0 {
		return arrow.Field{Name: c.name, Type: arrow.PrimitiveTypes.Float64, Nullable: true}
	}
	return arrow.Field{Name: c.name, Type: arrow.PrimitiveTypes.Int64}
}
func (c seqColumn) Len() int64       { return c.rows }
func (c seqColumn) ChunkRows() int64 { return c.chunk }
func (c seqColumn) Read(start, n int64) (arrow.Array, error) {
	mem := memory.DefaultAllocator
	if c.nullEvery == 0 {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for i := start; i < start+n; i++ {
			b.Append(3 * i)
		}
		return b.NewArray(), nil
	}
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	for i := start; i < start+n; i++ {
		if i%c.nullEvery == 0 {
			b.AppendNull()
		} else {
			b.Append(float64(i) / 2)
		}
	}
	return b.NewArray(), nil
}

// TestDuckDBArranged has DuckDB read a Parquet view whose column chunks
// are big enough to be laid out column by column on page boundaries, and
// checks aggregates, a pruned range query and the chunk offsets.
func TestDuckDBArranged(t *testing.T) {
	const rows, chunk = 300007, 50000
	tbl := &arrowexport.Table{Columns: []arrowexport.ColumnSource{
		seqColumn{name: "a", rows: rows, chunk: chunk},
		seqColumn{name: "b", rows: rows, chunk: chunk, nullEvery: 7},
	}}
	v, err := arrowexport.NewParquetView(tbl, arrowexport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pq := render(t, v, t.TempDir(), "big.parquet")
	var sumA, sumB float64
	var countB int64
	for i := int64(0); i < rows; i++ {
		sumA += float64(3 * i)
		if i%7 != 0 {
			sumB += float64(i) / 2
			countB++
		}
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n, nb, inRange, misplaced int64
	var sa, sb float64
	q := fmt.Sprintf("SELECT count(*), sum(a)::DOUBLE, count(b), sum(b) FROM read_parquet('%s')", pq)
	if err := db.QueryRow(q).Scan(&n, &sa, &nb, &sb); err != nil {
		t.Fatal(err)
	}
	if n != rows || sa != sumA || nb != countB || sb != sumB {
		t.Fatalf("%s = %d, %g, %d, %g; want %d, %g, %d, %g", q, n, sa, nb, sb, rows, sumA, countB, sumB)
	}
	q = fmt.Sprintf("SELECT count(*) FROM read_parquet('%s') WHERE a BETWEEN 3*120000 AND 3*130000-1", pq)
	if err := db.QueryRow(q).Scan(&inRange); err != nil || inRange != 10000 {
		t.Fatalf("%s = %d (%v), want 10000", q, inRange, err)
	}
	q = fmt.Sprintf("SELECT count(*) FILTER (WHERE data_page_offset %% 4096 <> 0 AND data_page_offset <> 4) FROM parquet_metadata('%s')", pq)
	if err := db.QueryRow(q).Scan(&misplaced); err != nil || misplaced != 0 {
		t.Fatalf("%s = %d (%v), want 0", q, misplaced, err)
	}
}
