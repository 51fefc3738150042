package arrowexport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/table"
)

// benchTable opens table t of a file bench/fuse_bench.sh made in
// $BENCH_DIR (default /tmp/h5fs-bench), or skips.
func benchTable(b *testing.B, name string) *Table {
	dir := os.Getenv("BENCH_DIR")
	if dir == "" {
		dir = "/tmp/h5fs-bench"
	}
	f, err := h5core.Open(filepath.Join(dir, name))
	if err != nil {
		b.Skipf("%v: run bench/fuse_bench.sh once to make the benchmark files", err)
	}
	b.Cleanup(func() { f.Close() })
	t, err := table.Open(f, "/t", table.Lenient)
	if err != nil {
		b.Fatal(err)
	}
	return FromTable(t)
}

// BenchmarkParquetFinalizeP4 measures opening t.parquet of P4's table
// (5e7 rows of three fixed-width columns with CHUNK_MINMAX indexes): the
// layout from the indexes, no data read.
func BenchmarkParquetFinalizeP4(b *testing.B) {
	t := benchTable(b, "p4.h5")
	for b.Loop() {
		v, err := NewParquetView(t, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := v.Finalize(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParquetRenderP4 measures rendering column x of P4's t.parquet
// (each of its column chunks once, from a view whose layout is known):
// what a DuckDB scan of sum(x) costs h5fs beside the FUSE layer.
func BenchmarkParquetRenderP4(b *testing.B) {
	t := benchTable(b, "p4.h5")
	v, err := NewParquetView(t, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := v.Finalize(); err != nil {
		b.Fatal(err)
	}
	fv := v.(*framedView)
	// the big table's column chunks are laid out column by column
	per := len(fv.lay.Units) / len(t.Columns)
	b.SetBytes(t.Columns[1].Len() * 8)
	for b.Loop() {
		for f := per; f < 2*per; f++ {
			if _, err := fv.checkedRender(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}
