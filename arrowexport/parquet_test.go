package arrowexport

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// oneShotParquet writes t with a single pqarrow writer.
func oneShotParquet(t *testing.T, tbl *Table) []byte {
	r, err := newParquetRenderer(tbl)
	if err != nil {
		t.Fatal(err)
	}
	s := &captureSink{capture: true}
	if _, err := r.write(s, 0, r.nunits, r.read); err != nil {
		t.Fatal(err)
	}
	return s.take()
}

func checkParquetFile(t *testing.T, tbl *Table, b []byte) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	rows, unit, _ := checkTable(tbl)
	if pf.NumRowGroups() != numUnits(rows, unit) || pf.NumRows() != rows {
		t.Fatalf("%d row groups, %d rows; want %d, %d", pf.NumRowGroups(), pf.NumRows(), numUnits(rows, unit), rows)
	}
	for i := range pf.NumRowGroups() {
		rg := pf.MetaData().RowGroup(i)
		for j := range rg.NumColumns() {
			cc, _ := rg.ColumnChunk(j)
			if set, _ := cc.StatsSet(); !set {
				t.Fatalf("row group %d column %d: no statistics", i, j)
			}
		}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	got, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	for j, c := range tbl.Columns {
		gf, wf := got.Schema().Field(j), c.Field()
		if gf.Name != wf.Name || !arrow.TypeEqual(gf.Type, wf.Type) || gf.Nullable != wf.Nullable {
			t.Fatalf("field %v, want %v", gf, wf)
		}
		for k, key := range wf.Metadata.Keys() {
			if v, ok := gf.Metadata.GetValue(key); !ok || v != wf.Metadata.Values()[k] {
				t.Fatalf("field %s metadata %v, want %v", wf.Name, gf.Metadata, wf.Metadata)
			}
		}
		col := got.Column(j).Data()
		var at int64
		for _, chunk := range col.Chunks() {
			want, _ := c.Read(at, int64(chunk.Len()))
			if !sameValues(chunk, want) {
				t.Fatalf("column %s rows [%d,%d) differ", c.Field().Name, at, at+int64(chunk.Len()))
			}
			want.Release()
			at += int64(chunk.Len())
		}
		if at != rows {
			t.Fatalf("column %s: %d rows", c.Field().Name, at)
		}
	}
}

func TestParquetTable(t *testing.T) {
	for _, rows := range []int{0, 1, 10007} {
		tbl, _ := testTable(rows)
		v, err := NewParquetView(tbl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v.Exact() {
			t.Fatal("exact before the data pass")
		}
		est := v.Size()
		b := checkView(t, v)
		if want := oneShotParquet(t, tbl); !bytes.Equal(b, want) {
			t.Fatalf("%d rows: %d bytes differ from a one-shot writer's %d", rows, len(b), len(want))
		}
		if int64(len(b)) > est {
			t.Errorf("%d rows: estimate %d below size %d", rows, est, len(b))
		}
		checkParquetFile(t, tbl, b)
	}
}

func TestParquetCache(t *testing.T) {
	cache, _ := NewCache(t.TempDir())
	tbl, cols := testTable(4500)
	opts := Options{Cache: cache, Key: FileID{Path: "/p.h5"}.Key("/t")}
	v, _ := NewParquetView(tbl, opts)
	b := checkView(t, v)
	reads := cols["s"].reads.Load()
	v2, _ := NewParquetView(tbl, opts)
	if !v2.Exact() || v2.Size() != int64(len(b)) || cols["s"].reads.Load() != reads {
		t.Fatalf("cached parquet view: exact %v, size %d (want %d), %d new reads", v2.Exact(), v2.Size(), len(b), cols["s"].reads.Load()-reads)
	}
	// the footer comes from the cache: reading it renders nothing
	foot := make([]byte, 1000)
	if _, err := v2.ReadAt(foot, v2.Size()-1000); err != nil || cols["s"].reads.Load() != reads {
		t.Fatalf("reading the footer: %v, %d reads", err, cols["s"].reads.Load()-reads)
	}
	if !bytes.Equal(foot, b[len(b)-1000:]) {
		t.Fatal("cached footer differs")
	}
}

// sameValues compares arrays by value, dictionaries by their labels.
func sameValues(a, b arrow.Array) bool {
	da, ok1 := a.(*array.Dictionary)
	db, ok2 := b.(*array.Dictionary)
	if !ok1 || !ok2 {
		return array.ApproxEqual(a, b, array.WithNaNsEqual(true))
	}
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) {
			return false
		}
		if !a.IsNull(i) && da.Dictionary().ValueStr(da.GetValueIndex(i)) != db.Dictionary().ValueStr(db.GetValueIndex(i)) {
			return false
		}
	}
	return true
}

// TestParquetFromStats checks that fixed-width columns whose chunks have
// known min/max and no nulls get their layout (footer statistics
// included) without a data pass, identical to the real file.
func TestParquetFromStats(t *testing.T) {
	mem := memory.NewGoAllocator()
	mk := func(name string, b array.Builder, chunk int64) statsMemColumn {
		return withStats(&memColumn{field: arrow.Field{Name: name, Type: b.Type(), Nullable: true}, arr: b.NewArray(), chunkRows: chunk})
	}
	const rows = 25013
	i64, f64, f32 := array.NewInt64Builder(mem), array.NewFloat64Builder(mem), array.NewFloat32Builder(mem)
	u16, bl := array.NewUint16Builder(mem), array.NewBooleanBuilder(mem)
	for i := range rows {
		i64.Append(int64(i*i) - 1e8)
		f64.Append(math.Sin(float64(i)) * 1e3)
		f32.Append(float32(i) / 7)
		u16.Append(uint16(i * 31))
		bl.Append(i%5 == 0)
	}
	cols := []statsMemColumn{mk("a", i64, 1000), mk("b", f64, 2000), mk("c", f32, 4000), mk("d", u16, 500), mk("e", bl, 4000)}
	tbl := &Table{}
	for _, c := range cols {
		tbl.Columns = append(tbl.Columns, c)
	}
	v, err := NewParquetView(tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Finalize(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cols {
		if c.reads.Load() != 0 {
			t.Fatalf("column %s read %d times by Finalize", c.field.Name, c.reads.Load())
		}
	}
	b := checkView(t, v)
	if want := oneShotParquet(t, tbl); !bytes.Equal(b, want) {
		t.Fatalf("%d bytes differ from the real file's %d", len(b), len(want))
	}
	checkParquetFile(t, tbl, b)

	// a column with a null anywhere needs the data pass
	_, tc := testTable(rows)
	tbl.Columns = append(tbl.Columns, withStats(tc["x"]))
	v, _ = NewParquetView(tbl, Options{})
	if err := v.Finalize(); err != nil || tc["x"].reads.Load() == 0 {
		t.Fatalf("with nulls: %v, %d reads", err, tc["x"].reads.Load())
	}
}

// bigTable is a table whose column chunks are big enough for the
// arranged layout (see parquetlayout.go): id (int64, raw, no nulls), x
// (float64 with nulls) and u16 (uint16, raw, no nulls), in 20000-row
// chunks.
func bigTable(t *testing.T) (*Table, map[string]*memColumn) {
	tbl, cols := testTable(65003)
	keep := map[string]bool{"id": true, "x": true, "u16": true}
	var out []ColumnSource
	for _, c := range tbl.Columns {
		if keep[c.Field().Name] {
			out = append(out, c)
		}
	}
	for _, c := range cols {
		c.chunkRows = 20000
	}
	tbl.Columns = out
	return tbl, cols
}

// TestParquetArranged checks the layout of a table of big column chunks:
// column by column, each chunk on a page boundary, the footer's offsets
// saying so, the same values as the writer's own file, and a read of one
// column chunk rendering that chunk only, from raw values when it has no
// nulls.
func TestParquetArranged(t *testing.T) {
	tbl, cols := bigTable(t)
	v, err := NewParquetView(tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := checkView(t, v)
	checkParquetFile(t, tbl, b)
	if one := oneShotParquet(t, tbl); len(b) <= len(one) {
		t.Fatalf("arranged file of %d bytes, the writer's is %d: not padded", len(b), len(one))
	}
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	md := pf.MetaData()
	prev := int64(-1)
	for j := range md.NumColumns() {
		for i := range md.NumRowGroups() {
			cc, _ := md.RowGroup(i).ColumnChunk(j)
			off := cc.DataPageOffset()
			if off <= prev || (off != int64(len(parquetMagic)) && off%parquetPage != 0) {
				t.Fatalf("row group %d column %d at %d (previous chunk at %d)", i, j, off, prev)
			}
			prev = off
		}
	}
	pf.Close()

	// one column chunk at a time, through a fresh view of the same layout
	for j, name := range []string{"id", "x", "u16"} {
		for i := range md.NumRowGroups() {
			v2, _ := NewParquetView(tbl, Options{})
			if err := v2.Finalize(); err != nil {
				t.Fatal(err)
			}
			for _, c := range cols {
				c.reads.Store(0)
			}
			cc, _ := md.RowGroup(i).ColumnChunk(j)
			p := make([]byte, cc.TotalCompressedSize())
			if _, err := v2.ReadAt(p, cc.DataPageOffset()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(p, b[cc.DataPageOffset():cc.DataPageOffset()+int64(len(p))]) {
				t.Fatalf("row group %d column %s differs", i, name)
			}
			for other, c := range cols {
				want := int64(0)
				if other == name && name == "x" {
					want = 1 // nulls: read through Read; the others from raw values
				}
				if got := c.reads.Load(); got != want {
					t.Fatalf("reading row group %d column %s: %d Reads of %s, want %d", i, name, got, other, want)
				}
			}
		}
	}
}
