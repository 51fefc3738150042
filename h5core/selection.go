package h5core

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
)

// Encoded dataspace selections (the output of libhdf5's H5Sencode), as
// stored in section 0 of a structured chunk: an envelope, a dataspace
// extent (the chunk shape) and a none, all, point or hyperslab selection
// whose coordinates are relative to the chunk.

// SelectionKind is the kind of an encoded selection.
type SelectionKind uint8

// Selection kinds, numbered as in the encoding.
const (
	SelectNone      SelectionKind = 0
	SelectPoints    SelectionKind = 1
	SelectHyperslab SelectionKind = 2
	SelectAll       SelectionKind = 3
)

// String names the kind as the fixtures do: none, points, hyper, all.
func (k SelectionKind) String() string {
	switch k {
	case SelectNone:
		return "none"
	case SelectPoints:
		return "points"
	case SelectHyperslab:
		return "hyper"
	case SelectAll:
		return "all"
	}
	return "unknown"
}

// Selection is a decoded selection of positions inside one chunk.
type Selection struct {
	// Kind is none, points, hyperslab or all.
	Kind SelectionKind
	// Version is the selection encoding version (1 for none and all).
	Version int
	// Regular reports a hyperslab stored as one regular pattern.
	Regular bool

	shape  []uint64  // the chunk shape (the selection's extent)
	points []uint64  // points: point-major coordinates, in stored order
	spans  *spanList // hyperslab and all: the selected set (see tree)
	n      uint64    // selected positions

	// A hyperslab whose blocks are runs along the last dimension in
	// row-major order without overlap (as writers that emit one block per
	// run store them) keeps its encoded blocks, rw bytes a coordinate:
	// Runs, CountRows and CountWithin read them as they are, and the span
	// tree is built only for what needs it (tree).
	runs     []byte
	rw       int
	treeOnce sync.Once
}

// spanList is one level of a span tree (as libhdf5's): sorted, disjoint
// intervals along one dimension, each with the set selected in the
// following dimensions (nil at the last dimension).
type spanList struct {
	spans []span
	n     uint64 // positions selected by this list and its descendants
}

type span struct {
	lo, hi uint64 // inclusive
	down   *spanList
}

// maxExpandedRuns bounds the runs that expandRuns makes of a hyperslab's
// blocks; maxSweepBlocks the blocks given to the quadratic buildSpans.
const (
	maxExpandedRuns = 1 << 26
	maxSweepBlocks  = 1 << 14
)

// maxSelectionBlocks bounds the blocks of an irregular hyperslab (a chunk
// of 2^31 bytes holds at most 2^27 v1 blocks of rank 2).
const maxSelectionBlocks = 1 << 28

// Len returns the number of selected positions: the number of values the
// chunk stores.
func (s *Selection) Len() uint64 { return s.n }

// HeldBytes returns about how much memory the decoded selection holds.
func (s *Selection) HeldBytes() uint64 {
	n := uint64(len(s.runs)) + 8*uint64(len(s.points))
	if s.runs != nil || s.spans == nil {
		return n
	}
	seen := map[*spanList]bool{} // subtrees are shared
	var walk func(l *spanList)
	walk = func(l *spanList) {
		if l == nil || seen[l] {
			return
		}
		seen[l] = true
		n += 32 + 24*uint64(len(l.spans)) // a spanList, its spans

		for _, sp := range l.spans {
			walk(sp.down)
		}
	}
	walk(s.spans)
	return n
}

// Shape returns the selection's extent: the chunk shape.
func (s *Selection) Shape() []uint64 { return s.shape }

// decodeSelection decodes an H5Sencode buffer read at address at whose
// extent must be the chunk shape.
func decodeSelection(b []byte, at uint64, chunk []uint64) (*Selection, error) {
	d := newDecoder(b, at, 8, 8)
	if typ, ver := d.u8(), d.u8(); d.err == nil && (typ != 1 || ver != 0) {
		return nil, formatErr(at, "encoded selection: object type %d version %d, expected dataspace (1) version 0", typ, ver)
	}
	sl := int(d.u8())
	xlen := int(d.u32())
	if d.err != nil {
		return nil, d.err
	}
	if sl < 1 || sl > 8 {
		return nil, formatErr(at, "encoded selection: size of lengths %d", sl)
	}
	ext := newDecoder(d.bytes(xlen), at+7, 8, sl)
	if d.err != nil {
		return nil, d.err
	}
	version, rank, flags := ext.u8(), int(ext.u8()), ext.u8()
	switch version {
	case 1:
		ext.skip(5)
	case 2:
		ext.skip(1)
	default:
		return nil, formatErr(at, "encoded selection: dataspace version %d unknown", version)
	}
	if ext.err == nil && rank != len(chunk) {
		return nil, formatErr(at, "encoded selection: rank %d, chunk rank %d", rank, len(chunk))
	}
	for i := 0; i < rank; i++ {
		if v := ext.length(); ext.err == nil && v != chunk[i] {
			return nil, formatErr(at, "encoded selection: extent dimension %d is %d, chunk dimension is %d", i, v, chunk[i])
		}
	}
	if flags&1 != 0 {
		ext.skip(rank * sl) // maximum dimensions: not used
	}
	if ext.err != nil {
		return nil, ext.err
	}
	return decodeSelectionBody(d, at, chunk)
}

// decodeSelectionBody decodes a serialized selection (libhdf5's
// H5S_SELECT_SERIALIZE: kind, version, then the kind's fields) over an
// extent of the given shape.
func decodeSelectionBody(d *decoder, at uint64, shape []uint64) (*Selection, error) {
	chunk := shape
	s := &Selection{Kind: SelectionKind(d.u32()), Version: int(d.u32()), shape: chunk}
	if d.err != nil {
		return nil, d.err
	}
	var err error
	switch s.Kind {
	case SelectNone, SelectAll:
		if s.Version != 1 {
			return nil, formatErr(at, "encoded %s selection version %d unknown", s.Kind, s.Version)
		}
		d.skip(8) // reserved, length
		if s.Kind == SelectAll {
			s.spans, s.n = fullSpans(chunk, 0), product(chunk)
		}
	case SelectPoints:
		err = s.decodePoints(d)
	case SelectHyperslab:
		err = s.decodeHyperslab(d)
	default:
		return nil, formatErr(at, "encoded selection type %d unknown", s.Kind)
	}
	if err == nil {
		err = d.err
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// product multiplies dims; callers pass chunk shapes already known to fit.
func product(dims []uint64) uint64 {
	n := uint64(1)
	for _, v := range dims {
		n *= v
	}
	return n
}

// fullSpans is the span tree of the whole of shape[dim:].
func fullSpans(shape []uint64, dim int) *spanList {
	if dim == len(shape) {
		return nil
	}
	down := fullSpans(shape, dim+1)
	return &spanList{spans: []span{{0, shape[dim] - 1, down}}, n: product(shape[dim:])}
}

// encWidth reads a v2 points / v3 hyperslab encoding size (2, 4 or 8).
func encWidth(d *decoder) int {
	w := int(d.u8())
	if d.err == nil && w != 2 && w != 4 && w != 8 {
		d.fail("encoded selection: integer size %d", w)
	}
	return w
}

// checkRank reads and checks the selection's rank field.
func (s *Selection) checkRank(d *decoder) {
	if r := d.u32(); d.err == nil && int(r) != len(s.shape) {
		d.fail("encoded selection of rank %d in a chunk of rank %d", r, len(s.shape))
	}
}

// selCount reads a count of items of itemBytes bytes each and checks that
// they fit in what remains.
func selCount(d *decoder, width int, itemBytes int) int {
	n := d.uN(width)
	if d.err == nil && (itemBytes <= 0 || n > uint64(d.remaining()/itemBytes)) {
		d.fail("encoded selection: %d items of %d bytes, %d bytes left", n, itemBytes, d.remaining())
		return 0
	}
	return int(n)
}

func (s *Selection) decodePoints(d *decoder) error {
	rank, w := len(s.shape), 4
	switch s.Version {
	case 1:
		d.skip(8) // reserved, length
	case 2:
		w = encWidth(d)
	default:
		return formatErr(d.addr(), "encoded point selection version %d unknown", s.Version)
	}
	s.checkRank(d)
	n := selCount(d, w, rank*w)
	if d.err != nil {
		return d.err
	}
	s.points = make([]uint64, n*rank)
	for i := range s.points {
		v := d.uN(w)
		if d.err == nil && v >= s.shape[i%rank] {
			return formatErr(d.addr(), "point %d lies outside its chunk %v (coordinate %d is %d)", i/rank, s.shape, i%rank, v)
		}
		s.points[i] = v
	}
	s.n = uint64(n)
	return d.err
}

func (s *Selection) decodeHyperslab(d *decoder) error {
	rank, w := len(s.shape), 4
	var flags uint8
	switch s.Version {
	case 1:
		d.skip(8) // reserved, length
	case 2:
		flags, w = d.u8(), 8
		d.skip(4) // length
	case 3:
		flags, w = d.u8(), encWidth(d)
	default:
		return formatErr(d.addr(), "encoded hyperslab selection version %d unknown", s.Version)
	}
	if s.Version == 1 || flags&1 == 0 {
		s.checkRank(d)
		cw := 4
		if s.Version > 1 {
			cw = w
		}
		n := selCount(d, cw, 2*rank*w)
		if d.err != nil {
			return d.err
		}
		if n > maxSelectionBlocks {
			return formatErr(d.addr(), "hyperslab selection of %d blocks (at most %d)", n, maxSelectionBlocks)
		}
		at := d.addr()
		raw := d.bytes(n * 2 * rank * w)
		if d.err != nil {
			return d.err
		}
		if total, ok := runBlocks(raw, rank, w, s.shape); ok {
			s.runs, s.rw, s.n = raw, w, total
			return nil
		}
		start, end := make([]uint64, n*rank), make([]uint64, n*rank)
		for i := 0; i < n; i++ {
			for k := 0; k < rank; k++ {
				o := (i*2*rank + k) * w
				a, b := uintLE(raw[o:o+w]), uintLE(raw[o+rank*w:o+rank*w+w])
				if a > b || b >= s.shape[k] {
					return formatErr(at, "hyperslab block %d lies outside its chunk %v (dimension %d: %d-%d)", i, s.shape, k, a, b)
				}
				start[i*rank+k], end[i*rank+k] = a, b
			}
		}
		s.spans = buildRuns(start, end, rank)
		if s.spans == nil && n > 0 {
			if rs, re, ok := expandRuns(start, end, rank); ok {
				s.spans = buildRuns(rs, re, rank)
			} else if n <= maxSweepBlocks {
				idx := make([]int32, n)
				for i := range idx {
					idx[i] = int32(i)
				}
				s.spans = buildSpans(start, end, rank, idx, 0)
			} else {
				return fmt.Errorf("hyperslab selection of %d overlapping blocks at %#x: %w", n, at, ErrUnsupported)
			}
		}
		if s.spans != nil {
			s.n = s.spans.n
		}
		return nil
	}
	s.Regular = true
	s.checkRank(d)
	dims := make([][]span, rank)
	for k := 0; k < rank; k++ {
		start, stride, cnt, block := d.uN(w), d.uN(w), d.uN(w), d.uN(w)
		if d.err != nil {
			return d.err
		}
		iv, err := regularIntervals(start, stride, cnt, block, s.shape[k])
		if err != nil {
			return formatErr(d.addr(), "regular hyperslab, dimension %d: %v", k, err)
		}
		dims[k] = iv
	}
	var down *spanList
	for k := rank - 1; k >= 0; k-- {
		l := &spanList{spans: dims[k]}
		per := uint64(1)
		if down != nil {
			per = down.n
		}
		for i := range l.spans {
			l.spans[i].down = down
			l.n += (l.spans[i].hi - l.spans[i].lo + 1) * per
		}
		if len(l.spans) == 0 {
			return nil // empty selection
		}
		down = l
	}
	s.spans, s.n = down, down.n
	return nil
}

// runBlocks checks whether the encoded hyperslab blocks raw (n blocks of
// rank start and rank end coordinates, w bytes each) are runs along the
// last dimension inside shape, in row-major order without overlap (what
// buildRuns accepts), and returns the positions they select.
func runBlocks(raw []byte, rank, w int, shape []uint64) (uint64, bool) {
	bw, last := 2*rank*w, rank-1
	var total uint64
	if rank == 2 { // the common case, without the loops over dimensions
		var prow, phi uint64
		for o := 0; o+bw <= len(raw); o += bw {
			var row, lo, row2, hi uint64
			if w == 4 {
				row, lo, row2, hi = block4(raw, o)
			} else {
				row, lo, row2, hi = block2(raw, o, w)
			}
			if row != row2 || row >= shape[0] || lo > hi || hi >= shape[1] ||
				o > 0 && (prow > row || prow == row && phi >= lo) {
				return 0, false
			}
			prow, phi = row, hi
			total += hi - lo + 1
		}
		return total, true
	}
	for o := 0; o+bw <= len(raw); o += bw {
		for k := 0; k < last; k++ {
			a := leAt(raw, o+k*w, w)
			if a != leAt(raw, o+(rank+k)*w, w) || a >= shape[k] {
				return 0, false
			}
		}
		lo, hi := leAt(raw, o+last*w, w), leAt(raw, o+(rank+last)*w, w)
		if lo > hi || hi >= shape[last] {
			return 0, false
		}
		if o > 0 {
			p, c := o-bw, 0
			for k := 0; k < last && c == 0; k++ {
				c = cmp.Compare(leAt(raw, p+k*w, w), leAt(raw, o+k*w, w))
			}
			if c > 0 || (c == 0 && leAt(raw, p+(rank+last)*w, w) >= lo) {
				return 0, false
			}
		}
		total += hi - lo + 1
	}
	return total, true
}

// leAt decodes the little-endian unsigned integer of w bytes (2, 4 or 8)
// at b[o:].
func leAt(b []byte, o, w int) uint64 {
	switch w {
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[o:]))
	case 8:
		return binary.LittleEndian.Uint64(b[o:])
	}
	return uint64(binary.LittleEndian.Uint16(b[o:]))
}

// eachRun calls fn for each run of a selection kept as its encoded run
// blocks, merging runs that touch along the last dimension (as the span
// tree does), with the run's first position (reused between calls).
func (s *Selection) eachRun(fn func(pos []uint64, n uint64) bool) {
	rank, w := len(s.shape), s.rw
	bw, last := 2*rank*w, rank-1
	pos := make([]uint64, rank)
	var n uint64
	for o := 0; o+bw <= len(s.runs); o += bw {
		lo, hi := leAt(s.runs, o+last*w, w), leAt(s.runs, o+(rank+last)*w, w)
		same := n > 0 && pos[last]+n == lo
		for k := 0; k < last && same; k++ {
			same = pos[k] == leAt(s.runs, o+k*w, w)
		}
		if same {
			n += hi - lo + 1
			continue
		}
		if n > 0 && !fn(pos, n) {
			return
		}
		for k := 0; k < last; k++ {
			pos[k] = leAt(s.runs, o+k*w, w)
		}
		pos[last], n = lo, hi-lo+1
	}
	if n > 0 {
		fn(pos, n)
	}
}

// eachBlock calls fn for the part below limit of each encoded run block
// of a selection kept as those (not merged as eachRun merges them), with
// its first position (reused between calls) and length.
func (s *Selection) eachBlock(limit []uint64, fn func(pos []uint64, n uint64)) {
	rank, w := len(s.shape), s.rw
	bw, last := 2*rank*w, rank-1
	pos := make([]uint64, rank)
	for o := 0; o+bw <= len(s.runs); o += bw {
		for k := range pos {
			pos[k] = leAt(s.runs, o+k*w, w)
		}
		if c := runWithin(pos, leAt(s.runs, o+(rank+last)*w, w)-pos[last]+1, limit); c > 0 {
			fn(pos, c)
		}
	}
}

// block2 decodes the two-dimensional hyperslab block at byte o of raw (w
// bytes a coordinate): its start row and column, end row and column.
func block2(raw []byte, o, w int) (r0, c0, r1, c1 uint64) {
	if w == 4 {
		return block4(raw, o)
	}
	return leAt(raw, o, w), leAt(raw, o+w, w), leAt(raw, o+2*w, w), leAt(raw, o+3*w, w)
}

// block4 is block2 of the common width, 4 bytes, in one bounds check:
// small enough to be inlined, which block2 is not, so that loops over
// many blocks call it when w is 4 (a block in about 1 ns instead of 5).
func block4(raw []byte, o int) (r0, c0, r1, c1 uint64) {
	b := raw[o : o+16]
	x, y := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	return x & 0xffffffff, x >> 32, y & 0xffffffff, y >> 32
}

// tree returns the span tree of a hyperslab or "all" selection, built
// from the encoded run blocks the first time when it was kept as those.
func (s *Selection) tree() *spanList {
	s.treeOnce.Do(func() {
		if s.runs == nil {
			return
		}
		rank := len(s.shape)
		var start, end []uint64
		s.eachRun(func(pos []uint64, n uint64) bool {
			start = append(start, pos...)
			end = append(end, pos...)
			end[len(end)-1] += n - 1
			return true
		})
		s.spans = buildRuns(start, end, rank)
	})
	return s.spans
}

// regularIntervals returns the merged intervals of count blocks of block
// positions every stride positions from start, checked against dim.
func regularIntervals(start, stride, cnt, block, dim uint64) ([]span, error) {
	if cnt == 0 || block == 0 {
		return nil, nil
	}
	if cnt > 1 && stride == 0 {
		return nil, fmt.Errorf("stride 0 with count %d", cnt)
	}
	if start >= dim || block > dim || cnt > dim ||
		(cnt > 1 && (stride > dim || (cnt-1)*stride > dim)) ||
		start+(cnt-1)*stride+block > dim {
		return nil, fmt.Errorf("start %d stride %d count %d block %d lies outside the chunk dimension %d", start, stride, cnt, block, dim)
	}
	var out []span
	for i := uint64(0); i < cnt; i++ {
		lo := start + i*stride
		hi := lo + block - 1
		if n := len(out); n > 0 && lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, hi)
			continue
		}
		out = append(out, span{lo: lo, hi: hi})
	}
	return out, nil
}

// buildSpans builds the span tree of the union of the blocks idx (start
// and end coordinates, rank per block) over dimensions dim and beyond,
// sweeping the blocks in order of their start along dim. Adjacent
// intervals with equal subtrees are merged.
func buildSpans(start, end []uint64, rank int, idx []int32, dim int) *spanList {
	if len(idx) == 0 {
		return nil
	}
	lo := func(i int32) uint64 { return start[int(i)*rank+dim] }
	hi := func(i int32) uint64 { return end[int(i)*rank+dim] }
	slices.SortFunc(idx, func(x, y int32) int { return cmp.Compare(lo(x), lo(y)) })
	cuts := make([]uint64, 0, 2*len(idx))
	for _, i := range idx {
		cuts = append(cuts, lo(i), hi(i)+1)
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	l := &spanList{}
	var active []int32
	next := 0
	for c := 0; c+1 < len(cuts); c++ {
		a, b := cuts[c], cuts[c+1]
		k := 0
		for _, i := range active {
			if hi(i) >= a {
				active[k] = i
				k++
			}
		}
		active = active[:k]
		for next < len(idx) && lo(idx[next]) <= a {
			active = append(active, idx[next])
			next++
		}
		if len(active) == 0 {
			continue
		}
		var down *spanList
		per := uint64(1)
		if dim+1 < rank {
			down = buildSpans(start, end, rank, slices.Clone(active), dim+1)
			per = down.n
		}
		if n := len(l.spans); n > 0 && l.spans[n-1].hi+1 == a && sameSpans(l.spans[n-1].down, down) {
			l.spans[n-1].hi = b - 1
		} else {
			l.spans = append(l.spans, span{lo: a, hi: b - 1, down: down})
		}
		l.n += (b - a) * per
	}
	return l
}

// uintLE decodes a little-endian unsigned integer of 2, 4 or 8 bytes.
func uintLE(b []byte) uint64 {
	switch len(b) {
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// expandRuns splits blocks into runs along the last dimension, sorts them
// row-major and merges the overlapping or adjacent ones, so that
// buildRuns accepts them. It reports false when that would make more than
// maxExpandedRuns runs.
func expandRuns(start, end []uint64, rank int) (rs, re []uint64, ok bool) {
	n, last := len(start)/rank, rank-1
	total := uint64(0)
	for i := 0; i < n; i++ {
		rows := uint64(1)
		for d := 0; d < last; d++ {
			rows = satMul(rows, end[i*rank+d]-start[i*rank+d]+1)
		}
		if total = satAdd(total, rows); total > maxExpandedRuns {
			return nil, nil, false
		}
	}
	rs, re = make([]uint64, 0, total*uint64(rank)), make([]uint64, 0, total*uint64(rank))
	pos := make([]uint64, rank)
	for i := 0; i < n; i++ {
		b := i * rank
		copy(pos, start[b:b+rank])
		for {
			rs = append(rs, pos[:last]...)
			rs = append(rs, start[b+last])
			re = append(re, pos[:last]...)
			re = append(re, end[b+last])
			d := last - 1
			for ; d >= 0; d-- {
				if pos[d] < end[b+d] {
					pos[d]++
					break
				}
				pos[d] = start[b+d]
			}
			if d < 0 {
				break
			}
		}
	}
	perm := make([]int32, total)
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(x, y int32) int {
		return slices.Compare(rs[int(x)*rank:int(x+1)*rank], rs[int(y)*rank:int(y+1)*rank])
	})
	outs, oute := make([]uint64, 0, len(rs)), make([]uint64, 0, len(re))
	for _, p := range perm {
		a, z := rs[int(p)*rank:int(p+1)*rank], re[int(p)*rank:int(p+1)*rank]
		if m := len(outs) - rank; m >= 0 && slices.Equal(outs[m:m+last], a[:last]) && oute[m+last]+1 >= a[last] {
			oute[m+last] = max(oute[m+last], z[last])
			continue
		}
		outs, oute = append(outs, a...), append(oute, z...)
	}
	return outs, oute, true
}

// buildRuns builds the span tree in linear time when every block is a
// run along the last dimension (one position in every other dimension)
// and the blocks are in row-major order without overlap, as writers
// that emit one block per run produce. It returns nil otherwise (and for
// no blocks).
func buildRuns(start, end []uint64, rank int) *spanList {
	n := len(start) / rank
	if n == 0 {
		return nil
	}
	last := rank - 1
	for i := 0; i < n; i++ {
		b := i * rank
		for d := 0; d < last; d++ {
			if start[b+d] != end[b+d] {
				return nil
			}
		}
		if i == 0 {
			continue
		}
		p, c := b-rank, 0
		for d := 0; d < last && c == 0; d++ {
			c = cmp.Compare(start[p+d], start[b+d])
		}
		if c > 0 || (c == 0 && end[p+last] >= start[b+last]) {
			return nil
		}
	}
	// levels[d] is the list being filled at dimension d; the lists of the
	// last dimension, filled one after the other, share one backing array
	// of at most n spans rather than each growing its own: the one being
	// filled is back[from:], given to its list when it is closed
	back := make([]span, 0, n)
	from := 0
	levels := make([]*spanList, rank)
	for d := range levels {
		levels[d] = &spanList{}
	}
	// close finishes the lists below dimension d and appends each to its
	// parent's last span
	closeBelow := func(d int) {
		for k := last; k > d; k-- {
			child := levels[k]
			if k == last {
				child.spans, from = back[from:len(back):len(back)], len(back)
			}
			levels[k] = &spanList{}
			parent := levels[k-1]
			sp := &parent.spans[len(parent.spans)-1]
			sp.down = child
			parent.n += child.n
			if m := len(parent.spans); m > 1 && parent.spans[m-2].hi+1 == sp.lo && sameSpans(parent.spans[m-2].down, child) {
				parent.spans[m-2].hi = sp.hi
				parent.spans = parent.spans[:m-1]
			}
		}
	}
	for i := 0; i < n; i++ {
		b := i * rank
		// the first dimension where this block leaves the previous one's
		// prefix
		d := 0
		if i > 0 {
			for d < last && start[b+d] == start[b-rank+d] {
				d++
			}
			closeBelow(d)
		}
		for k := d; k < last; k++ {
			levels[k].spans = append(levels[k].spans, span{lo: start[b+k], hi: start[b+k]})
		}
		lo, hi := start[b+last], end[b+last]
		if m := len(back); m > from && back[m-1].hi+1 == lo {
			back[m-1].hi = hi
		} else {
			back = append(back, span{lo: lo, hi: hi})
		}
		levels[last].n += hi - lo + 1
	}
	closeBelow(0)
	if last == 0 {
		levels[0].spans = back
	}
	return levels[0]
}

// sameSpans reports whether two span trees select the same set.
func sameSpans(a, b *spanList) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil || len(a.spans) != len(b.spans) || a.n != b.n {
		return false
	}
	for i, s := range a.spans {
		t := b.spans[i]
		if s.lo != t.lo || s.hi != t.hi || !sameSpans(s.down, t.down) {
			return false
		}
	}
	return true
}

// Runs calls fn for each run of selected positions that are consecutive
// along the last dimension, in the order the chunk stores their values:
// row-major for hyperslabs and "all", list order for points (each point
// a run of one). start is chunk-relative and reused between calls.
func (s *Selection) Runs(fn func(start []uint64, n uint64) error) error {
	rank := len(s.shape)
	if s.Kind == SelectPoints {
		for i := 0; i+rank <= len(s.points); i += rank {
			if err := fn(s.points[i:i+rank], 1); err != nil {
				return err
			}
		}
		return nil
	}
	if s.runs != nil {
		var err error
		s.eachRun(func(pos []uint64, n uint64) bool {
			err = fn(pos, n)
			return err == nil
		})
		return err
	}
	if s.spans == nil {
		return nil
	}
	pos := make([]uint64, rank)
	var walk func(l *spanList, dim int) error
	walk = func(l *spanList, dim int) error {
		for _, sp := range l.spans {
			if dim == rank-1 {
				pos[dim] = sp.lo
				if err := fn(pos, sp.hi-sp.lo+1); err != nil {
					return err
				}
				continue
			}
			for v := sp.lo; v <= sp.hi; v++ {
				pos[dim] = v
				if err := walk(sp.down, dim+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(s.spans, 0)
}

// Blocks calls fn for each block (inclusive chunk-relative corners) of a
// hyperslab or "all" selection: a cover of the selected set by disjoint
// boxes, row-major, with rows of equal pattern merged. lo and hi are
// reused between calls.
func (s *Selection) Blocks(fn func(lo, hi []uint64) error) error {
	spans := s.tree()
	if spans == nil {
		return nil
	}
	rank := len(s.shape)
	lo, hi := make([]uint64, rank), make([]uint64, rank)
	var walk func(l *spanList, dim int) error
	walk = func(l *spanList, dim int) error {
		for _, sp := range l.spans {
			lo[dim], hi[dim] = sp.lo, sp.hi
			var err error
			if dim == rank-1 {
				err = fn(lo, hi)
			} else {
				err = walk(sp.down, dim+1)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return walk(spans, 0)
}

// Points returns the chunk-relative coordinates of a point selection,
// point-major, in stored order (nil for other kinds).
func (s *Selection) Points() []uint64 { return s.points }

// CountRows adds to counts[offset+r] the number of selected positions
// with first coordinate r, counting only positions p with p[i] < limit[i]
// (counts must be long enough for every such r).
func (s *Selection) CountRows(limit []uint64, offset uint64, counts []uint64) {
	rank := len(s.shape)
	if s.Kind == SelectPoints {
		for i := 0; i+rank <= len(s.points); i += rank {
			ok := true
			for k := 0; k < rank; k++ {
				ok = ok && s.points[i+k] < limit[k]
			}
			if ok {
				counts[offset+s.points[i]]++
			}
		}
		return
	}
	if s.runs != nil && rank == 2 {
		// a row's runs are counted in n, not in counts (adding to the
		// same element run after run waits on each store)
		var at, n uint64
		for o := 0; o < len(s.runs); o += 4 * s.rw {
			var row, lo, hi uint64
			if s.rw == 4 {
				row, lo, _, hi = block4(s.runs, o)
			} else {
				row, lo, _, hi = block2(s.runs, o, s.rw)
			}
			if row >= limit[0] || lo >= limit[1] {
				continue
			}
			if row != at { // at is 0 or a row counted: an index of counts
				counts[offset+at] += n
				at, n = row, 0
			}
			n += min(hi, limit[1]-1) - lo + 1
		}
		if n > 0 {
			counts[offset+at] += n
		}
		return
	}
	if s.runs != nil {
		s.eachBlock(limit, func(pos []uint64, n uint64) {
			if rank == 1 {
				for r := pos[0]; r < pos[0]+n; r++ {
					counts[offset+r]++
				}
			} else {
				counts[offset+pos[0]] += n
			}
		})
		return
	}
	if s.spans == nil {
		return
	}
	sub := &Selection{Kind: SelectHyperslab, shape: s.shape[1:]}
	for _, sp := range s.spans.spans {
		if sp.lo >= limit[0] {
			break
		}
		per := uint64(1)
		if rank > 1 {
			sub.spans, sub.n = sp.down, sp.down.n
			per = sub.CountWithin(limit[1:])
		}
		for r := sp.lo; r <= min(sp.hi, limit[0]-1); r++ {
			counts[offset+r] += per
		}
	}
}

// CountWithin returns the number of selected positions p with p[i] <
// limit[i] for every dimension: the defined elements of an edge chunk
// that lie inside the dataset extent.
func (s *Selection) CountWithin(limit []uint64) uint64 {
	inside := true
	for i, v := range limit {
		inside = inside && v >= s.shape[i]
	}
	if inside {
		return s.n
	}
	rank := len(s.shape)
	var n uint64
	if s.Kind == SelectPoints {
		for i := 0; i+rank <= len(s.points); i += rank {
			ok := true
			for k := 0; k < rank; k++ {
				ok = ok && s.points[i+k] < limit[k]
			}
			if ok {
				n++
			}
		}
		return n
	}
	if s.runs != nil {
		s.eachBlock(limit, func(_ []uint64, c uint64) { n += c })
		return n
	}
	var walk func(l *spanList, dim int) uint64
	walk = func(l *spanList, dim int) uint64 {
		var c uint64
		for _, sp := range l.spans {
			if sp.lo >= limit[dim] {
				break
			}
			w := min(sp.hi, limit[dim]-1) - sp.lo + 1
			if dim == rank-1 {
				c += w
			} else {
				c += w * walk(sp.down, dim+1)
			}
		}
		return c
	}
	if s.spans == nil {
		return 0
	}
	return walk(s.spans, 0)
}

// runWithin returns how many positions of the run of n from pos along the
// last dimension lie below limit in every dimension.
func runWithin(pos []uint64, n uint64, limit []uint64) uint64 {
	last := len(pos) - 1
	for k := 0; k < last; k++ {
		if pos[k] >= limit[k] {
			return 0
		}
	}
	if pos[last] >= limit[last] {
		return 0
	}
	return min(n, limit[last]-pos[last])
}
