package table

import (
	"github.com/h5fs/h5fs/h5core"
)

// readCategories lists the categories datasets of the CATEGORIES group
// (§8.7) by object address.
func (t *Table) readCategories(fs *findings, g *h5core.Object) map[uint64]*Categories {
	out := map[uint64]*Categories{}
	if g == nil {
		return out
	}
	links, err := g.Links()
	if err != nil {
		fs.errorf(g.Path, "HDF5", "CATEGORIES not readable: %v", err)
		return out
	}
	for _, l := range links {
		p := childPath(g.Path, l.Name)
		o, ds, ok := memberDataset(fs, g, l, p, "§8.7", "CATEGORIES", "categories dataset")
		if !ok {
			continue
		}
		if len(ds.Shape()) != 1 {
			fs.errorf(p, "§8.7", "categories dataset has shape %v, not rank 1", ds.Shape())
			continue
		}
		k := newCategories(t.f, ds)
		as, err := readAttrs(o)
		if err != nil {
			fs.errorf(p, "HDF5", "attributes not readable: %v", err)
		}
		var conformant bool
		k.Ordered, k.OrderedSet, conformant = as.boolAttr("ordered")
		if k.OrderedSet && !conformant {
			fs.errorf(p, "§6", "ordered is %s, not the HEP001 boolean enum {FALSE=0, TRUE=1} on int8", as["ordered"].Type)
		}
		out[ds.Addr] = k
		t.Categories = append(t.Categories, k)
	}
	return out
}

// bindCategories resolves a column's CATEGORIES reference (§8.7).
func (t *Table) bindCategories(fs *findings, c *Column, addrs []uint64, cats map[uint64]*Categories) *Categories {
	if len(addrs) != 1 {
		fs.errorf(c.Path, "§8.7", "CATEGORIES holds %d references, not one", len(addrs))
		return nil
	}
	k := cats[addrs[0]]
	switch {
	case k == nil:
		fs.errorf(c.Path, "§12", "CATEGORIES does not reference a dataset of the table's CATEGORIES group")
		return nil
	case c.Type.Class != h5core.ClassFixedPoint || c.Type.Size > 8:
		fs.errorf(c.Path, "§8.7", "categorical column has type %s, not an integer type", c.Type)
		return nil
	}
	if _, err := k.valueType(); err != nil {
		fs.errorf(k.Path, "HDF5", "labels not readable: %v", err)
		return nil
	}
	if c.Fill != nil {
		code := c.Type.Int64(c.Fill)
		if (c.Type.Signed || code >= 0) && code >= 0 && code < k.Len {
			fs.errorf(c.Path, "§12", "fill value %d is a valid code of the %d categories of %s", code, k.Len, k.Path)
		}
	}
	return k
}

// linkCategories checks that every categories dataset is used (§12).
func (t *Table) linkCategories(fs *findings, cats map[uint64]*Categories) {
	used := map[*Categories]bool{}
	for _, c := range t.Columns {
		if c.Categories != nil {
			used[c.Categories] = true
		}
	}
	for _, k := range t.Categories {
		if !used[k] {
			fs.errorf(k.Path, "§12", "categories dataset is not referenced by any categorical column")
		}
	}
}

// knownKind reports a KIND this revision defines (§10.3).
// memberDataset opens link l (at path p) of the CATEGORIES or
// SEARCH_INDEXES group g, which may hold only datasets (rule), recording
// a finding and reporting false when it is not a readable dataset.
func memberDataset(fs *findings, g *h5core.Object, l h5core.Link, p, rule, group, what string) (*h5core.Object, *h5core.Dataset, bool) {
	o, err := g.OpenLink(l)
	if err != nil {
		fs.errorf(p, "HDF5", "cannot open: %v", err)
		return nil, nil, false
	}
	if o.Kind() != h5core.KindDataset {
		fs.errorf(p, rule, "the %s group holds a %s: only %ss belong there", group, o.Kind(), what)
		return nil, nil, false
	}
	ds, err := o.Dataset()
	if err != nil {
		fs.errorf(p, "HDF5", "%s not readable: %v", what, err)
		return nil, nil, false
	}
	return o, ds, true
}

func knownKind(k string) bool {
	switch k {
	case KindChunkMinMax, KindSortedRows, KindBitmap, KindChunkBloom:
		return true
	}
	return false
}

// readSearchIndexes lists the search-index datasets of SEARCH_INDEXES
// (§10.1) and reads their attributes. Datasets without KIND are
// accompanying datasets (BITMAP values).
func (t *Table) readSearchIndexes(fs *findings, g *h5core.Object) ([]*SearchIndex, map[uint64]*SearchIndex) {
	byAddr := map[uint64]*SearchIndex{}
	if g == nil {
		return nil, byAddr
	}
	links, err := g.Links()
	if err != nil {
		fs.errorf(g.Path, "HDF5", "SEARCH_INDEXES not readable: %v", err)
		return nil, byAddr
	}
	var list []*SearchIndex
	accompanying := map[uint64]*h5core.Dataset{}
	used := map[uint64]bool{}
	for _, l := range links {
		p := childPath(g.Path, l.Name)
		o, ds, ok := memberDataset(fs, g, l, p, "§10.1", "SEARCH_INDEXES", "search-index dataset")
		if !ok {
			continue
		}
		as, err := readAttrs(o)
		if err != nil {
			fs.errorf(p, "HDF5", "attributes not readable: %v", err)
			continue
		}
		kind, ok := as.str("KIND")
		if !ok {
			accompanying[ds.Addr] = ds
			continue
		}
		si := &SearchIndex{Name: l.Name, Path: p, Kind: kind, ds: ds}
		si.Description, _ = as.str("description")
		t.readIndexParams(fs, si, as)
		if kind == KindBitmap {
			if addrs, ok := t.refAttr(fs, p, as, "VALUES"); ok && len(addrs) == 1 {
				used[addrs[0]] = true
				si.valuesAddr = addrs[0]
			} else {
				fs.errorf(p, "§10.6", "BITMAP has no scalar VALUES reference")
			}
		}
		list = append(list, si)
		byAddr[ds.Addr] = si
	}
	for _, si := range list {
		if si.Kind != KindBitmap || si.valuesAddr == 0 {
			continue
		}
		if v := accompanying[si.valuesAddr]; v != nil {
			si.values, si.ValuesPath = v, v.Path
		} else if byAddr[si.valuesAddr] != nil {
			fs.errorf(si.Path, "§10.6", "VALUES references %s, which carries KIND: values datasets must not", byAddr[si.valuesAddr].Path)
		} else {
			fs.errorf(si.Path, "§10.6", "VALUES does not reference an accompanying dataset under SEARCH_INDEXES")
		}
	}
	for addr, ds := range accompanying {
		if !used[addr] {
			fs.errorf(ds.Path, "§12", "dataset under SEARCH_INDEXES has no KIND and no search index uses it")
		}
	}
	return list, byAddr
}

// readIndexParams reads the per-kind attributes of a search index.
func (t *Table) readIndexParams(fs *findings, si *SearchIndex, as attrSet) {
	num := func(name string) (uint64, bool) {
		a := as[name]
		if a == nil || a.NumElements() != 1 {
			return 0, false
		}
		v, err := a.Value()
		if l, ok := v.([]any); ok {
			v = l[0]
		}
		_, u, neg, ok := integer(v)
		return u, err == nil && ok && !neg
	}
	switch si.Kind {
	case KindSortedRows:
		var ok1, ok2 bool
		si.NaNTail, ok1 = num("nan_tail_length")
		si.FillTail, ok2 = num("fill_tail_length")
		if !ok1 || !ok2 {
			fs.errorf(si.Path, "§10.5", "nan_tail_length and fill_tail_length must both be present")
		}
		var present bool
		si.Ordered, present, _ = as.boolAttr("ordered")
		if !present || !si.Ordered {
			fs.errorf(si.Path, "§10.5", "ordered must be TRUE for SORTED_ROWS")
		}
	case KindBitmap:
		si.Ordered, _, _ = as.boolAttr("ordered")
	case KindChunkBloom:
		k, ok1 := num("k")
		m, ok2 := num("m_bits")
		seed, _ := num("seed")
		si.K, si.MBits, si.Seed = int(k), m, uint32(seed)
		si.HashFamily, _ = as.str("hash_family")
		switch {
		case !ok1 || !ok2 || k == 0 || m == 0 || m%8 != 0:
			fs.errorf(si.Path, "§10.7", "k=%d, m_bits=%d: need k > 0 and m_bits a positive multiple of 8", k, m)
		case si.HashFamily != "murmur3_x64_128_double":
			fs.errorf(si.Path, "§10.7", "hash_family %q is not murmur3_x64_128_double", si.HashFamily)
		}
	}
}
