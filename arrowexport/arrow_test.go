package arrowexport

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// oneShotArrow writes t with a single ipc.FileWriter, batch by batch.
func oneShotArrow(t *testing.T, tbl *Table) []byte {
	rows, unit, err := checkTable(tbl)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	s := tbl.schema()
	r := &arrowRenderer{t: tbl, schema: s, rows: rows, unit: unit}
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(s))
	if err != nil {
		t.Fatal(err)
	}
	for i := range numUnits(rows, unit) {
		rec, err := r.batch(i)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkArrowFile reads b with arrow-go's file reader and compares every
// column with the table's.
func checkArrowFile(t *testing.T, tbl *Table, b []byte) {
	t.Helper()
	r, err := ipc.NewFileReader(bytes.NewReader(b), ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, unit, _ := checkTable(tbl)
	if r.NumRecords() != numUnits(rows, unit) {
		t.Fatalf("%d batches, want %d", r.NumRecords(), numUnits(rows, unit))
	}
	if !r.Schema().Equal(tbl.schema()) || !r.Schema().Metadata().Equal(tbl.schema().Metadata()) {
		t.Fatalf("schema %v, want %v", r.Schema(), tbl.schema())
	}
	for j, c := range tbl.Columns {
		if !r.Schema().Field(j).Metadata.Equal(c.Field().Metadata) {
			t.Fatalf("field %d metadata %v", j, r.Schema().Field(j).Metadata)
		}
	}
	for i := range r.NumRecords() {
		rec, err := r.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		start, n := unitRange(i, unit, rows)
		if rec.NumRows() != n {
			t.Fatalf("batch %d has %d rows, want %d", i, rec.NumRows(), n)
		}
		for j, c := range tbl.Columns {
			want, _ := c.Read(start, n)
			if !array.ApproxEqual(rec.Column(j), want, array.WithNaNsEqual(true)) {
				t.Fatalf("batch %d column %s differs", i, c.Field().Name)
			}
			want.Release()
		}
	}
}

func TestArrowTable(t *testing.T) {
	for _, rows := range []int{0, 1, 10007} {
		tbl, _ := testTable(rows)
		v, err := NewArrowView(tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rows > 0 && v.Exact() {
			t.Fatalf("string columns: exact before the data pass")
		}
		b := checkView(t, v)
		if rows > 0 && !bytes.Equal(b, oneShotArrow(t, tbl)) {
			t.Fatalf("%d rows: differs from a one-shot ipc.FileWriter", rows)
		}
		checkArrowFile(t, tbl, b)
	}
}

func TestArrowExactFromMetadata(t *testing.T) {
	for _, rows := range []int{1, 2000, 10007} {
		tbl := fixedTable(rows)
		v, err := NewArrowView(tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Finalize(); err != nil {
			t.Fatal(err)
		}
		for _, c := range tbl.Columns {
			if c.Field().Type.ID() != arrow.DICTIONARY && readsOf(c) != 0 {
				t.Fatalf("column %s read by Finalize", c.Field().Name)
			}
		}
		b := checkView(t, v)
		if want := oneShotArrow(t, tbl); !bytes.Equal(b, want) {
			t.Fatalf("%d rows: %d bytes differ from a one-shot writer's %d", rows, len(b), len(want))
		}
		checkArrowFile(t, tbl, b)
	}
}

func TestArrowColumn(t *testing.T) {
	_, cols := testTable(5000)
	for _, name := range []string{"x", "label", "s"} {
		tbl := &Table{Columns: []ColumnSource{cols[name]}}
		v, err := NewArrowView(tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkArrowFile(t, tbl, checkView(t, v))
	}
}

func TestArrowNoNullsKnown(t *testing.T) {
	// a nullable column whose stats say "no nulls" in every chunk
	mem := memory.NewGoAllocator()
	b := array.NewFloat32Builder(mem)
	for i := range 3333 {
		b.Append(float32(i))
	}
	c := &memColumn{field: arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Float32, Nullable: true}, arr: b.NewArray(), chunkRows: 1000}
	tbl := &Table{Columns: []ColumnSource{withStats(c)}}
	v, _ := NewArrowView(tbl, Options{})
	if err := v.Finalize(); err != nil || c.reads.Load() != 0 {
		t.Fatalf("Finalize: %v after %d reads", err, c.reads.Load())
	}
	if got := checkView(t, v); !bytes.Equal(got, oneShotArrow(t, tbl)) {
		t.Fatal("differs from a one-shot writer")
	}
}

func TestArrowCache(t *testing.T) {
	cache, _ := NewCache(t.TempDir())
	tbl, cols := testTable(3000)
	opts := Options{Cache: cache, Key: FileID{Path: "/a.h5"}.Key("/t")}
	v, _ := NewArrowView(tbl, opts)
	b := checkView(t, v)
	reads := cols["s"].reads.Load()
	v2, _ := NewArrowView(tbl, opts)
	if !v2.Exact() || v2.Size() != int64(len(b)) || cols["s"].reads.Load() != reads {
		t.Fatalf("cached arrow view: exact %v, size %d (want %d), %d new reads", v2.Exact(), v2.Size(), len(b), cols["s"].reads.Load()-reads)
	}
	if got := checkView(t, v2); !bytes.Equal(got, b) {
		t.Fatal("cached view renders other bytes")
	}
}

// readsOf is the number of Read calls a test column has had.
func readsOf(c ColumnSource) int64 {
	switch c := c.(type) {
	case *memColumn:
		return c.reads.Load()
	case statsMemColumn:
		return c.reads.Load()
	case rawMemColumn:
		return c.reads.Load()
	}
	return -1
}

func TestArrowNonNullableExactAtOnce(t *testing.T) {
	_, cols := testTable(5000)
	v, _ := NewArrowView(&Table{Columns: []ColumnSource{cols["id"]}}, Options{})
	if !v.Exact() || cols["id"].reads.Load() != 0 {
		t.Fatalf("non-nullable fixed-width column: exact %v", v.Exact())
	}
	checkView(t, v)
}
