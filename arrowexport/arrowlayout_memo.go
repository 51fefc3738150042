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

// layoutMemoMax bounds the shapes the memo keeps; a full memo starts over.
const layoutMemoMax = 256

// arrowLayouts is the memo of NewArrowView's metadata-only layouts.
var arrowLayouts layoutMemo

// layoutMemo keeps layouts by shape key. A layout it returns is shared by
// every view of that shape and never changed.
type layoutMemo struct {
	mu sync.Mutex
	m  map[string]*framedLayout
}

// get returns the layout for key, computed by plan on a miss.
func (m *layoutMemo) get(key string, plan func() (*framedLayout, error)) (*framedLayout, error) {
	m.mu.Lock()
	l, ok := m.m[key]
	m.mu.Unlock()
	if ok {
		return l, nil
	}
	l, err := plan()
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= layoutMemoMax {
		m.m = make(map[string]*framedLayout)
	}
	m.m[key] = l
	return l, nil
}

// shapeKey spells out everything an Arrow file of fixed-width, non-null
// columns depends on besides the values: every field's name, type,
// nullability and metadata, the schema's metadata, the rows and the rows
// per batch. Names and metadata are quoted, so that no two shapes share a
// key; ok is false for a schema whose bytes depend on more (dictionaries).
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
		b.WriteString(strconv.Quote(f.Name))
		b.WriteByte(' ')
		b.WriteString(f.Type.String())
		b.WriteString(strconv.FormatBool(f.Nullable))
		b.WriteString(f.Metadata.String())
	}
	b.WriteString("\nschema ")
	b.WriteString(s.Metadata().String())
	b.WriteString(s.Endianness().String())
	return b.String(), true
}
