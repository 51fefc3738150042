package arrowexport

import (
	"encoding/binary"
	"io"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchColumn is a float64 column of n rows in 1M-row chunks (the shape
// of clients-on-fuse.md's CSV measurement).
func benchColumn(n int) rawMemColumn {
	b := array.NewFloat64Builder(memory.NewGoAllocator())
	raw := make([]byte, 0, 8*n)
	for i := range n {
		v := math.Sin(float64(i))
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
