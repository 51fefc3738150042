package arrowexport

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// plainCase is one column of a given type whose values come from gen.
type plainCase struct {
	typ  arrow.DataType
	gen  func(r *rand.Rand, i int) uint64 // the value's bits, little-endian in its width
	name string
}

// TestParquetPlainMatchesWriter checks that column chunks rendered by
// parquetplain.go are the Parquet writer's bytes: each table is rendered
// once from raw values (the plain path) and once from a column that only
// answers Read (the writer), for every plain type, nullable or not, row
// counts around the page and batch sizes, and values that test the
// statistics (NaN, all-NaN pages, signed zeros, infinities, extremes).
func TestParquetPlainMatchesWriter(t *testing.T) {
	f64 := func(f float64) uint64 { return math.Float64bits(f) }
	f32 := func(f float32) uint64 { return uint64(math.Float32bits(f)) }
	specials64 := []float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), -1.5, 2.5, math.MaxFloat64, -math.MaxFloat64}
	specials32 := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), -1.5, 2.5}
	cases := []plainCase{
		{arrow.PrimitiveTypes.Float64, func(r *rand.Rand, i int) uint64 { return f64(r.NormFloat64()) }, "random"},
		{arrow.PrimitiveTypes.Float64, func(r *rand.Rand, i int) uint64 { return f64(specials64[r.IntN(len(specials64))]) }, "specials"},
		{arrow.PrimitiveTypes.Float64, func(r *rand.Rand, i int) uint64 {
			if i < 140000 {
				return f64(math.NaN()) // the first page all NaN
			}
			return f64(float64(i % 7))
		}, "nan page"},
		{arrow.PrimitiveTypes.Float64, func(r *rand.Rand, i int) uint64 { return f64(float64(i%3) * math.Copysign(0, -1)) }, "zeros"},
		{arrow.PrimitiveTypes.Float32, func(r *rand.Rand, i int) uint64 { return f32(float32(r.NormFloat64())) }, "random"},
		{arrow.PrimitiveTypes.Float32, func(r *rand.Rand, i int) uint64 { return f32(specials32[r.IntN(len(specials32))]) }, "specials"},
		{arrow.PrimitiveTypes.Float32, func(r *rand.Rand, i int) uint64 { return f32(float32(math.NaN())) }, "all nan"},
		{arrow.PrimitiveTypes.Int64, func(r *rand.Rand, i int) uint64 { return r.Uint64() }, "random"},
		{arrow.PrimitiveTypes.Int32, func(r *rand.Rand, i int) uint64 { return r.Uint64() & math.MaxUint32 }, "random"},
		{arrow.PrimitiveTypes.Uint64, func(r *rand.Rand, i int) uint64 { return r.Uint64() }, "random"},
		{arrow.PrimitiveTypes.Uint32, func(r *rand.Rand, i int) uint64 { return r.Uint64() & math.MaxUint32 }, "random"},
		{arrow.PrimitiveTypes.Int64, func(r *rand.Rand, i int) uint64 { return uint64(int64(i) - 5) }, "counting"},
	}
	for _, c := range cases {
		for _, rows := range []int{1, 1023, 1024, 1025, 131072, 131073, 262144, 300001} {
			for _, nullable := range []bool{true, false} {
				name := fmt.Sprintf("%s/%s/%d/nullable=%v", c.typ, c.name, rows, nullable)
				plain, viaWriter := plainTables(c, rows, nullable)
				pv, err := NewParquetView(plain, Options{})
				if err != nil {
					t.Fatal(err)
				}
				got := checkView(t, pv)
				wv, _ := NewParquetView(viaWriter, Options{})
				want := checkView(t, wv)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: the plain renderer's %d bytes differ from the writer's %d", name, len(got), len(want))
				}
			}
		}
	}
}

// plainTables returns a one-column table of rows values of c in chunks
// of 100000 rows, with raw values (rendered by the plain path) and the
// same without (rendered through the writer).
func plainTables(c plainCase, rows int, nullable bool) (plain, viaWriter *Table) {
	w := c.typ.(arrow.FixedWidthDataType).BitWidth() / 8
	rng := rand.New(rand.NewPCG(uint64(rows), uint64(w)))
	raw := make([]byte, rows*w)
	for i := range rows {
		v := c.gen(rng, i)
		if w == 8 {
			binary.LittleEndian.PutUint64(raw[i*w:], v)
		} else {
			binary.LittleEndian.PutUint32(raw[i*w:], uint32(v))
		}
	}
	data := array.NewData(c.typ, rows, []*memory.Buffer{nil, memory.NewBufferBytes(raw)}, nil, 0, 0)
	arr := array.MakeFromData(data)
	col := func() *memColumn {
		return &memColumn{field: arrow.Field{Name: "v", Type: c.typ, Nullable: nullable}, arr: arr, chunkRows: 100000, raw: raw, elemSize: w}
	}
	return &Table{Columns: []ColumnSource{rawMemColumn{col()}}}, &Table{Columns: []ColumnSource{col()}}
}

// TestParquetPlainLayout checks that the layout of a table of plain
// columns computed from ChunkStats without writing their values
// (plainLayout) is the layout the data pass gives: the same footer and
// column chunk sizes, for tables of small and of big (arranged) column
// chunks, whole and partial last row groups, nullable or not.
func TestParquetPlainLayout(t *testing.T) {
	mk := func(c plainCase, rows int, chunk int64, nullable bool) statsMemColumn {
		plain, _ := plainTables(c, rows, nullable)
		mc := plain.Columns[0].(rawMemColumn).memColumn
		mc.chunkRows = chunk
		mc.field.Name = fmt.Sprintf("%s_%s", c.typ, c.name)
		return withStats(mc)
	}
	counting := func(r *rand.Rand, i int) uint64 { return uint64(int64(i)*7 - 1000) }
	f64 := func(r *rand.Rand, i int) uint64 { return math.Float64bits(r.NormFloat64()) }
	f32 := func(r *rand.Rand, i int) uint64 { return uint64(math.Float32bits(float32(r.NormFloat64()))) }
	for _, shape := range []struct {
		rows  int
		chunk int64
	}{{1, 1}, {2500, 1000}, {3000, 1000}, {300001, 100000}, {262144 * 2, 262144}} {
		for _, nullable := range []bool{true, false} {
			tbl := &Table{Columns: []ColumnSource{
				mk(plainCase{arrow.PrimitiveTypes.Int64, counting, "s"}, shape.rows, shape.chunk, nullable),
				mk(plainCase{arrow.PrimitiveTypes.Float64, f64, "x"}, shape.rows, shape.chunk, nullable),
				mk(plainCase{arrow.PrimitiveTypes.Float32, f32, "y"}, shape.rows, shape.chunk, nullable),
				mk(plainCase{arrow.PrimitiveTypes.Uint32, counting, "u"}, shape.rows, max(shape.chunk/2, 1), nullable),
			}}
			r, err := newParquetRenderer(tbl)
			if err != nil {
				t.Fatal(err)
			}
			mm, ok := r.knownMinMax()
			if !ok || !r.allPlain() {
				t.Fatalf("%d rows: min/max known %v, all plain %v", shape.rows, ok, r.allPlain())
			}
			got, err := r.plainLayout(mm)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.plan()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Foot, want.Foot) || fmt.Sprint(got.Units) != fmt.Sprint(want.Units) || !bytes.Equal(got.Head, want.Head) {
				t.Fatalf("%d rows in chunks of %d, nullable %v: layout from ChunkStats differs from the data pass's (footer %d/%d bytes, %d/%d units)",
					shape.rows, shape.chunk, nullable, len(got.Foot), len(want.Foot), len(got.Units), len(want.Units))
			}
		}
	}
}
