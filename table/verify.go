package table

import (
	"bytes"
	"sort"

	"github.com/h5fs/h5fs/h5core"
)

// maxWholeRows bounds the columns that SORTED_ROWS and BITMAP checks read
// whole (about 50 bytes a row).
const maxWholeRows = 1 << 26

// Check validates the table: the findings made when it was opened (the
// structural rules of §7, §8, §10 and §12), a scan of categorical codes
// (§8.7) and value ranges (§8.5), and with verifyIndexes a recomputation
// of every search index from its column (§12, §16). Columns are read in
// chunk-sized batches, except for SORTED_ROWS and BITMAP indexes, which
// need their whole column at once.
func (t *Table) Check(verifyIndexes bool) []Finding {
	out := append([]Finding(nil), t.Findings...)
	if t.Kind != KindHEP001 {
		return out
	}
	var fs findings
	for _, c := range t.Columns {
		if c.Categories == nil && c.ValidMin == "" && c.ValidMax == "" {
			continue
		}
		if err := c.checkValues(&fs); err != nil {
			fs.errorf(c.Path, "HDF5", "column not readable: %v", err)
		}
	}
	if verifyIndexes {
		for _, si := range t.SearchIndexes {
			out = append(out, si.Verify()...)
		}
	}
	return append(out, fs...)
}

// batches calls fn with the keys of consecutive row ranges of c covering
// [0, NROWS), each a whole number of chunks.
func (c *Column) batches(fn func(lo int64, rk *rowKeys)) error {
	_, length := c.dataChunks()
	step := max(length, (1<<16)/length*length)
	for lo := int64(0); lo < c.t.NRows; lo += step {
		rk, err := c.readKeys(lo, min(step, c.t.NRows-lo))
		if err != nil {
			return err
		}
		fn(lo, rk)
	}
	return nil
}

// checkValues scans a column: categorical codes must index the categories
// (§8.7), values should lie in [valid_min, valid_max] (§8.5).
func (c *Column) checkValues(fs *findings) error {
	bad := 0
	first := int64(-1)
	k := c.Categories
	err := c.batches(func(start int64, rk *rowKeys) {
		for i, v := range rk.keys {
			if rk.missing[i] || rk.nan[i] {
				continue
			}
			var out bool
			if k != nil {
				out = (rk.kind == kInt && (v.i < 0 || v.i >= k.Len)) || (rk.kind == kUint && v.u >= uint64(k.Len))
			} else if rk.kind == kInt || rk.kind == kUint || rk.kind == kFloat {
				_, out = c.inRange(keyValue(rk.kind, c.Type, v))
			}
			if out {
				if bad++; first < 0 {
					first = start + int64(i)
				}
			}
		}
	})
	switch {
	case err != nil:
		return err
	case bad > 0 && k != nil:
		fs.errorf(c.Path, "§8.7", "%d rows (first row %d) hold codes outside the %d categories (shown as null)", bad, first, k.Len)
	case bad > 0:
		fs.warnf(c.Path, "§8.5", "%d rows (first row %d) lie outside [valid_min, valid_max] = [%s, %s]", bad, first, c.ValidMin, c.ValidMax)
	}
	return nil
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
// match (computed once per index and remembered). Indexes of unknown
// kinds and indexes no column lists are not verified.
func (si *SearchIndex) Verify() []Finding {
	si.verifyOnce.Do(func() {
		if si.Column != nil && knownKind(si.Kind) {
			si.verified = si.check()
		}
	})
	return si.verified
}

// check compares the index with its column.
func (si *SearchIndex) check() []Finding {
	var fs findings
	c := si.Column
	orderable := keyKindOf(c.Type) != kNone
	whole := func(check func(*findings, *rowKeys)) {
		if c.t.NRows > maxWholeRows {
			fs.warnf(si.Path, "§10", "not verified: %d rows exceed the %d a whole-column check holds in memory", c.t.NRows, maxWholeRows)
			return
		}
		rk, err := c.readKeys(0, c.t.NRows)
		if err != nil {
			fs.errorf(c.Path, "HDF5", "column not readable: %v", err)
			return
		}
		check(&fs, rk)
	}
	switch {
	case si.Kind == KindChunkMinMax && !orderable:
		fs.errorf(si.Path, "§10.4", "column %s (%s) has no HEP001 order: no CHUNK_MINMAX allowed", c.Name, c.HDF5Type)
	case si.Kind == KindChunkMinMax:
		si.checkMinMax(&fs)
	case si.Kind == KindSortedRows && !orderable:
		fs.errorf(si.Path, "§10.5", "column %s (%s) has no HEP001 order: no SORTED_ROWS allowed", c.Name, c.HDF5Type)
	case si.Kind == KindSortedRows:
		whole(si.checkSorted)
	case si.Kind == KindBitmap:
		whole(si.checkBitmap)
	case si.Kind == KindChunkBloom && (!orderable || c.Type.Class == h5core.ClassEnum):
		fs.errorf(si.Path, "§10.7", "column %s (%s) has no canonical byte form: no CHUNK_BLOOM allowed", c.Name, c.HDF5Type)
	case si.Kind == KindChunkBloom:
		si.checkBloom(&fs)
	}
	return fs
}

// checkMinMax recomputes every data chunk's entry (§10.4).
func (si *SearchIndex) checkMinMax(fs *findings) {
	got, err := si.MinMax()
	if err != nil {
		fs.errorf(si.Path, "§10.4", "%v", err)
		return
	}
	c := si.Column
	_, length := c.dataChunks()
	kind := keyKindOf(c.Type)
	var fillKey key
	if c.Fill != nil {
		fillKey = elemKey(kind, c.Type, c.Fill)
		if c.Type.Class == h5core.ClassVlen {
			fillKey = key{s: c.fillS}
		}
	}
	err = c.batches(func(start int64, rk *rowKeys) {
		for ch := start / length; ch*length < start+int64(len(rk.keys)); ch++ {
			si.checkChunkMinMax(fs, got[ch], int(ch), rk, ch*length-start, min((ch+1)*length, c.t.NRows)-start, fillKey)
		}
	})
	if err != nil {
		fs.errorf(c.Path, "HDF5", "column not readable: %v", err)
	}
}

// checkChunkMinMax compares entry e of chunk ch with rows [lo, hi) of rk.
func (si *SearchIndex) checkChunkMinMax(fs *findings, e MinMaxEntry, ch int, rk *rowKeys, lo, hi int64, fillKey key) {
	s := chunkSummary(rk, lo, hi)
	mn, mx := fillKey, fillKey
	if s.min >= 0 {
		mn, mx = rk.keys[s.min], rk.keys[s.max]
	}
	if e.NaNCount != s.nan || e.FillCount != s.fill || e.N != uint64(hi-lo) {
		fs.errorf(si.Path, "§10.4", "chunk %d: nan_count/fill_count/n = %d/%d/%d, the column gives %d/%d/%d",
			ch, e.NaNCount, e.FillCount, e.N, s.nan, s.fill, hi-lo)
	}
	if compareKeys(rk.kind, toKey(rk.kind, e.Min), mn) != 0 || compareKeys(rk.kind, toKey(rk.kind, e.Max), mx) != 0 {
		t := si.Column.Type
		fs.errorf(si.Path, "§10.4", "chunk %d: min/max = %v/%v, the column gives %v/%v", ch, e.Min, e.Max,
			keyValue(rk.kind, t, mn), keyValue(rk.kind, t, mx))
	}
}

// summary is what a CHUNK_MINMAX entry says of some rows (§10.4): the
// rows holding the least and greatest non-missing, orderable value (-1
// when there is none) and the NaN and missing counts.
type summary struct {
	min, max  int
	nan, fill uint64
}

// chunkSummary summarizes rows [lo, hi) of rk.
func chunkSummary(rk *rowKeys, lo, hi int64) summary {
	s := summary{min: -1, max: -1}
	for r := lo; r < hi; r++ {
		switch {
		case rk.nan[r]:
			s.nan++
			if rk.missing[r] {
				s.fill++
			}
		case rk.missing[r]:
			s.fill++
		default:
			v := rk.keys[r]
			if s.min < 0 || compareKeys(rk.kind, v, rk.keys[s.min]) < 0 {
				s.min = int(r)
			}
			if s.max < 0 || compareKeys(rk.kind, v, rk.keys[s.max]) > 0 {
				s.max = int(r)
			}
		}
	}
	return s
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
		fs.errorf(si.ValuesPath, "HDF5", "values not readable: %v", err)
		return
	}
	equal, ok := valueEquality(rk, vk)
	if !ok {
		fs.warnf(si.Path, "§10.6", "not verified: %s values have no comparable form", c.HDF5Type)
		return
	}
	for k := 0; k < nv; k++ {
		for r := range rk.keys {
			want := !rk.missing[r] && equal(r, k)
			if got := bitsets[k][r>>3]&(1<<(r&7)) != 0; got != want {
				fs.errorf(si.Path, "§10.6", "value %d, row %d: bit is %v, the column gives %v", k, r, got, want)
				return
			}
		}
	}
}

// valueEquality returns whether row r of rk holds value k of vk (a
// BITMAP's values dataset): equal keys for types with an order; for
// compounds and arrays, which have none, equal values of every field or
// element, bit for bit (padding aside). ok is false for types whose
// elements do not compare (variable-length parts).
func valueEquality(rk, vk *rowKeys) (equal func(r, k int) bool, ok bool) {
	if rk.kind != kNone {
		return func(r, k int) bool { return compareKeys(rk.kind, rk.keys[r], vk.keys[k]) == 0 }, true
	}
	if !rk.t.IsFixedSize() || !vk.t.IsFixedSize() {
		return nil, false
	}
	rows, vals := rk.packed(), vk.packed()
	return func(r, k int) bool { return rows[r] == vals[k] }, true
}

// checkBloom recomputes each data chunk's filter (§10.7): a missing bit
// is an error (false negatives), an extra one a warning.
func (si *SearchIndex) checkBloom(fs *findings) {
	got, err := si.BloomFilters()
	if err != nil {
		fs.errorf(si.Path, "§10.7", "%v", err)
		return
	}
	c := si.Column
	_, length := c.dataChunks()
	extra, missing := 0, false
	err = c.batches(func(start int64, rk *rowKeys) {
		for ch := start / length; ch*length < start+int64(len(rk.keys)) && !missing; ch++ {
			filter := got[ch]
			want := si.bloomFilter(rk, ch*length-start, min((ch+1)*length, c.t.NRows)-start)
			for g := uint64(0); g < 8*uint64(len(want)); g++ {
				if bloomHas(want, g) && !bloomHas(filter, g) {
					fs.errorf(si.Path, "§10.7", "chunk %d: a value of the chunk is not in the filter (bit %d unset)", ch, g)
					missing = true
					break
				}
			}
			if !missing && !bytes.Equal(filter, want) {
				extra++
			}
		}
	})
	if err != nil {
		fs.errorf(c.Path, "HDF5", "column not readable: %v", err)
	}
	if extra > 0 && !missing {
		fs.warnf(si.Path, "§10.7", "%d filters have bits set that no value of their chunk sets", extra)
	}
}

// bloomFilter returns the §10.7 filter of rows [lo, hi) of rk: every
// value that is neither missing nor NaN inserted.
func (si *SearchIndex) bloomFilter(rk *rowKeys, lo, hi int64) []byte {
	filter := make([]byte, si.MBits/8)
	for r := lo; r < hi; r++ {
		if rk.missing[r] || rk.nan[r] {
			continue
		}
		for _, g := range bloomPositions(rk.canon(int(r)), si.K, si.MBits, si.Seed) {
			bloomSet(filter, g)
		}
	}
	return filter
}
