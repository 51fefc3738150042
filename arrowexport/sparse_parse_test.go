package arrowexport

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
)

// TestCOOParserRoundTrip parses every fixture's coo.csv back, fed in odd
// pieces: the same elements and values, in order; then lines that must
// fail (a missing field, a negative coordinate, a value out of range)
// and an erase (an empty value).
func TestCOOParserRoundTrip(t *testing.T) {
	for _, fx := range sparseFixtures(t) {
		file, name := fx[0], "/"+fx[1]
		f, err := h5core.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		o, err := f.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := o.Dataset()
		if err != nil || !ds.IsSparse() {
			continue
		}
		m, err := sparsecoo.Open(ds)
		if err != nil {
			t.Fatal(err)
		}
		views, err := SparseViews(ds, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		text := checkView(t, views["coo.csv"])
		p, err := NewCOOParser(m)
		if err != nil {
			t.Fatal(err)
		}
		for len(text) > 0 {
			n := min(len(text), 7)
			if err := p.Write(text[:n]); err != nil {
				t.Fatalf("%s %s: %v", file, name, err)
			}
			text = text[n:]
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		var coords []uint64
		var vals []byte
		err = m.Each(func(c []uint64, v []byte) error {
			coords, vals = append(coords, c...), append(vals, v...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.coords, coords) || !bytes.Equal(p.vals, vals) || slices.Contains(p.erase, true) {
			t.Fatalf("%s %s: parsed %d elements back differently", file, name, len(p.erase))
		}
		p.Release()
	}
	f, err := h5core.Open("../sparsecoo/testdata/sparse_2d_uint8_single.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, _ := f.Open("/uint8_single_points")
	ds, _ := o.Dataset()
	m, err := sparsecoo.Open(ds)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ line, err string }{
		{"1,2,3\n", ""},
		{"1,2,\n", ""},
		{"1,2\n", "field"},
		{"-1,2,3\n", "negative"},
		{"1,2,256\n", "value"},
		{"1,x,3\n", "col"},
	} {
		p, err := NewCOOParser(m)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Write([]byte(c.line))
		if c.err == "" {
			if err != nil || p.Pending() != 1 {
				t.Errorf("%q: %v, %d pending", c.line, err, p.Pending())
			}
			if strings.HasSuffix(c.line, ",\n") && !p.erase[0] {
				t.Errorf("%q: not an erase", c.line)
			}
			continue
		}
		if err == nil {
			t.Errorf("%q: no error", c.line)
		}
	}
}
