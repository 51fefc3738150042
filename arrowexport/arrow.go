package arrowexport

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arrowLayoutVersion changes whenever the Arrow renderer's bytes change, so
// cached layouts of older renderers are not used.
const arrowLayoutVersion = "arrow-v2"

// NewArrowView returns t as an Arrow IPC file (Feather v2): uncompressed,
// one record batch per chunk-aligned row range (see Table), nulls for
// missing values, dictionary arrays for categoricals, and the fields' and
// table's metadata.
//
// When every column is fixed width and whether each batch has nulls is
// known from metadata, the layout is computed by writing same-shaped
// synthetic batches, which arrow-go encodes to the same sizes and footer
// (see canonical): at once for non-nullable fields, in Finalize when
// ChunkStats say which batches have nulls. Otherwise Finalize reads every
// batch once.
func NewArrowView(t *Table, opts Options) (View, error) {
	rows, unit, err := checkTable(t)
	if err != nil {
		return nil, err
	}
	r := &arrowRenderer{t: t, schema: t.schema(), rows: rows, unit: unit, nunits: numUnits(rows, unit)}
	v := &framedView{
		ext:      "arrow",
		kind:     kindOf(arrowLayoutVersion, arrowGoVersion(), fmt.Sprint(unit)),
		opts:     opts,
		estimate: r.estimate(),
		plan:     r.plan,
		render:   r.render,
	}
	r.view = v
	if r.fixedNonNull() {
		plan := r.plan
		if key, ok := shapeKey(r.schema, rows, unit); ok {
			plan = func() (*framedLayout, error) {
				if l, ok := arrowLayouts.load(key); ok {
					return l, nil
				}
				l, err := r.plan()
				if err == nil {
					arrowLayouts.store(key, l)
				}
				return l, err
			}
		}
		if l, err := plan(); err == nil {
			v.setLayout(l)
		} else if opts.Logf != nil {
			opts.Logf("arrowexport: arrow layout from metadata: %v", err)
		}
	}
	if !v.Exact() {
		v.loadCached()
	}
	return v, nil
}

type arrowRenderer struct {
	t      *Table
	view   *framedView
	schema *arrow.Schema
	rows   int64
	unit   int64
	nunits int
	dicts  []arrow.Array // categoricals' dictionaries by column, for synthetic batches
	// zero and valid back every synthetic batch: zero values, and a
	// validity bitmap whose first bit only is clear. Writers never
	// change them, so batches share them.
	zero, valid []byte
}

// estimate is an upper bound of the file size for the usual types, used
// until the layout is known.
func (r *arrowRenderer) estimate() int64 {
	perRow, perBatch := int64(0), int64(256)
	for _, c := range r.t.Columns {
		perBatch += 64
		switch w := fixedBits(c.Field().Type); {
		case w > 0:
			perRow += (w+7)/8 + 1
			perBatch += 16
		default:
			perRow += int64(stringBound(c)) + 5
			perBatch += 24
		}
	}
	return 4096 + 1024*int64(len(r.t.Columns)) + int64(r.nunits)*(perBatch+24) + r.rows*perRow
}

// fixedBits is the bit width of a fixed-width (or dictionary) type, or 0.
func fixedBits(t arrow.DataType) int64 {
	if d, ok := t.(*arrow.DictionaryType); ok {
		t = d.IndexType
	}
	if fw, ok := t.(arrow.FixedWidthDataType); ok {
		return int64(fw.BitWidth())
	}
	return 0
}

// knownShapes reports, for every unit and column, how many nulls it has,
// when every column is fixed width; a unit's entry is nil when that is
// not known without reading its data.
func (r *arrowRenderer) knownShapes() ([][]nullKind, bool) {
	for _, c := range r.t.Columns {
		if fixedBits(c.Field().Type) == 0 {
			return nil, false
		}
	}
	out := make([][]nullKind, r.nunits)
	for i := range out {
		start, n := unitRange(i, r.unit, r.rows)
		kinds := make([]nullKind, len(r.t.Columns))
		for j, c := range r.t.Columns {
			kind, known := knownNulls(c, start, n, r.rows)
			if !known {
				kinds = nil
				break
			}
			kinds[j] = kind
		}
		out[i] = kinds
	}
	return out, true
}

// nullKind says how many of a batch's values of one column are null.
type nullKind uint8

const (
	noNulls   nullKind = iota
	someNulls          // at least one, not all
	allNulls           // every value (arrow-go pads such a bitmap to 64 bytes)
)

// knownNulls reports how many of rows [start, start+n) of c are null, and
// whether that is known without reading them: from ChunkStats, or, for
// rows never written (which all read alike), from the first of them.
func knownNulls(c ColumnSource, start, n, rows int64) (kind nullKind, known bool) {
	if !c.Field().Nullable {
		return noNulls, true
	}
	if kind, known := statsNulls(c, start, n, rows); known {
		return kind, true
	}
	return fillNulls(c, start, n)
}

// statsNulls is knownNulls from the column's ChunkStats.
func statsNulls(c ColumnSource, start, n, rows int64) (kind nullKind, known bool) {
	cs, ok := c.(ChunkStatsSource)
	if !ok {
		return noNulls, false
	}
	cr := max(c.ChunkRows(), 1)
	var nulls int64
	for k := start / cr; k*cr < start+n; k++ {
		s, ok := cs.ChunkStats(k)
		if !ok {
			return noNulls, false
		}
		if s.Nulls == 0 {
			continue
		}
		cs, ce := k*cr, min((k+1)*cr, rows)
		switch {
		case cs >= start && ce <= start+n:
			nulls += s.Nulls
		case s.Nulls == ce-cs: // a wholly null chunk, partly in the range
			nulls += min(ce, start+n) - max(cs, start)
		default:
			return noNulls, false // some nulls, maybe outside the range
		}
	}
	switch {
	case nulls == 0:
		return noNulls, true
	case nulls == n:
		return allNulls, true
	}
	return someNulls, true
}

// fillNulls is knownNulls for rows never written: all null or none, as
// the first of them is.
func fillNulls(c ColumnSource, start, n int64) (kind nullKind, known bool) {
	a, err := fillRow(c, start, n)
	if a == nil || err != nil {
		return noNulls, false
	}
	defer a.Release()
	if a.IsNull(0) {
		return allNulls, true
	}
	return noNulls, true
}

// plan computes the layout by writing every batch through a counting
// sink: a synthetic batch for each unit whose shape metadata (or its
// being never written) gives, the real batch for the others.
func (r *arrowRenderer) plan() (*framedLayout, error) {
	if nulls, ok := r.knownShapes(); ok {
		// the synthetic batches' buffers (a unit's worth) are not kept
		defer func() { r.zero, r.valid = nil, nil }()
		return r.layout(func(i int) (arrow.RecordBatch, error) {
			if nulls[i] == nil {
				return r.batch(i)
			}
			return r.synthetic(i, nulls[i])
		})
	}
	return r.layout(r.batch)
}

// fixedNonNull reports whether every column is fixed width and not
// nullable, so the layout needs neither data nor ChunkStats (which may be
// costly to get) and is computed when the view is made.
func (r *arrowRenderer) fixedNonNull() bool {
	for _, c := range r.t.Columns {
		if fixedBits(c.Field().Type) == 0 || c.Field().Nullable {
			return false
		}
	}
	return true
}

// batch reads unit i as a record batch of canonical arrays.
func (r *arrowRenderer) batch(i int) (arrow.RecordBatch, error) {
	start, n := unitRange(i, r.unit, r.rows)
	arrs, err := r.t.readColumns(start, n)
	if err != nil {
		return nil, err
	}
	for j, a := range arrs {
		arrs[j] = canonical(a)
		a.Release()
	}
	defer releaseAll(arrs)
	return array.NewRecordBatch(r.schema, arrs, n), nil
}

// layout writes a whole file of the given batches through a counting
// sink and returns its head, batch sizes and footer.
func (r *arrowRenderer) layout(batch func(int) (arrow.RecordBatch, error)) (*framedLayout, error) {
	s := &captureSink{capture: true}
	w, err := ipc.NewFileWriter(s, ipc.WithSchema(r.schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	defer w.Close()
	l := &framedLayout{Units: make([]int64, 0, r.nunits)}
	var prev int64
	for i := 0; i < r.nunits; i++ {
		rec, err := batch(i)
		if err != nil {
			return nil, err
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("arrowexport: writing batch %d: %w", i, err)
		}
		if i == 0 {
			b := s.take()
			h, err := firstBatchOffset(b)
			if err != nil {
				return nil, err
			}
			l.Head, prev = bytes.Clone(b[:h]), h // not the first batch behind it
			s.capture = false
		}
		l.Units = append(l.Units, s.n-prev)
		prev = s.n
	}
	s.capture = true
	if err := w.Close(); err != nil {
		return nil, err
	}
	if r.nunits == 0 {
		l.Head = s.take()
	} else {
		l.Foot = s.take()
	}
	return l, nil
}

// firstBatchOffset walks the IPC messages after the file magic and returns
// the offset of the first record batch message.
func firstBatchOffset(b []byte) (int64, error) {
	const magic = 8 // "ARROW1" and 2 bytes of padding
	for p := magic; p+8 <= len(b); {
		if binary.LittleEndian.Uint32(b[p:]) != 0xFFFFFFFF {
			return 0, fmt.Errorf("arrowexport: no IPC message at offset %d", p)
		}
		metaLen := int(binary.LittleEndian.Uint32(b[p+4:]))
		mr := ipc.NewMessageReader(bytes.NewReader(b[p:]))
		msg, err := mr.Message()
		if err != nil {
			mr.Release()
			return 0, fmt.Errorf("arrowexport: IPC message at offset %d: %w", p, err)
		}
		typ, body := msg.Type(), msg.BodyLen()
		mr.Release()
		if typ == ipc.MessageRecordBatch {
			return int64(p), nil
		}
		p += 8 + metaLen + int(body)
	}
	return 0, fmt.Errorf("arrowexport: no record batch in the first write")
}

// render returns the bytes of batch i's message: a fresh writer's output
// for that one batch, less the head every such output starts with.
func (r *arrowRenderer) render(i int) ([]byte, error) {
	rec, err := r.batch(i)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	var buf bytes.Buffer
	buf.Grow(len(r.view.lay.Head) + int(r.view.lay.Units[i]) + 64)
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(r.schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if err := w.Write(rec); err != nil {
		return nil, fmt.Errorf("arrowexport: writing batch %d: %w", i, err)
	}
	b, head := buf.Bytes(), r.view.lay.Head
	if !bytes.HasPrefix(b, head) {
		return nil, fmt.Errorf("arrowexport: batch %d: schema or dictionaries differ from the file's", i)
	}
	return b[len(head):], nil
}

// synthetic returns a batch shaped like unit i (same lengths, same
// presence of nulls) with zero values, for fixed-width columns.
func (r *arrowRenderer) synthetic(i int, nulls []nullKind) (arrow.RecordBatch, error) {
	_, n := unitRange(i, r.unit, r.rows)
	arrs := make([]arrow.Array, len(r.t.Columns))
	defer func() { releaseAll(arrs) }()
	for j, c := range r.t.Columns {
		a, err := r.zeros(j, c, int(n), nulls[j])
		if err != nil {
			return nil, err
		}
		arrs[j] = a
	}
	return array.NewRecordBatch(r.schema, arrs, n), nil
}

// zeros returns n zero values of the fixed-width type of c, column j:
// the first one null for someNulls, all of them counted null for
// allNulls. Categoricals get c's real dictionary, read
// once with row 0.
func (r *arrowRenderer) zeros(j int, c ColumnSource, n int, nulls nullKind) (arrow.Array, error) {
	t := c.Field().Type
	dt, isDict := t.(*arrow.DictionaryType)
	if isDict {
		t = dt.IndexType
	}
	var validity *memory.Buffer
	nullCount := 0
	if nulls != noNulls && n > 0 {
		size := int(bitutil.BytesForBits(int64(n)))
		if len(r.valid) < size {
			r.valid = make([]byte, size)
			bitutil.SetBitsTo(r.valid, 0, int64(8*size), true)
			bitutil.ClearBit(r.valid, 0)
		}
		validity, nullCount = memory.NewBufferBytes(r.valid[:size]), 1
		if nulls == allNulls {
			nullCount = n
		}
	}
	size := int(bitutil.BytesForBits(int64(n) * fixedBits(t)))
	if len(r.zero) < size {
		r.zero = make([]byte, size)
	}
	values := memory.NewBufferBytes(r.zero[:size])
	a := array.MakeFromData(array.NewData(t, n, []*memory.Buffer{validity, values}, nil, nullCount, 0))
	if !isDict {
		return a, nil
	}
	defer a.Release()
	if r.dicts == nil {
		r.dicts = make([]arrow.Array, len(r.t.Columns))
	}
	d := r.dicts[j]
	if d == nil {
		one, err := c.Read(0, 1)
		if err != nil {
			return nil, err
		}
		defer one.Release()
		da, ok := one.(*array.Dictionary)
		if !ok {
			return nil, fmt.Errorf("arrowexport: column %q: Read returned %s for a dictionary field", c.Field().Name, one.DataType())
		}
		d = canonical(da.Dictionary())
		r.dicts[j] = d
	}
	return array.NewDictionaryArray(dt, a, d), nil
}
