package table

import (
	"bytes"
	"cmp"
	"math"

	"github.com/h5fs/h5fs/h5core"
)

// newHEP001Column builds a column of a HEP001 table from its dataset
// (§8): descriptive attributes, fill value and missing-value rule (§8.5),
// categories (§8.7) and search indexes (§8.6).
func (t *Table) newHEP001Column(fs *findings, ds *h5core.Dataset, cats map[uint64]*Categories, sis map[uint64]*SearchIndex) (*Column, error) {
	as, err := readAttrs(ds.Object)
	if err != nil {
		return nil, err
	}
	p := ds.Path
	c := t.baseColumn(ds, wholeSource(ds))
	c.Attrs = as.stringAttrs()
	c.Units, _ = as.str("units")
	c.Description, _ = as.str("description")
	c.UnitsVocabulary, _ = as.str("units_vocabulary")
	if c.UnitsVocabulary == "" {
		c.UnitsVocabulary = t.Attrs["units_vocabulary"]
	}
	fill, fillSet := ds.FillValue()
	if fillSet {
		c.setFill(fill)
	} else {
		fs.errorf(p, "§8.5", "no user-defined fill value: missing rows cannot be told")
	}
	if addrs, ok := t.refAttr(fs, p, as, "CATEGORIES"); ok {
		c.Categories = t.bindCategories(fs, c, addrs, cats)
	}
	vmin, vmax := t.validRange(fs, c, as)
	asBool := c.Categories == nil && isBool8(c.Type, c.Fill, vmin, vmax)
	if addrs, ok := t.refAttr(fs, p, as, "SEARCH_INDEX_LIST"); ok {
		for i, a := range addrs {
			si := sis[a]
			switch {
			case si == nil:
				fs.errorf(p, "§12", "SEARCH_INDEX_LIST[%d] does not reference a search index under SEARCH_INDEXES", i)
			case si.Column != nil:
				fs.errorf(si.Path, "§10.4", "search index is listed by columns %s and %s: it applies to exactly one", si.Column.Name, c.Name)
			default:
				si.Column = c
				c.SearchIndexes = append(c.SearchIndexes, si)
			}
		}
	}
	if c.Type.Class == h5core.ClassEnum && fillSet && enumName(c.Type, c.Fill) != "MISSING" {
		fs.warnf(p, "§8.5", "enum fill value is not a member named MISSING")
	}
	c.Logical = logicalKind(c.Type, asBool, c.Categories != nil)
	if c.conv, err = newConverter(c.Type, asBool, c.Categories, c.Fill); err != nil {
		return nil, err
	}
	return c, nil
}

// baseColumn fills in what every column has, from its dataset and source.
func (t *Table) baseColumn(ds *h5core.Dataset, src source) *Column {
	typ := ds.Type
	c := &Column{Name: lastName(ds.Path), Path: ds.Path, Type: typ, HDF5Type: typ.String(), t: t, src: src, IndexLevel: -1}
	if typ.IsFixedSize() {
		c.ElemSize = typ.PackedSize()
	}
	c.ChunkRows = t.NRows
	if ds.Layout() == "chunked" && len(ds.ChunkShape()) > 0 {
		c.ChunkRows = int64(ds.ChunkShape()[0])
	}
	return c
}

// lastName returns the last component of an HDF5 path.
func lastName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

// setFill records a user-defined fill value and picks the §8.5 test.
func (c *Column) setFill(fill []byte) {
	t := c.Type
	c.Fill = bytes.Clone(fill)
	c.Nullable = true
	v, err := c.t.f.ElementValue(t, fill)
	if s, ok := v.(string); ok {
		c.FillText = s
	} else if err == nil {
		c.FillText = h5core.FormatValue(v)
	}
	switch {
	case isString(t):
		c.miss = missString
		c.fillS, _ = v.(string)
	case t.Class == h5core.ClassVlen || !t.IsFixedSize():
		c.miss, c.Nullable = missNone, false
	case t.IsIEEE() && math.IsNaN(t.Float64(fill)):
		c.miss, c.fillF = missNaN, true
	default:
		c.miss = missBytes
	}
}

// enumName returns the member name of an enum element, "" if none.
func enumName(t *h5core.Datatype, e []byte) string {
	for _, m := range t.Members {
		if bytes.Equal(m.Value, e[:t.Size]) {
			return m.Name
		}
	}
	return ""
}

// isBool8 recognises §8.5's widened booleans: uint8 with a fill above 1
// (typically 2) and no value range other than [0, 1].
func isBool8(t *h5core.Datatype, fill []byte, vmin, vmax any) bool {
	if t.Class != h5core.ClassFixedPoint || t.Size != 1 || t.Signed || len(fill) != 1 || fill[0] < 2 {
		return false
	}
	if vmin == nil && vmax == nil {
		return fill[0] == 2
	}
	lo, _, _, ok1 := integer(vmin)
	hi, _, _, ok2 := integer(vmax)
	return ok1 && ok2 && lo == 0 && hi == 1
}

// logicalKind classifies a column type.
func logicalKind(t *h5core.Datatype, asBool, categorical bool) string {
	switch {
	case categorical:
		return LogicalCategorical
	case asBool:
		return LogicalBool
	}
	switch t.Class {
	case h5core.ClassFixedPoint:
		return LogicalInt
	case h5core.ClassFloat:
		return LogicalFloat
	case h5core.ClassString:
		return LogicalString
	case h5core.ClassVlen:
		if t.VlenKind == h5core.VlenString {
			return LogicalString
		}
	case h5core.ClassEnum:
		return LogicalEnum
	case h5core.ClassCompound:
		return LogicalCompound
	case h5core.ClassOpaque:
		return LogicalOpaque
	case h5core.ClassArray:
		return LogicalArray
	}
	return LogicalOther
}

// validRange reads valid_min/valid_max (§8.5) and checks that the fill
// lies strictly outside them. It returns the decoded bounds.
func (t *Table) validRange(fs *findings, c *Column, as attrSet) (vmin, vmax any) {
	get := func(name string) any {
		a := as[name]
		if a == nil {
			return nil
		}
		v, err := a.Value()
		if l, ok := v.([]any); ok && len(l) == 1 {
			v = l[0]
		}
		if err != nil || a.NumElements() != 1 {
			fs.errorf(c.Path, "§8.6", "%s is not a readable scalar", name)
			return nil
		}
		if a.Type.Class != c.Type.Class || a.Type.Size != c.Type.Size {
			fs.warnf(c.Path, "§8.6", "%s is %s, the column is %s", name, a.Type, c.Type)
		}
		return v
	}
	vmin, vmax = get("valid_min"), get("valid_max")
	c.vmin, c.vmax = vmin, vmax
	if vmin != nil {
		c.ValidMin = h5core.FormatValue(vmin)
	}
	if vmax != nil {
		c.ValidMax = h5core.FormatValue(vmax)
	}
	if c.Fill == nil || (vmin == nil && vmax == nil) || c.fillF {
		return vmin, vmax
	}
	fv, err := t.f.ElementValue(c.Type, c.Fill)
	if err != nil {
		return vmin, vmax
	}
	if in, _ := c.inRange(fv); in {
		fs.errorf(c.Path, "§8.5", "fill value %s lies inside [valid_min, valid_max] = [%s, %s]", c.FillText, c.ValidMin, c.ValidMax)
	}
	return vmin, vmax
}

// inRange compares the number v with [valid_min, valid_max]: in when
// every bound present compares and holds, out when one compares and does
// not (a NaN compares with nothing). Integers compare exactly, not as
// float64: int64 and uint64 bounds next to a fill can differ by less than
// float64 tells apart.
func (c *Column) inRange(v any) (in, out bool) {
	in = true
	for i, b := range []any{c.vmin, c.vmax} {
		if b == nil {
			continue
		}
		d, ok := numCompare(v, b)
		switch {
		case !ok:
			in = false
		case (i == 0 && d < 0) || (i == 1 && d > 0):
			in, out = false, true
		}
	}
	return in, out
}

// numCompare orders two numbers: both integers exactly, else as float64.
// ok is false when either is no number, or a NaN.
func numCompare(a, b any) (int, bool) {
	ai, au, aneg, aok := integer(a)
	bi, bu, bneg, bok := integer(b)
	if aok && bok {
		switch {
		case aneg && bneg:
			return cmp.Compare(ai, bi), true
		case aneg:
			return -1, true
		case bneg:
			return 1, true
		}
		return cmp.Compare(au, bu), true
	}
	x, y := toFloat(a), toFloat(b)
	if math.IsNaN(x) || math.IsNaN(y) {
		return 0, false
	}
	return cmp.Compare(x, y), true
}

// toFloat converts a numeric value to float64 (NaN for anything else).
func toFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	}
	if i, u, neg, ok := integer(v); ok {
		if neg {
			return float64(i)
		}
		return float64(u)
	}
	return math.NaN()
}
