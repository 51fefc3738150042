package arrowexport

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// int32Column is a non-nullable int32 column of the given values.
func int32Column(f arrow.Field, vals []int32) *memColumn {
	b := array.NewInt32Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return &memColumn{field: f, arr: b.NewArray(), chunkRows: 7}
}

// TestArrowLayoutMemo makes Arrow views of tables that differ in one
// thing each from a first one: those of another shape get their own
// layout, those of the same shape (other values) share its layout, and
// every view's bytes are those of a one-shot writer of its own table.
func TestArrowLayoutMemo(t *testing.T) {
	vals := func(n int, add int32) []int32 {
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(i)*3 + add
		}
		return v
	}
	field := arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Metadata: arrow.NewMetadata([]string{"units"}, []string{"m"})}
	renamed, other := field, field
	renamed.Name = "x\" type=int32"
	other.Metadata = arrow.NewMetadata([]string{"units"}, []string{"s"})
	wide := field
	wide.Type = arrow.PrimitiveTypes.Int64
	first := &Table{Columns: []ColumnSource{int32Column(field, vals(20, 0))}}
	for _, tc := range []struct {
		name  string
		tbl   *Table
		share bool
	}{
		{"same shape, other values", &Table{Columns: []ColumnSource{int32Column(field, vals(20, 1000))}}, true},
		{"other name", &Table{Columns: []ColumnSource{int32Column(renamed, vals(20, 0))}}, false},
		{"other metadata", &Table{Columns: []ColumnSource{int32Column(other, vals(20, 0))}}, false},
		{"other rows", &Table{Columns: []ColumnSource{int32Column(field, vals(21, 0))}}, false},
		{"other schema metadata", &Table{Columns: first.Columns, Metadata: map[string]string{"k": "v"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arrowLayouts = layoutMemo{}
			a, err := NewArrowView(first, Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := NewArrowView(tc.tbl, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !a.Exact() || !b.Exact() {
				t.Fatal("fixed-width, non-nullable tables: layout not known at once")
			}
			if shared := a.(*framedView).lay == b.(*framedView).lay; shared != tc.share {
				t.Errorf("layout shared: %v, want %v", shared, tc.share)
			}
			for _, v := range []struct {
				v   View
				tbl *Table
			}{{a, first}, {b, tc.tbl}} {
				if got, want := checkView(t, v.v), oneShotArrow(t, v.tbl); !bytes.Equal(got, want) {
					t.Errorf("%d bytes differ from a one-shot writer's %d", len(got), len(want))
				}
			}
		})
	}
}
