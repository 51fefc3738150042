package table

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/h5fs/h5fs/h5core"
)

// TestEncodeRoundTrip: every row of every writable column of the test
// tables, read and encoded again, gives back its stored bytes (missing
// rows: the fill), and its raw form does too.
func TestEncodeRoundTrip(t *testing.T) {
	f, err := h5core.Open("testdata/hep_tables.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tested := 0
	for _, path := range []string{"/run/events", "/run/prealloc", "/one"} {
		tb, err := Open(f, path, Lenient)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tb.Columns {
			if c.ElemSize == 0 || c.conv.kind == cvVlenStr || !c.Type.IsPackedLE() {
				continue
			}
			tested++
			a, err := c.Read(0, tb.NRows)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Encode(a)
			a.Release()
			if err != nil {
				t.Errorf("%s: %v", c.Path, err)
				continue
			}
			want, err := c.src.read(0, tb.NRows)
			if err != nil {
				t.Fatal(err)
			}
			valid, _, err := c.validity(want, nil, 0, tb.NRows)
			if c.miss == missString {
				valid = nil // strings: compare every row's bytes
			}
			if err != nil {
				t.Fatal(err)
			}
			size := c.Type.Size
			for r := range int(tb.NRows) {
				w := want[r*size : (r+1)*size]
				if valid != nil && !valid[r] {
					w = c.Fill
				}
				if g := got[r*size : (r+1)*size]; !bytes.Equal(g, w) {
					t.Errorf("%s row %d: encoded %x, stored %x", c.Path, r, g, w)
					break
				}
			}
			raw := make([]byte, int(tb.NRows)*c.ElemSize)
			if err := c.ReadRaw(0, tb.NRows, raw); err != nil {
				t.Fatal(err)
			}
			if got, err := c.EncodeRaw(raw); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: raw round trip differs (%v)", c.Path, err)
			}
		}
	}
	if tested < 5 {
		t.Fatalf("only %d columns tested", tested)
	}
}

// TestEncodeRefuses: values a column cannot hold are errors.
func TestEncodeRefuses(t *testing.T) {
	str := func(s ...string) *array.String {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		defer b.Release()
		b.AppendValues(s, nil)
		return b.NewArray().(*array.String)
	}
	fixed := &h5core.Datatype{Class: h5core.ClassString, Size: 4, StrPad: h5core.NullTerm}
	space := &h5core.Datatype{Class: h5core.ClassString, Size: 4, StrPad: h5core.SpacePad}
	for _, tc := range []struct {
		t    *h5core.Datatype
		v    string
		want string
	}{
		{fixed, "abc", ""},
		{fixed, "abcd", ""}, // fills the element: libhdf5 reads all 4 bytes
		{fixed, "abcde", "does not fit"},
		{fixed, "a\x00b", "would not read back"},
		{space, "ab ", "would not read back"},
		{space, "abcd", ""},
	} {
		c, err := newConverter(tc.t, false, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := str(tc.v)
		got, err := c.appendPacked(nil, a, 0)
		a.Release()
		switch {
		case tc.want == "" && (err != nil || len(got) != 4):
			t.Errorf("%q: %x, %v", tc.v, got, err)
		case tc.want != "" && (err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want))):
			t.Errorf("%q: error %v, want %q", tc.v, err, tc.want)
		}
	}
}

// TestEncodeRefusesColumns: a new categorical label is an error naming
// the column and the label when the CATEGORIES dataset cannot grow
// (hep_tables.h5's detectors is contiguous).
func TestEncodeRefusesColumns(t *testing.T) {
	f, err := h5core.Open("testdata/hep_tables.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tb, err := Open(f, "/run/events", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) *Column {
		for _, c := range tb.Columns {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no column %s", name)
		return nil
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.AppendValues([]string{"HCAL", "NEWDET"}, nil)
	a := b.NewArray()
	defer a.Release()
	for _, tc := range []struct {
		col  string
		a    arrow.Array
		want string
	}{
		{"det", array.NewSlice(a, 0, 1), ""},
		{"det", a, `/run/events/det: row 1: "NEWDET" is not one of the column's labels`},
	} {
		_, err := col(tc.col).Encode(tc.a)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.col, err, tc.want)
		}
		if err := col(tc.col).Writable(); err != nil {
			t.Errorf("%s: Writable() = %v", tc.col, err)
		}
	}
}
