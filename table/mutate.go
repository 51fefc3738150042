package table

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"

	"github.com/h5fs/h5fs/h5core"
)

// Tx is the write transaction a mutation runs in (h5core.Tx): datasets
// and objects named by absolute path, element bytes in the file's format.
// The caller begins it and, once the mutation returns, commits it (every
// write made durable, in the order its barriers set) or rolls it back.
type Tx interface {
	SetExtent(path string, dims []uint64) error
	WriteAt(path string, p []byte, off int64) error
	SetAttribute(path, name string, raw []byte) error
	SetAttributeShape(path, name string, dims []uint64, raw []byte) error
	DeleteLink(path, name string) error
	NewVlen(t *h5core.Datatype, seqs [][]byte) ([]byte, error)
	Barrier() error
}

// Append appends rows to a HEP001 table as §11.2 orders it: every column
// extended (by whole chunks, §11.3) to hold them, the rows written, every
// search index brought up to date — or, when it cannot be kept
// consistent, deleted (Dropped says which and why) — a barrier, then
// NROWS. cols holds the new rows of each column in Columns order as
// Encode and EncodeRaw give them (stored elements, or staged values:
// vlen.go), the same number of rows each.
// Everything is read and computed before the first write (but the text
// of variable-length strings: heap objects past the end of file, which
// nothing points at until the rows are written), so a refusal (a value
// or a column that cannot take the rows) leaves tx as good as untouched.
// The table is stale afterwards: open it again once tx is committed.
func (t *Table) Append(tx Tx, cols [][]byte) error {
	if err := t.Writable(); err != nil {
		return err
	}
	if len(cols) != len(t.Columns) {
		return fmt.Errorf("%s: %d columns of rows for %d columns", t.Path, len(cols), len(t.Columns))
	}
	k := int64(-1)
	for j, c := range t.Columns {
		r, err := c.rowsOf(cols[j])
		if err != nil {
			return err
		}
		if k >= 0 && r != k {
			return fmt.Errorf("%s: %d new rows, the columns before it %d", c.Path, r, k)
		}
		k = r
	}
	n0, n1 := t.NRows, t.NRows+k
	if k == 0 {
		return nil
	}
	ext, err := t.extentFor(n1)
	if err != nil {
		return err
	}
	if cols, err = t.storeAppended(tx, cols, n1, ext); err != nil {
		return err
	}
	after := func(c *Column, lo, hi int64) ([]byte, error) {
		raw, err := c.src.read(lo, max(min(hi, n0)-lo, 0))
		if err != nil {
			return nil, err
		}
		size := int64(c.Type.Size)
		add := cols[c.pos()]
		return append(raw, add[(max(lo, n0)-n0)*size:(hi-n0)*size]...), nil
	}
	m := &mutation{t: t, n1: n1, from: n0, rows: after, ext: ext}
	for _, si := range t.SearchIndexes {
		if err := m.plan(si); err != nil {
			return err
		}
	}
	for _, c := range t.Columns {
		if err := m.grow(tx, c.Path, c.src.ds, ext); err != nil {
			return err
		}
	}
	for j, c := range t.Columns {
		if err := tx.WriteAt(c.Path, cols[j], n0*int64(c.Type.Size)); err != nil {
			return err
		}
	}
	return m.commit(tx)
}

// Truncate shrinks a HEP001 table to n rows (§11.4): the columns keep
// their extents, every search index is rewritten for the rows left, a
// barrier, then NROWS. Like Append it changes nothing when it refuses.
func (t *Table) Truncate(tx Tx, n int64) error {
	if err := t.Writable(); err != nil {
		return err
	}
	if n < 0 || n > t.NRows {
		return fmt.Errorf("%s: cannot truncate %d rows to %d", t.Path, t.NRows, n)
	}
	if n == t.NRows {
		return nil
	}
	before := func(c *Column, lo, hi int64) ([]byte, error) { return c.src.read(lo, hi-lo) }
	m := &mutation{t: t, n1: n, from: n, rows: before}
	for _, si := range t.SearchIndexes {
		if err := m.plan(si); err != nil {
			return err
		}
	}
	return m.commit(tx)
}

// Writable refuses tables that are not HEP001 or that have errors, as
// every mutation does: a mutation must leave §12 holding, so it starts
// from a table where it does.
func (t *Table) Writable() error {
	if t.Kind != KindHEP001 {
		return fmt.Errorf("%s: %s tables are read-only (only HEP001 tables take writes)", t.Path, t.Kind)
	}
	if HasErrors(t.Findings) {
		for _, f := range t.Findings {
			if f.Severity == SevError {
				return fmt.Errorf("%s: table has errors, not writing to it: %v", t.Path, f)
			}
		}
	}
	for _, c := range t.Columns {
		if c.src.off != 0 || c.src.size != c.src.rec {
			return fmt.Errorf("%s: column stored inside records: not writable", c.Path)
		}
	}
	return nil
}

// pos returns the column's position in Columns.
func (c *Column) pos() int {
	for j, x := range c.t.Columns {
		if x == c {
			return j
		}
	}
	return -1
}

// extentFor returns the first-dimension extent every column gets for n
// rows: the current one when it holds them, else n rounded up to whole
// chunks of the longest chunk (§11.3 preallocation), within every
// column's maximum. A column that cannot reach n rows is an error.
func (t *Table) extentFor(n int64) (uint64, error) {
	var cur, chunk uint64
	limit := ^uint64(0)
	var limiter *Column
	for _, c := range t.Columns {
		cur = max(cur, c.src.ds.Shape()[0])
		chunk = max(chunk, uint64(max(c.ChunkRows, 1)))
		if mx := c.src.ds.MaxShape(); len(mx) > 0 && mx[0] < limit {
			limit, limiter = mx[0], c
		}
	}
	if cur >= uint64(n) {
		return cur, nil
	}
	if limit < uint64(n) {
		return 0, fmt.Errorf("%s: cannot hold %d rows: a column's maximum extent is %d (%s, %s layout)", t.Path, n, limit, limiter.Path, limiter.src.ds.Layout())
	}
	return min((uint64(n)+chunk-1)/chunk*chunk, limit), nil
}

// mutation is the index work of one append, truncation or update: the
// table will hold n1 rows, rows from on (to n1) are new or changed — or,
// when spans is set (an update), the rows spans lists for each column,
// the others unchanged — and rows(c, lo, hi) returns the stored elements
// rows [lo, hi) of column c will hold. plan computes each index's new
// content before anything is written; commit writes it, then NROWS.
type mutation struct {
	t      *Table
	n1     int64
	from   int64
	spans  map[*Column][]rowSpan // sorted by lo; nil: [from, n1) of every column
	rows   func(c *Column, lo, hi int64) ([]byte, error)
	ext    uint64 // the columns' extent after the mutation (0: unchanged)
	writes []indexWrite
	drop   []*SearchIndex // indexes to delete: they cannot be kept consistent
}

// rowSpan is the rows [lo, hi).
type rowSpan struct{ lo, hi int64 }

// changes reports whether the mutation changes column c (its indexes
// need work).
func (m *mutation) changes(c *Column) bool { return m.spans == nil || len(m.spans[c]) > 0 }

// chunkRuns returns the runs [c0, c1) of consecutive chunks of length
// rows whose entries change for column c: those holding a changed row,
// and the one the table now ends inside.
func (m *mutation) chunkRuns(c *Column, length int64) []rowSpan {
	spans := []rowSpan{{m.from, m.n1}}
	if m.spans != nil {
		spans = m.spans[c]
	}
	var runs []rowSpan
	for _, s := range spans {
		c0, c1 := s.lo/length, (s.hi+length-1)/length
		if c0 >= c1 {
			continue
		}
		if n := len(runs); n > 0 && c0 <= runs[n-1].hi {
			runs[n-1].hi = max(runs[n-1].hi, c1)
			continue
		}
		runs = append(runs, rowSpan{c0, c1})
	}
	return runs
}

// indexWrite is one planned change of an index dataset: grow it to dims
// (nil: keep), then write p at byte offset off.
type indexWrite struct {
	path string
	ds   *h5core.Dataset
	dims []uint64
	p    []byte
	off  int64
	attr map[string]uint64 // attributes to set (SORTED_ROWS tails)
	heap []heapSlot        // string elements of p whose heap objects are made at commit
}

// grow extends a dataset's first dimension to n (others kept) if it is
// shorter.
func (m *mutation) grow(tx Tx, path string, ds *h5core.Dataset, n uint64) error {
	sh := ds.Shape()
	if len(sh) == 0 || sh[0] >= n {
		return nil
	}
	dims := append([]uint64{n}, sh[1:]...)
	return tx.SetExtent(path, dims)
}

// commit deletes the dropped indexes and writes the planned index
// changes, then, when the row count changes, a barrier and NROWS (an
// update commits with tx).
func (m *mutation) commit(tx Tx) error {
	if err := m.deleteDropped(tx); err != nil {
		return err
	}
	for _, w := range m.writes {
		if w.dims != nil {
			if err := tx.SetExtent(w.path, w.dims); err != nil {
				return err
			}
		}
		if err := storeSlots(tx, &w); err != nil {
			return err
		}
		if len(w.p) > 0 {
			if err := tx.WriteAt(w.path, w.p, w.off); err != nil {
				return err
			}
		}
		for name, v := range w.attr {
			if err := m.setUint(tx, w.path, name, v); err != nil {
				return err
			}
		}
	}
	if m.n1 == m.t.NRows {
		return nil
	}
	if err := tx.Barrier(); err != nil {
		return err
	}
	return m.setUint(tx, m.t.Path, "NROWS", uint64(m.n1))
}

// setUint rewrites an integer attribute of the object at path in its
// own type.
func (m *mutation) setUint(tx Tx, path, name string, v uint64) error {
	o, err := m.t.f.Open(path)
	if err != nil {
		return err
	}
	a, err := o.Attribute(name)
	if err != nil {
		return err
	}
	if a.Type.Class != h5core.ClassFixedPoint || a.NumElements() != 1 {
		return fmt.Errorf("%s: attribute %s is %s, not an integer", path, name, a.Type)
	}
	raw, err := encodeUints(a.Type, []uint64{v})
	if err != nil {
		return fmt.Errorf("%s: attribute %s: %w", path, name, err)
	}
	return tx.SetAttribute(path, name, raw)
}

// encodeUints returns values as stored elements of integer type t.
func encodeUints(t *h5core.Datatype, vs []uint64) ([]byte, error) {
	if t.Class != h5core.ClassFixedPoint {
		return nil, fmt.Errorf("%s is not an integer type", t)
	}
	le := make([]byte, 0, len(vs)*t.Size)
	for _, v := range vs {
		if t.Size < 8 && v>>(8*t.Size) != 0 {
			return nil, fmt.Errorf("%d does not fit %s", v, t)
		}
		le = appendLE(le, v, t.Size)
	}
	return t.AppendStored(nil, le, len(vs))
}

// errIndex is wrapped by the errors of an index a mutation cannot keep
// consistent: §11.2 has it deleted, with its SEARCH_INDEX_LIST entry.
var errIndex = errors.New("search index cannot be kept consistent")

// errRead is wrapped by the errors of reading rows while planning: they
// refuse the mutation rather than drop an index.
var errRead = errors.New("reading rows")

// plan computes the new content of one search index. An index it cannot
// keep consistent — a content it cannot compute, or a dataset that cannot
// grow to hold it — is dropped instead (§11.2): commit deletes it.
func (m *mutation) plan(si *SearchIndex) error {
	c := si.Column
	if c == nil || !knownKind(si.Kind) || !m.changes(c) {
		return nil // not referenced, a kind no consumer trusts (§10.3), or a column left as it is
	}
	start := len(m.writes)
	var err error
	switch si.Kind {
	case KindChunkMinMax:
		err = m.planMinMax(si)
	case KindChunkBloom:
		err = m.planBloom(si)
	case KindSortedRows:
		err = m.planSorted(si)
	case KindBitmap:
		err = m.planBitmap(si)
	}
	if errors.Is(err, errRead) {
		return fmt.Errorf("%s: %w", si.Path, err)
	}
	for _, w := range m.writes[start:] {
		if err == nil && w.dims != nil {
			err = canGrow(w.ds, w.dims)
		}
	}
	if err != nil {
		m.writes = m.writes[:start]
		m.drop = append(m.drop, si)
		m.t.Dropped = append(m.t.Dropped, fmt.Errorf("%s: %w, deleted: %v", si.Path, errIndex, err))
	}
	return nil
}

// canGrow reports, as an error, why a dataset cannot take the extent
// dims: a dimension past its maximum (a contiguous or compact dataset's
// maximum is its extent).
func canGrow(ds *h5core.Dataset, dims []uint64) error {
	mx := ds.MaxShape()
	for i, n := range dims {
		if i < len(mx) && mx[i] != h5core.Unlimited && n > mx[i] {
			return fmt.Errorf("%s cannot grow to %v: its maximum is %v", ds.Path, dims, mx)
		}
	}
	return nil
}

// deleteDropped deletes the dropped indexes (§11.2): each one's entry in
// its column's SEARCH_INDEX_LIST, its link, and the values dataset of a
// BITMAP index that no index kept still uses.
func (m *mutation) deleteDropped(tx Tx) error {
	gone := map[*SearchIndex]bool{}
	for _, si := range m.drop {
		gone[si] = true
	}
	for _, si := range m.drop {
		if err := m.unlist(tx, si.Column, gone); err != nil {
			return err
		}
		if err := tx.DeleteLink(path.Dir(si.Path), path.Base(si.Path)); err != nil {
			return err
		}
		if si.ValuesPath == "" || !m.unusedValues(si, gone) {
			continue
		}
		if err := tx.DeleteLink(path.Dir(si.ValuesPath), path.Base(si.ValuesPath)); err != nil {
			return err
		}
	}
	return nil
}

// unusedValues reports whether the values dataset of si is used by no
// index that stays, nor by a dropped index deleted after si (which
// deletes it then).
func (m *mutation) unusedValues(si *SearchIndex, gone map[*SearchIndex]bool) bool {
	for _, o := range m.t.SearchIndexes {
		if o != si && o.ValuesPath == si.ValuesPath && (!gone[o] || slices.Index(m.drop, o) > slices.Index(m.drop, si)) {
			return false
		}
	}
	return true
}

// unlist rewrites column c's SEARCH_INDEX_LIST without the references to
// dropped indexes.
func (m *mutation) unlist(tx Tx, c *Column, gone map[*SearchIndex]bool) error {
	o, err := m.t.f.Open(c.Path)
	if err != nil {
		return err
	}
	a, err := o.Attribute("SEARCH_INDEX_LIST")
	if err != nil {
		return err
	}
	addrs, _, err := refTargets(a)
	if err != nil {
		return err
	}
	drop := map[uint64]bool{}
	for si := range gone {
		if si.Column == c {
			drop[si.ds.Addr] = true
		}
	}
	size := a.Type.Size
	var keep []byte
	for i, addr := range addrs {
		if !drop[addr] {
			keep = append(keep, a.Raw()[i*size:(i+1)*size]...)
		}
	}
	if len(keep) == len(a.Raw()) {
		return nil // done with an earlier index of c
	}
	if a.Shape == nil {
		return fmt.Errorf("%s: SEARCH_INDEX_LIST is a scalar: cannot remove its only reference", c.Path)
	}
	return tx.SetAttributeShape(c.Path, "SEARCH_INDEX_LIST", []uint64{uint64(len(keep) / size)}, keep)
}

// chunksAfter calls fn for each run of data chunks [c0, c1) that
// change (chunkRuns), with their length and the keys of their rows (rows
// [c0*length, min(c1*length, n1)) after the mutation).
func (m *mutation) chunksAfter(c *Column, fn func(c0, c1, length int64, rk *rowKeys) error) error {
	length := max(c.ChunkRows, 1)
	if !c.src.isChunked() {
		length = max(m.n1, 1)
	}
	for _, run := range m.chunkRuns(c, length) {
		lo, hi := run.lo*length, min(run.hi*length, m.n1)
		rk := &rowKeys{}
		if hi > lo {
			raw, err := m.rows(c, lo, hi)
			if err != nil {
				return fmt.Errorf("%w: %v", errRead, err)
			}
			if rk, err = c.keysOf(raw, lo, hi-lo); err != nil {
				return err
			}
		}
		if err := fn(run.lo, run.hi, length, rk); err != nil {
			return err
		}
	}
	return nil
}

// planMinMax recomputes the CHUNK_MINMAX entries of the changed chunks
// (§10.4); entries of chunks that did not change are kept.
func (m *mutation) planMinMax(si *SearchIndex) error {
	c := si.Column
	if keyKindOf(c.Type) == kNone {
		return fmt.Errorf("column %s has no HEP001 order", c.Name)
	}
	et := si.ds.Type
	fmin, fmax := si.field("min"), si.field("max")
	counts := [3]*h5core.Field{si.field("nan_count"), si.field("fill_count"), si.field("n")}
	if fmin == nil || fmax == nil || counts[0] == nil || counts[1] == nil || counts[2] == nil {
		return fmt.Errorf("type %s lacks min, max, nan_count, fill_count or n", et)
	}
	for _, fl := range []*h5core.Field{fmin, fmax} {
		if fl.Type.String() != c.Type.String() || fl.Type.Size != c.Type.Size {
			return fmt.Errorf("field %s is %s, the column is %s: cannot store its values", fl.Name, fl.Type, c.Type)
		}
	}
	size := c.Type.Size
	return m.chunksAfter(c, func(c0, c1, length int64, rk *rowKeys) error {
		out := make([]byte, (c1-c0)*int64(et.Size))
		var slots []heapSlot
		for ch := c0; ch < c1; ch++ {
			lo, hi := (ch-c0)*length, min((ch+1)*length, m.n1)-c0*length
			s := chunkSummary(rk, lo, hi)
			e := out[(ch-c0)*int64(et.Size):][:et.Size]
			switch {
			case s.min >= 0:
				copy(e[fmin.Offset:], rk.raw[s.min*size:(s.min+1)*size])
				copy(e[fmax.Offset:], rk.raw[s.max*size:(s.max+1)*size])
			case len(c.Fill) == size:
				copy(e[fmin.Offset:], c.Fill)
				copy(e[fmax.Offset:], c.Fill)
			}
			if c.isVlen() { // bounds of their own (vlen.go)
				mn, mx := c.fillS, c.fillS
				if s.min >= 0 {
					mn, mx = rk.keys[s.min].s, rk.keys[s.max].s
				}
				at := int(ch-c0) * et.Size
				slots = append(slots, heapSlot{at + fmin.Offset, fmin.Type, mn}, heapSlot{at + fmax.Offset, fmax.Type, mx})
			}
			for k, v := range []uint64{s.nan, s.fill, uint64(hi - lo)} {
				b, err := encodeUints(counts[k].Type, []uint64{v})
				if err != nil {
					return fmt.Errorf("field %s: %w", counts[k].Name, err)
				}
				copy(e[counts[k].Offset:], b)
			}
		}
		m.add(si.Path, si.ds, uint64(c1), out, c0*int64(et.Size), nil)
		m.writes[len(m.writes)-1].heap = slots
		return nil
	})
}

// add plans a write of p at off into an index dataset whose first
// dimension must hold rows entries.
func (m *mutation) add(path string, ds *h5core.Dataset, rows uint64, p []byte, off int64, attr map[string]uint64) {
	w := indexWrite{path: path, ds: ds, p: p, off: off, attr: attr}
	if sh := ds.Shape(); len(sh) > 0 && sh[0] < rows {
		w.dims = append([]uint64{rows}, sh[1:]...)
	}
	m.writes = append(m.writes, w)
}

// planBloom recomputes the CHUNK_BLOOM filters of the changed chunks
// (§10.7): the filter of a chunk that gains rows is rebuilt whole, which
// gives the bits of the old filter and the new values' bits.
func (m *mutation) planBloom(si *SearchIndex) error {
	c := si.Column
	if keyKindOf(c.Type) == kNone || c.Type.Class == h5core.ClassEnum {
		return fmt.Errorf("column %s has no canonical byte form", c.Name)
	}
	sh := si.ds.Shape()
	if len(sh) != 2 || si.ds.Type.Size != 1 || si.MBits != 8*sh[1] || si.K <= 0 {
		return fmt.Errorf("not a 2-D uint8 dataset of m_bits/8 bytes per chunk")
	}
	mb := int64(sh[1])
	return m.chunksAfter(c, func(c0, c1, length int64, rk *rowKeys) error {
		out := make([]byte, 0, (c1-c0)*mb)
		for ch := c0; ch < c1; ch++ {
			lo, hi := (ch-c0)*length, min((ch+1)*length, m.n1)-c0*length
			out = append(out, si.bloomFilter(rk, lo, hi)...)
		}
		m.add(si.Path, si.ds, uint64(c1), out, c0*mb, nil)
		return nil
	})
}

// allKeys returns the keys of every row [0, n1) after the mutation.
func (m *mutation) allKeys(c *Column) (*rowKeys, error) {
	if m.n1 > maxWholeRows {
		return nil, fmt.Errorf("%d rows exceed the %d an index rebuild holds in memory", m.n1, maxWholeRows)
	}
	raw, err := m.rows(c, 0, m.n1)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errRead, err)
	}
	return c.keysOf(raw, 0, m.n1)
}

// planSorted rebuilds a SORTED_ROWS permutation (§10.5) and its tail
// lengths. Entries past n1 (an extent longer than the table) name rows
// at or past n1, which readers drop.
func (m *mutation) planSorted(si *SearchIndex) error {
	c := si.Column
	if keyKindOf(c.Type) == kNone {
		return fmt.Errorf("column %s has no HEP001 order", c.Name)
	}
	if len(si.ds.Shape()) != 1 {
		return fmt.Errorf("not a 1-D dataset")
	}
	rk, err := m.allKeys(c)
	if err != nil {
		return err
	}
	perm, nanTail, fillTail := sortedRows(rk)
	for r := uint64(m.n1); r < si.ds.Shape()[0]; r++ {
		perm = append(perm, r)
	}
	p, err := encodeUints(si.ds.Type, perm)
	if err != nil {
		return err
	}
	m.add(si.Path, si.ds, uint64(m.n1), p, 0, map[string]uint64{"nan_tail_length": uint64(nanTail), "fill_tail_length": uint64(fillTail)})
	return nil
}

// planBitmap rebuilds a BITMAP index (§10.6). Values the values dataset
// does not list yet are added: at the end, or, for an ordered index whose
// values are sorted, in their place (the values dataset rewritten).
func (m *mutation) planBitmap(si *SearchIndex) error {
	c := si.Column
	if si.values == nil {
		return fmt.Errorf("no VALUES dataset")
	}
	sh := si.ds.Shape()
	if len(sh) != 2 || si.ds.Type.Size != 1 || si.ds.Type.Class != h5core.ClassFixedPoint {
		return fmt.Errorf("not a 2-D uint8 dataset")
	}
	rk, err := m.allKeys(c)
	if err != nil {
		return err
	}
	nv := int64(sh[0])
	vcol := &Column{Name: "values", Path: si.ValuesPath, Type: si.values.Type, t: c.t, src: wholeSource(si.values)}
	if vcol.conv, err = newConverter(vcol.Type, false, nil, nil); err != nil {
		return err
	}
	vk, err := vcol.readKeys(0, nv)
	if err != nil {
		return err
	}
	equal, ok := valueEquality(rk, vk)
	if !ok {
		return fmt.Errorf("%s values have no comparable form", c.HDF5Type)
	}
	// value of each row: an index into the values, old ones first, then
	// rows standing for new values
	size := c.Type.Size
	vals := make([][]byte, nv)
	for k := range vals {
		vals[k] = vk.raw[k*size : (k+1)*size]
	}
	keys := append([]key(nil), vk.keys...)
	rowVal := make([]int, m.n1)
	for r := range int(m.n1) {
		rowVal[r] = -1
		if rk.missing[r] {
			continue
		}
		for k := range int(nv) {
			if equal(r, k) {
				rowVal[r] = k
				break
			}
		}
		if rowVal[r] >= 0 {
			continue
		}
		for k := int(nv); k < len(vals); k++ { // a new value seen before
			if bytesEqual(vals[k], rk.raw[r*size:(r+1)*size]) || (rk.kind != kNone && compareKeys(rk.kind, keys[k], rk.keys[r]) == 0) {
				rowVal[r] = k
				break
			}
		}
		if rowVal[r] < 0 {
			rowVal[r] = len(vals)
			vals = append(vals, rk.raw[r*size:(r+1)*size])
			keys = append(keys, rk.keys[r])
		}
	}
	grown := int64(len(vals)) > nv
	if grown && si.values.Type.String() != c.Type.String() {
		return fmt.Errorf("new values, but the values dataset is %s, the column %s", si.values.Type, c.Type)
	}
	// an ordered index keeps its values sorted: new ones go in their place
	pos := make([]int, len(vals)) // bitmap row of each value
	for k := range pos {
		pos[k] = k
	}
	if grown && si.Ordered {
		if rk.kind == kNone {
			return fmt.Errorf("new values for an ordered index over values without an order")
		}
		for k := 1; k < int(nv); k++ {
			if compareKeys(rk.kind, keys[k-1], keys[k]) > 0 {
				return fmt.Errorf("new values for an ordered index whose values are not sorted: their place is unknown")
			}
		}
		order := make([]int, len(vals))
		for k := range order {
			order[k] = k
		}
		sort.SliceStable(order, func(a, b int) bool { return compareKeys(rk.kind, keys[order[a]], keys[order[b]]) < 0 })
		for p, k := range order {
			pos[k] = p
		}
	}
	k1 := int64(len(vals))
	width := max(int64(sh[1]), (m.n1+7)/8)
	bits := make([]byte, k1*width)
	for r, k := range rowVal {
		if k >= 0 {
			bits[int64(pos[k])*width+int64(r>>3)] |= 1 << (r & 7)
		}
	}
	w := indexWrite{path: si.Path, ds: si.ds, p: bits}
	if width > int64(sh[1]) || k1 > nv {
		w.dims = []uint64{uint64(k1), uint64(width)}
	}
	if grown {
		out := make([]byte, k1*int64(size))
		var slots []heapSlot
		for k, v := range vals {
			copy(out[pos[k]*size:], v)
			if k >= int(nv) && c.isVlen() { // a value of its own (vlen.go)
				slots = append(slots, heapSlot{pos[k] * size, si.values.Type, keys[k].s})
			}
		}
		m.writes = append(m.writes, indexWrite{path: si.ValuesPath, ds: si.values, dims: []uint64{uint64(k1)}, p: out, heap: slots})
	}
	m.writes = append(m.writes, w)
	return nil
}

// bytesEqual compares two stored elements.
func bytesEqual(a, b []byte) bool { return string(a) == string(b) }
