package arrowexport

import (
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchColumn is a float64 column of n rows in 1M-row chunks (the shape
// of clients-on-fuse.md's CSV measurement) of full-precision values.
func benchColumn(n int) rawMemColumn {
	return benchColumnOf(n, func(i int) float64 { return math.Sin(float64(i)) })
}

// roundedColumn is benchColumn with the values of bench/fuse_bench.sh's
// P3: a random walk rounded to 3 decimals.
func roundedColumn(n int) rawMemColumn {
	rng := rand.New(rand.NewPCG(1, 1))
	last := 0.0
	return benchColumnOf(n, func(int) float64 {
		last += rng.NormFloat64()
		return math.Round(last*1000) / 1000
	})
}

// benchColumnOf is a float64 column of the n values f gives.
func benchColumnOf(n int, f func(i int) float64) rawMemColumn {
	b := array.NewFloat64Builder(memory.NewGoAllocator())
	raw := make([]byte, 0, 8*n)
	for i := range n {
		v := f(i)
		b.Append(v)
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v))
	}
	return rawMemColumn{&memColumn{field: arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arr: b.NewArray(), chunkRows: 1 << 20, raw: raw, elemSize: 8}}
}

// readThrough reads v sequentially in 128 KiB pieces, as the kernel does.
func readThrough(b *testing.B, v View) {
	buf := make([]byte, 128<<10)
	for off := int64(0); ; off += int64(len(buf)) {
		_, err := v.ReadAt(buf, off)
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCSVFinalize measures the sizing pass of a 2M-row float64 CSV.
func BenchmarkCSVFinalize(b *testing.B) {
	c := benchColumn(2 << 20)
	v0, _ := NewCSVView(&Table{Columns: []ColumnSource{c}}, Options{})
	_ = v0.Finalize()
	b.SetBytes(v0.Size())
	b.ResetTimer()
	for range b.N {
		v, _ := NewCSVView(&Table{Columns: []ColumnSource{c}}, Options{})
		if err := v.Finalize(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCSVRead measures rendering a finalized CSV view read in
// 128 KiB pieces.
func BenchmarkCSVRead(b *testing.B) {
	c := benchColumn(2 << 20)
	v, _ := NewCSVView(&Table{Columns: []ColumnSource{c}}, Options{})
	if err := v.Finalize(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(v.Size())
	b.ResetTimer()
	for range b.N {
		readThrough(b, v)
	}
}

// BenchmarkCSVFinalizeRounded is BenchmarkCSVFinalize with the values
// of P3, which most take the fast path of appendFloat.
func BenchmarkCSVFinalizeRounded(b *testing.B) {
	c := roundedColumn(2 << 20)
	v0, _ := NewCSVView(&Table{Columns: []ColumnSource{c}}, Options{})
	_ = v0.Finalize()
	b.SetBytes(v0.Size())
	b.ResetTimer()
	for range b.N {
		v, _ := NewCSVView(&Table{Columns: []ColumnSource{c}}, Options{})
		if err := v.Finalize(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCSVReadRounded is BenchmarkCSVRead with the values of P3.
func BenchmarkCSVReadRounded(b *testing.B) {
	c := roundedColumn(2 << 20)
	v, _ := NewCSVView(&Table{Columns: []ColumnSource{c}}, Options{})
	if err := v.Finalize(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(v.Size())
	b.ResetTimer()
	for range b.N {
		readThrough(b, v)
	}
}

// BenchmarkCSVTable measures the sizing pass and a read of a whole-table
// CSV of 500k rows of testTable's columns (integers, floats with nulls and
// special values, categoricals, strings).
func BenchmarkCSVTable(b *testing.B) {
	tbl, _ := testTable(500000)
	v0, _ := NewCSVView(tbl, Options{})
	_ = v0.Finalize()
	b.SetBytes(v0.Size())
	b.ResetTimer()
	for range b.N {
		v, _ := NewCSVView(tbl, Options{})
		if err := v.Finalize(); err != nil {
			b.Fatal(err)
		}
		readThrough(b, v)
	}
}

// BenchmarkRawRead measures the raw view of a column read in 128 KiB
// pieces.
func BenchmarkRawRead(b *testing.B) {
	a, _ := ColumnArray(benchColumn(4 << 20))
	v, _ := NewRawView(a)
	b.SetBytes(v.Size())
	b.ResetTimer()
	for range b.N {
		readThrough(b, v)
	}
}

// BenchmarkArrowRead measures the Arrow view of a float64 column read in
// 128 KiB pieces.
func BenchmarkArrowRead(b *testing.B) {
	c := benchColumn(4 << 20)
	v, _ := NewArrowView(&Table{Columns: []ColumnSource{c}}, Options{})
	if err := v.Finalize(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(v.Size())
	b.ResetTimer()
	for range b.N {
		readThrough(b, v)
	}
}

// BenchmarkParquetRead measures the Parquet view of a float64 column read
// in 128 KiB pieces, after its data pass.
func BenchmarkParquetRead(b *testing.B) {
	c := benchColumn(4 << 20)
	v, _ := NewParquetView(&Table{Columns: []ColumnSource{c}}, Options{})
	if err := v.Finalize(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(v.Size())
	b.ResetTimer()
	for range b.N {
		readThrough(b, v)
	}
}
