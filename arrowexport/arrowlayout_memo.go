package arrowexport

import (
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// The Arrow layout of a table of fixed-width columns without nulls is
// computed from metadata alone (synthetic batches, see NewArrowView), and
// it depends on nothing but the schema, the row count and the rows per
// batch. Files with many tables of one shape (a run's per-event tables, a
// thousand tables of the same columns) would compute the same layout
// again for each; the memo computes it once per shape, so that listing
// such a file costs no IPC writing per view.

// shapeMemoMax bounds the shapes a memo keeps; a full memo starts over.
const shapeMemoMax = 256

// arrowLayouts is the memo of NewArrowView's metadata-only layouts.
var arrowLayouts shapeMemo[*framedLayout]

// shapeMemo keeps what is computed once per shape key. A value it returns
// is shared by every view of that shape and never changed.
type shapeMemo[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

// load returns the value kept for key.
func (m *shapeMemo[V]) load(key string) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[key]
	return v, ok
}

// store keeps v for key.
func (m *shapeMemo[V]) store(key string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= shapeMemoMax {
		m.m = make(map[string]V)
	}
	m.m[key] = v
}

// shapeKey spells out everything an Arrow file of fixed-width, non-null
// columns depends on besides the values: every field's name, type,
// nullability and metadata, the schema's metadata, the rows and the rows
// per batch. Names and metadata are written after their lengths, so that
// no two shapes share a key; ok is false for a schema whose bytes depend on more (dictionaries).
func shapeKey(s *arrow.Schema, rows, unit int64) (key string, ok bool) {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(rows, 10))
	b.WriteByte('/')
	b.WriteString(strconv.FormatInt(unit, 10))
	for _, f := range s.Fields() {
		if _, ok := f.Type.(arrow.FixedWidthDataType); !ok || f.Type.ID() == arrow.DICTIONARY {
			return "", false
		}
		b.WriteByte('\n')
		writeSized(&b, f.Name)
		b.WriteByte(' ')
		b.WriteString(f.Type.String())
		b.WriteString(strconv.FormatBool(f.Nullable))
		writeMetadata(&b, f.Metadata)
	}
	b.WriteString("\nschema ")
	writeMetadata(&b, s.Metadata())
	b.WriteString(s.Endianness().String())
	return b.String(), true
}

// writeMetadata spells out metadata md for shapeKey, each key and value
// after its length, so that no two differ in the same key (cheaper than
// quoting them, which cost a listing of a thousand tables more than the
// rest of the keys).
func writeMetadata(b *strings.Builder, md arrow.Metadata) {
	b.WriteByte('[')
	keys, values := md.Keys(), md.Values()
	for i := range keys {
		writeSized(b, keys[i])
		writeSized(b, values[i])
	}
	b.WriteByte(']')
}

// writeSized writes s after its length.
func writeSized(b *strings.Builder, s string) {
	var n [20]byte
	b.Write(strconv.AppendInt(n[:0], int64(len(s)), 10))
	b.WriteByte(':')
	b.WriteString(s)
}
