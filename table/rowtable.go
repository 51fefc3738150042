package table

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/h5fs/h5fs/h5core"
)

// Row tables: PyTables, pandas (format='table') and H5TB tables are one
// rank-1 compound dataset whose fields are the columns. They have no
// HEP001 semantics: no missing values, no categoricals.

// openRowTable reads a compound dataset with CLASS=TABLE.
func (t *Table) openRowTable(o *h5core.Object, as attrSet) error {
	ds, err := o.Dataset()
	if err != nil {
		return err
	}
	if ds.Type.Class != h5core.ClassCompound || len(ds.Shape()) != 1 {
		return fmt.Errorf("%s: %s: CLASS=TABLE on a %s dataset of shape %v, not a 1-D compound", t.f.Name(), o.Path, ds.Type, ds.Shape())
	}
	var fs findings
	defer func() { t.Findings = append(t.Findings, fs...) }()
	t.Version, _ = as.str("VERSION")
	for name, v := range as.stringAttrs("CLASS", "VERSION") {
		if !strings.HasPrefix(name, "FIELD_") {
			t.Attrs[name] = v
		}
	}
	t.NRows = int64(ds.Shape()[0])
	if a := as["NROWS"]; a != nil {
		if v, err := a.Value(); err == nil {
			if i, _, neg, ok := integer(v); ok && !neg && i <= t.NRows {
				t.NRows = i
			} else {
				fs.warnf(o.Path, "NROWS", "NROWS %v does not fit the extent %d: extent used", v, t.NRows)
			}
		}
	}
	if t.Kind == KindPandas {
		return t.pandasColumns(ds)
	}
	for i, fl := range ds.Type.Fields {
		name := fl.Name
		if n, ok := as.str(fmt.Sprintf("FIELD_%d_NAME", i)); ok && n != "" {
			name = n
		}
		c, err := t.fieldColumn(ds, name, fl.Type, fl.Offset)
		if err != nil {
			return err
		}
		if a := as[fmt.Sprintf("FIELD_%d_FILL", i)]; a != nil {
			if v, err := a.Value(); err == nil {
				if s, ok := v.(string); ok {
					c.FillText = s
				} else {
					c.FillText = h5core.FormatValue(v)
				}
			}
		}
		t.Columns = append(t.Columns, c)
		t.ColumnOrder = append(t.ColumnOrder, name)
	}
	return nil
}

// fieldColumn makes a column of the element at byte offset off of each
// record of ds, of type typ.
func (t *Table) fieldColumn(ds *h5core.Dataset, name string, typ *h5core.Datatype, off int) (*Column, error) {
	c := t.baseColumn(ds, source{ds: ds, off: off, size: typ.Size, rec: ds.Type.Size})
	c.Name, c.Type, c.HDF5Type = name, typ, typ.String()
	c.ElemSize = 0
	if typ.IsFixedSize() {
		c.ElemSize = typ.PackedSize()
	}
	asBool := typ.Class == h5core.ClassBitfield && typ.Size == 1
	c.Logical = logicalKind(typ, asBool, false)
	var err error
	c.conv, err = newConverter(typ, asBool, nil, nil)
	return c, err
}

// isPandasTable reports whether a CLASS=TABLE dataset is the "table" of
// a pandas HDFStore frame_table group.
func isPandasTable(f *h5core.File, o *h5core.Object) bool {
	i := strings.LastIndex(o.Path, "/")
	if i < 0 || o.Path[i+1:] != "table" {
		return false
	}
	parent, err := f.Open(o.Path[:max(i, 1)])
	if err != nil {
		return false
	}
	as, err := readAttrs(parent)
	if err != nil {
		return false
	}
	pt, _ := as.str("pandas_type")
	return pt == "frame_table"
}

// pandasColumns splits a pandas table's records into the DataFrame's
// logical columns: the index, the data columns (own fields) and the
// columns packed into the values_block_K array fields, in the order of
// the group's non_index_axes.
func (t *Table) pandasColumns(ds *h5core.Dataset) error {
	parentPath := t.Path[:max(strings.LastIndex(t.Path, "/"), 1)]
	parent, err := t.f.Open(parentPath)
	if err != nil {
		return err
	}
	pas, err := readAttrs(parent)
	if err != nil {
		return err
	}
	das, err := readAttrs(ds.Object)
	if err != nil {
		return err
	}
	type place struct {
		typ   *h5core.Datatype
		off   int
		dtype string // pandas' dtype name of the field or block
	}
	where := map[string]place{}
	for _, fl := range ds.Type.Fields {
		dtype, _ := das.str(fl.Name + "_dtype")
		if !strings.HasPrefix(fl.Name, "values_block_") {
			where[fl.Name] = place{fl.Type, fl.Offset, dtype}
			continue
		}
		kind, _ := das.str(fl.Name + "_kind")
		names := pickleStrings(kind)
		base, n := fl.Type, 1
		if fl.Type.Class == h5core.ClassArray {
			base = fl.Type.Base
			n = fl.Type.Size / base.Size
		}
		for j, name := range names {
			if j < n {
				where[name] = place{base, fl.Offset + j*base.Size, dtype}
			}
		}
	}
	axes, _ := pas.str("non_index_axes")
	order := pickleStrings(axes)
	if len(order) == 0 {
		return fmt.Errorf("%s: %s: pandas table without non_index_axes", t.f.Name(), t.Path)
	}
	indexName := "index"
	info, _ := pas.str("info")
	toks := pickleTokens(info)
	for i, tok := range toks {
		if tok == "index_name" && i+1 < len(toks) && toks[i+1] != "" {
			indexName = toks[i+1]
			break
		}
	}
	if p, ok := where["index"]; ok {
		c, err := t.fieldColumn(ds, indexName, p.typ, p.off)
		if err != nil {
			return err
		}
		t.Columns = append(t.Columns, c)
		t.IndexColumns, t.Index = []string{indexName}, indexName
	}
	for _, name := range order {
		p, ok := where[name]
		if !ok {
			return fmt.Errorf("%s: %s: pandas column %q not found in the table's fields", t.f.Name(), t.Path, name)
		}
		c, err := t.fieldColumn(ds, name, p.typ, p.off)
		if err != nil {
			return err
		}
		if strings.HasPrefix(p.dtype, "datetime64") && c.conv.kind == cvPrim && p.typ.Size == 8 && p.typ.Signed {
			// naive nanosecond timestamps, stored as int64
			c.conv.dt = &arrow.TimestampType{Unit: arrow.Nanosecond}
			c.Logical = LogicalTimestamp
		}
		t.Columns = append(t.Columns, c)
		t.ColumnOrder = append(t.ColumnOrder, name)
	}
	return nil
}

// pickleTokens lists the strings of a protocol-0 pickle, as pandas stores
// its table metadata, in order of appearance (memo references included);
// None gives "". Containers and numbers give no token.
func pickleTokens(p string) []string {
	var out []string
	memo := map[string]*string{}
	var last *string // the item last pushed, when it is a string
	for i := 0; i < len(p); i++ {
		op := p[i]
		arg := ""
		if strings.IndexByte("VSIFLpgci", op) >= 0 {
			end := strings.IndexByte(p[i+1:], '\n')
			if end < 0 {
				end = len(p) - i - 1
			}
			arg = p[i+1 : i+1+end]
			i += 1 + end
		}
		switch op {
		case 'V':
			s := unescapeRawUnicode(arg)
			last = &s
			out = append(out, s)
		case 'S':
			s, err := strconv.Unquote(arg)
			if err != nil {
				s = strings.Trim(arg, `'"`)
			}
			last = &s
			out = append(out, s)
		case 'N':
			s := ""
			last = &s
			out = append(out, s)
		case 'p':
			memo[arg] = last
		case 'g':
			last = memo[arg]
			if last != nil {
				out = append(out, *last)
			}
		case 'a', 's', 'e', 'u', '.', '0', '2':
		default:
			last = nil
		}
	}
	return out
}

// pickleStrings returns the non-empty strings of a pickled list.
func pickleStrings(p string) []string {
	var out []string
	for _, s := range pickleTokens(p) {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// unescapeRawUnicode decodes pickle's raw-unicode-escape (\uXXXX and
// \UXXXXXXXX; everything else is literal).
func unescapeRawUnicode(s string) string {
	if !strings.Contains(s, `\u`) && !strings.Contains(s, `\U`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'u' || s[i+1] == 'U') {
			n := 4
			if s[i+1] == 'U' {
				n = 8
			}
			if i+2+n <= len(s) {
				if r, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32); err == nil {
					b.WriteRune(rune(r))
					i += 1 + n
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
