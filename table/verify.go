package table

import (
	"fmt"
	"sort"

	"github.com/h5fs/h5fs/h5core"
)

// Check validates the table: the findings made when it was opened (the
// structural rules of §7, §8, §10 and §12), a scan of categorical codes
// (§8.7) and value ranges (§8.5), and with verifyIndexes a recomputation
// of every search index from its column (§12, §16).
func (t *Table) Check(verifyIndexes bool) []Finding {
	out := append([]Finding(nil), t.Findings...)
	if t.Kind != KindHEP001 {
		return out
	}
	var fs findings
	cache := map[*Column]*rowKeys{}
	keysOf := func(c *Column) (*rowKeys, error) {
		if rk := cache[c]; rk != nil {
			return rk, nil
		}
		rk, err := c.readKeys(0, t.NRows)
		if err == nil {
			cache[c] = rk
		}
		return rk, err
	}
	for _, c := range t.Columns {
		if c.Categories == nil && c.ValidMin == "" && c.ValidMax == "" {
			continue
		}
		rk, err := keysOf(c)
		if err != nil {
			fs.errorf(c.Path, "§8", "column not readable: %v", err)
			continue
		}
		c.checkValues(&fs, rk)
	}
	if verifyIndexes {
		for _, si := range t.SearchIndexes {
			if si.Column == nil || !knownKind(si.Kind) {
				continue
			}
			rk, err := keysOf(si.Column)
			if err != nil {
				fs.errorf(si.Column.Path, "§10", "column not readable: %v", err)
				continue
			}
			out = append(out, si.verifyWith(rk)...)
		}
	}
	return append(out, fs...)
}

// checkValues scans a column's keys: categorical codes must index the
// categories (§8.7), values should lie in [valid_min, valid_max] (§8.5).
func (c *Column) checkValues(fs *findings, rk *rowKeys) {
	bad := 0
	first := int64(-1)
	if k := c.Categories; k != nil {
		for i, v := range rk.keys {
			if rk.missing[i] {
				continue
			}
			code := v.i
			if rk.kind == kUint {
				code = int64(v.u)
			}
			if code < 0 || code >= k.Len || (rk.kind == kUint && v.u >= uint64(k.Len)) {
				if bad++; first < 0 {
					first = int64(i)
				}
			}
		}
		if bad > 0 {
			fs.errorf(c.Path, "§8.7", "%d rows (first row %d) hold codes outside the %d categories (shown as null)", bad, first, k.Len)
		}
		return
	}
	lo, hi := parseFloatText(c.ValidMin), parseFloatText(c.ValidMax)
	for i, v := range rk.keys {
		if rk.missing[i] || rk.nan[i] {
			continue
		}
		x := keyFloat(rk.kind, v)
		if x < lo || x > hi {
			if bad++; first < 0 {
				first = int64(i)
			}
		}
	}
	if bad > 0 {
		fs.warnf(c.Path, "§8.5", "%d rows (first row %d) lie outside [valid_min, valid_max] = [%s, %s]", bad, first, c.ValidMin, c.ValidMax)
	}
}

// VerifiedMinMax returns the entries of the column's CHUNK_MINMAX index,
// one per data chunk of ChunkRows rows, when the index matches the
// column's data (§16: it is checked once, by recomputing it); ok is false
// when there is no such index or it does not match.
func (c *Column) VerifiedMinMax() (entries []MinMaxEntry, ok bool) {
	for _, si := range c.SearchIndexes {
		if si.Kind != KindChunkMinMax {
			continue
		}
		if HasErrors(si.Verify()) {
			continue
		}
		if e, err := si.MinMax(); err == nil {
			return e, true
		}
	}
	return nil, false
}

// Verify recomputes the index from its column and returns what does not
// match (computed once per index and remembered).
func (si *SearchIndex) Verify() []Finding {
	si.verifyOnce.Do(func() {
		if si.Column == nil || !knownKind(si.Kind) {
			return
		}
		rk, err := si.Column.readKeys(0, si.Column.t.NRows)
		if err != nil {
			si.verified = []Finding{{si.Column.Path, SevError, "§10", fmt.Sprintf("column not readable: %v", err)}}
			return
		}
		si.verified = si.check(rk)
	})
	return si.verified
}

// verifyWith is Verify with the column's keys already read.
func (si *SearchIndex) verifyWith(rk *rowKeys) []Finding {
	si.verifyOnce.Do(func() { si.verified = si.check(rk) })
	return si.verified
}

// check compares the index with the column keys rk.
func (si *SearchIndex) check(rk *rowKeys) []Finding {
	var fs findings
	c := si.Column
	orderable := rk.kind != kNone
	switch si.Kind {
	case KindChunkMinMax:
		if !orderable {
			fs.errorf(si.Path, "§10.4", "column %s (%s) has no HEP001 order: no CHUNK_MINMAX allowed", c.Name, c.HDF5Type)
			break
		}
		si.checkMinMax(&fs, rk)
	case KindSortedRows:
		if !orderable {
			fs.errorf(si.Path, "§10.5", "column %s (%s) has no HEP001 order: no SORTED_ROWS allowed", c.Name, c.HDF5Type)
			break
		}
		si.checkSorted(&fs, rk)
	case KindBitmap:
		si.checkBitmap(&fs, rk)
	case KindChunkBloom:
		if !orderable || c.Type.Class == h5core.ClassEnum {
			fs.errorf(si.Path, "§10.7", "column %s (%s) has no canonical byte form: no CHUNK_BLOOM allowed", c.Name, c.HDF5Type)
			break
		}
		si.checkBloom(&fs, rk)
	}
	return fs
}

// checkMinMax recomputes every data chunk's entry (§10.4).
func (si *SearchIndex) checkMinMax(fs *findings, rk *rowKeys) {
	got, err := si.MinMax()
	if err != nil {
		fs.errorf(si.Path, "§10.4", "%v", err)
		return
	}
	c := si.Column
	_, length := c.dataChunks()
	var fillKey key
	if c.Fill != nil {
		fillKey = elemKey(rk.kind, c.Type, c.Fill)
		if c.Type.Class == h5core.ClassVlen {
			fillKey = key{s: c.fillS}
		}
	}
	for ch, e := range got {
		lo, hi := int64(ch)*length, min(int64(ch+1)*length, c.t.NRows)
		var nan, fill uint64
		var mn, mx key
		seen := false
		for r := lo; r < hi; r++ {
			switch {
			case rk.nan[r]:
				nan++
				if rk.missing[r] {
					fill++
				}
			case rk.missing[r]:
				fill++
			default:
				v := rk.keys[r]
				if !seen || compareKeys(rk.kind, v, mn) < 0 {
					mn = v
				}
				if !seen || compareKeys(rk.kind, v, mx) > 0 {
					mx = v
				}
				seen = true
			}
		}
		if !seen {
			mn, mx = fillKey, fillKey
		}
		wantMin, wantMax := keyValue(rk.kind, c.Type, mn), keyValue(rk.kind, c.Type, mx)
		if e.NaNCount != nan || e.FillCount != fill || e.N != uint64(hi-lo) {
			fs.errorf(si.Path, "§10.4", "chunk %d: nan_count/fill_count/n = %d/%d/%d, the column gives %d/%d/%d",
				ch, e.NaNCount, e.FillCount, e.N, nan, fill, hi-lo)
		}
		if compareKeys(rk.kind, toKey(rk.kind, e.Min), mn) != 0 || compareKeys(rk.kind, toKey(rk.kind, e.Max), mx) != 0 {
			fs.errorf(si.Path, "§10.4", "chunk %d: min/max = %v/%v, the column gives %v/%v", ch, e.Min, e.Max, wantMin, wantMax)
		}
	}
}

// toKey is the inverse of keyValue.
func toKey(k keyKind, v any) key {
	switch x := v.(type) {
	case int64:
		return key{i: x}
	case uint64:
		return key{u: x}
	case float64:
		return key{f: x}
	case string:
		return key{s: x}
	case []byte:
		return key{s: string(x)}
	}
	return key{}
}

// sortedRows returns the §10.5 permutation of rk and its tail lengths.
func sortedRows(rk *rowKeys) (perm []uint64, nanTail, fillTail int) {
	var body, fills, nans []uint64
	for r := range rk.keys {
		switch {
		case rk.nan[r]:
			nans = append(nans, uint64(r))
		case rk.missing[r]:
			fills = append(fills, uint64(r))
		default:
			body = append(body, uint64(r))
		}
	}
	sort.SliceStable(body, func(i, j int) bool {
		return compareKeys(rk.kind, rk.keys[body[i]], rk.keys[body[j]]) < 0
	})
	perm = append(append(body, fills...), nans...)
	return perm, len(nans), len(fills)
}

// checkSorted compares a SORTED_ROWS permutation with the recomputed one.
func (si *SearchIndex) checkSorted(fs *findings, rk *rowKeys) {
	got, err := si.Permutation()
	if err != nil {
		fs.errorf(si.Path, "§10.5", "%v", err)
		return
	}
	want, nanTail, fillTail := sortedRows(rk)
	if si.NaNTail != uint64(nanTail) || si.FillTail != uint64(fillTail) {
		fs.errorf(si.Path, "§10.5", "nan_tail_length/fill_tail_length = %d/%d, the column gives %d/%d", si.NaNTail, si.FillTail, nanTail, fillTail)
	}
	for i := range want {
		if got[i] != want[i] {
			fs.errorf(si.Path, "§10.5", "entry %d is row %d, the sorted order gives row %d", i, got[i], want[i])
			return
		}
	}
}

// checkBitmap recomputes each value's row bits (§10.6).
func (si *SearchIndex) checkBitmap(fs *findings, rk *rowKeys) {
	if si.values == nil {
		return
	}
	bitsets, nv, err := si.bitmapBytes()
	if err != nil {
		fs.errorf(si.Path, "§10.6", "%v", err)
		return
	}
	c := si.Column
	if si.values.Type.Class != c.Type.Class || si.values.Type.Size != c.Type.Size {
		fs.errorf(si.ValuesPath, "§10.6", "values dataset is %s, the column is %s", si.values.Type, c.Type)
	}
	vcol := &Column{Name: "values", Path: si.ValuesPath, Type: si.values.Type, t: c.t, src: wholeSource(si.values)}
	if vcol.conv, err = newConverter(vcol.Type, false, nil, nil); err != nil {
		fs.errorf(si.ValuesPath, "§10.6", "%v", err)
		return
	}
	vk, err := vcol.readKeys(0, int64(nv))
	if err != nil {
		fs.errorf(si.ValuesPath, "§10.6", "values not readable: %v", err)
		return
	}
	for k := 0; k < nv; k++ {
		for r := range rk.keys {
			want := !rk.missing[r] && !rk.nan[r] && compareKeys(rk.kind, rk.keys[r], vk.keys[k]) == 0
			if got := bitsets[k][r>>3]&(1<<(r&7)) != 0; got != want {
				fs.errorf(si.Path, "§10.6", "value %d, row %d: bit is %v, the column gives %v", k, r, got, want)
				return
			}
		}
	}
}

// checkBloom recomputes each data chunk's filter (§10.7): a missing bit
// is an error (false negatives), an extra one a warning.
func (si *SearchIndex) checkBloom(fs *findings, rk *rowKeys) {
	got, err := si.BloomFilters()
	if err != nil {
		fs.errorf(si.Path, "§10.7", "%v", err)
		return
	}
	_, length := si.Column.dataChunks()
	extra := 0
	for ch, filter := range got {
		want := make([]byte, len(filter))
		lo, hi := int64(ch)*length, min(int64(ch+1)*length, si.Column.t.NRows)
		for r := lo; r < hi; r++ {
			if rk.missing[r] || rk.nan[r] {
				continue
			}
			for _, g := range bloomPositions(rk.canon[r], si.K, si.MBits, si.Seed) {
				if !bloomHas(filter, g) {
					fs.errorf(si.Path, "§10.7", "chunk %d: row %d's value is not in the filter (bit %d unset)", ch, r, g)
					return
				}
				bloomSet(want, g)
			}
		}
		for i := range want {
			if filter[i] != want[i] {
				extra++
				break
			}
		}
	}
	if extra > 0 {
		fs.warnf(si.Path, "§10.7", "%d filters have bits set that no value of their chunk sets", extra)
	}
}
