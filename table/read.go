package table

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Field returns the column's Arrow field: its logical type (integers,
// float16/32/64, bool for bool8, utf8 for strings, fixed_size_binary for
// opaque, dictionary<int, labels> for categoricals and enums, struct for
// compounds, fixed_size_list for arrays), whether it can hold nulls, and
// metadata: units (with units_vocabulary), description, hdf5_type,
// logical_type, fill_value, valid_min, valid_max, categories, ordered and
// index_level when set.
func (c *Column) Field() arrow.Field {
	var keys, vals []string
	add := func(k, v string) {
		if v != "" {
			keys, vals = append(keys, k), append(vals, v)
		}
	}
	add("units", c.Units)
	if c.Units != "" {
		add("units_vocabulary", c.UnitsVocabulary)
	}
	add("description", c.Description)
	add("hdf5_type", c.HDF5Type)
	add("logical_type", c.Logical)
	if c.Fill != nil || c.FillText != "" {
		keys, vals = append(keys, "fill_value"), append(vals, c.FillText)
	}
	add("valid_min", c.ValidMin)
	add("valid_max", c.ValidMax)
	if c.Categories != nil {
		add("categories", c.Categories.Path)
		if c.Categories.OrderedSet {
			add("ordered", map[bool]string{true: "true", false: "false"}[c.Categories.Ordered])
		}
	}
	if c.IndexLevel >= 0 {
		add("index_level", strconv.Itoa(c.IndexLevel))
	}
	return arrow.Field{Name: c.Name, Type: c.conv.dt, Nullable: c.Nullable, Metadata: arrow.NewMetadata(keys, vals)}
}

// Read returns rows [start, start+n) ⊂ [0, NROWS) as an Arrow array of
// the Field's type: missing values (§8.5) as nulls, categoricals and
// enums as dictionary arrays, strings with their padding stripped.
func (c *Column) Read(start, n int64) (arrow.Array, error) {
	return c.ReadBuffered(start, n, nil)
}

// ReadBuffered is Read with the stored elements read into *buf, which it
// replaces with a larger buffer when it is too short (buf may be nil), so
// that a caller reading batch after batch reuses one buffer. The array may
// share *buf's memory: it must not be reused until the array is released.
func (c *Column) ReadBuffered(start, n int64, buf *[]byte) (arrow.Array, error) {
	if err := c.checkRange(start, n); err != nil {
		return nil, err
	}
	var b []byte
	if buf != nil {
		b = *buf
	}
	raw, err := c.src.readInto(b, start, n)
	if err != nil {
		return nil, err
	}
	if buf != nil && cap(raw) > cap(b) {
		*buf = raw
	}
	var strs []string
	if c.conv.kind == cvFixedStr || c.conv.kind == cvVlenStr {
		if strs, err = c.conv.strings(c.t.f, raw, int(n)); err != nil {
			return nil, err
		}
	}
	valid, nulls, err := c.validity(raw, strs, start, n)
	if err != nil {
		return nil, err
	}
	return c.conv.build(c.t.f, raw, int(n), strs, valid, nulls)
}
