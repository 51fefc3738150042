package sparsecoo

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/h5fs/h5fs/h5core"
)

// ErrOutside is returned (wrapped) by Define and Erase for a coordinate
// outside the dataset's maximum extent.
var ErrOutside = errors.New("coordinate outside the maximum extent")

// Writer collects defines and erases of the elements of one structured-
// chunk sparse dataset and applies them in one transaction (Commit):
// every affected chunk is read once, rebuilt from its defined elements
// and written once; a chunk left without elements leaves the index; the
// extent grows (within the maximum) to hold every defined element. Values
// are packed little-endian elements of the dataset's type, as Matrix
// reads them. A Writer is not safe for concurrent use.
type Writer struct {
	rw    *h5core.RW
	path  string
	rank  int
	shape []uint64 // extent after the pending defines
	max   []uint64
	chunk []uint64
	es    int
	edits map[string]*chunkEdit
	vals  []byte // the defined values, packed
	n     int
}

// chunkEdit is the pending change of one chunk: its edits in the order
// they were made.
type chunkEdit struct {
	scaled []uint64
	edits  []edit
}

// edit is one define or erase: the chunk-relative linear position and the
// value's offset in Writer.vals (-1: erase).
type edit struct {
	pos uint64
	val int
}

// NewWriter prepares writes to the sparse dataset at path of a file open
// for writing.
func NewWriter(rw *h5core.RW, path string) (*Writer, error) {
	ds, err := openSparse(rw, path)
	if err != nil {
		return nil, err
	}
	return &Writer{rw: rw, path: path, rank: len(ds.Shape()), shape: slices.Clone(ds.Shape()), max: ds.MaxShape(),
		chunk: ds.ChunkShape(), es: ds.Type.PackedSize(), edits: map[string]*chunkEdit{}}, nil
}

// openSparse opens the dataset at path as the writer sees it and checks
// that its values can be written.
func openSparse(rw *h5core.RW, path string) (*h5core.Dataset, error) {
	o, err := rw.File().Open(path)
	if err != nil {
		return nil, err
	}
	ds, err := o.Dataset()
	if err != nil {
		return nil, err
	}
	switch {
	case !ds.IsSparse():
		return nil, fmt.Errorf("sparsecoo: %s: %s is not a sparse dataset", rw.Name(), path)
	case !ds.Type.IsFixedSize() || !ds.Type.IsPackedLE():
		return nil, fmt.Errorf("sparsecoo: %s: %s: writing %s elements: %w", rw.Name(), path, ds.Type, h5core.ErrUnsupported)
	}
	return ds, nil
}

// Shape returns the extent the dataset has once the pending defines
// commit, as far as this writer knows (another may grow it further).
func (w *Writer) Shape() []uint64 { return w.shape }

// ElemSize returns the size of one packed value.
func (w *Writer) ElemSize() int { return w.es }

// Pending returns the number of defines and erases not yet committed.
func (w *Writer) Pending() int { return w.n }

// check validates point-major coordinates against the maximum extent.
func (w *Writer) check(coords []uint64) (int, error) {
	if w.rank == 0 || len(coords)%w.rank != 0 {
		return 0, fmt.Errorf("sparsecoo: %s: %d coordinates are not whole points of rank %d", w.path, len(coords), w.rank)
	}
	for i, c := range coords {
		if m := w.max[i%w.rank]; m != h5core.Unlimited && c >= m {
			return 0, fmt.Errorf("sparsecoo: %s: point %v: %w %v", w.path, coords[i-i%w.rank:i-i%w.rank+w.rank], ErrOutside, w.max)
		}
	}
	return len(coords) / w.rank, nil
}

// edit records a new value (at offset val of w.vals; -1: erase) of the
// element at p.
func (w *Writer) edit(p []uint64, val int) {
	scaled := make([]uint64, w.rank)
	var pos uint64
	key := make([]byte, 0, 8*w.rank)
	for i, c := range p {
		scaled[i] = c / w.chunk[i]
		pos = pos*w.chunk[i] + c%w.chunk[i]
		key = binary.LittleEndian.AppendUint64(key, scaled[i])
	}
	e := w.edits[string(key)]
	if e == nil {
		e = &chunkEdit{scaled: scaled}
		w.edits[string(key)] = e
	}
	e.edits = append(e.edits, edit{pos, val})
	w.n++
}

// Define sets the elements at coords (point-major, rank per point) to
// values (one packed value each), defining them or overwriting their
// value. A point beyond the current extent grows it at Commit; one
// beyond the maximum extent is an error (ErrOutside) and nothing of the
// call is recorded.
func (w *Writer) Define(coords []uint64, values []byte) error {
	n, err := w.check(coords)
	if err != nil {
		return err
	}
	if len(values) != n*w.es {
		return fmt.Errorf("sparsecoo: %s: %d bytes of values for %d points of %d bytes", w.path, len(values), n, w.es)
	}
	for k := 0; k < n; k++ {
		p := coords[k*w.rank : (k+1)*w.rank]
		for i, c := range p {
			w.shape[i] = max(w.shape[i], c+1)
		}
		w.edit(p, len(w.vals))
		w.vals = append(w.vals, values[k*w.es:(k+1)*w.es]...)
	}
	return nil
}

// Erase makes the elements at coords (point-major) undefined; erasing an
// undefined element does nothing.
func (w *Writer) Erase(coords []uint64) error {
	n, err := w.check(coords)
	if err != nil {
		return err
	}
	for k := 0; k < n; k++ {
		w.edit(coords[k*w.rank:(k+1)*w.rank], -1)
	}
	return nil
}

// Discard drops the pending changes.
func (w *Writer) Discard() {
	clear(w.edits)
	w.vals = w.vals[:0]
	w.n = 0
}

// Commit applies the pending changes in one transaction: nothing is
// visible to readers until it is durable, and a failure or a crash leaves
// the file as it was. The pending changes are dropped either way.
func (w *Writer) Commit() error {
	if len(w.edits) == 0 {
		return nil
	}
	defer w.Discard()
	ds, err := openSparse(w.rw, w.path)
	if err != nil {
		return err
	}
	tx, err := w.rw.Begin()
	if err != nil {
		return err
	}
	if err := w.apply(tx, ds); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// apply writes every edited chunk, in row-major chunk order.
func (w *Writer) apply(tx *h5core.Tx, ds *h5core.Dataset) error {
	// another writer may have grown the extent since this one opened
	shape := slices.Clone(ds.Shape())
	for i, n := range w.shape {
		shape[i] = max(shape[i], n)
	}
	if !slices.Equal(shape, ds.Shape()) {
		if err := tx.SetExtent(w.path, shape); err != nil {
			return err
		}
	}
	w.shape = shape
	edits := make([]*chunkEdit, 0, len(w.edits))
	for _, e := range w.edits {
		edits = append(edits, e)
	}
	sort.Slice(edits, func(a, b int) bool { return slices.Compare(edits[a].scaled, edits[b].scaled) < 0 })
	for _, e := range edits {
		old, err := ds.SparseChunkAt(e.scaled)
		if err != nil {
			return err
		}
		idx, vals, changed, err := w.merge(old, e)
		if err != nil {
			return err
		}
		if !changed {
			continue
		}
		if err := tx.WriteSparseChunk(w.path, e.scaled, idx, vals); err != nil {
			return err
		}
	}
	return nil
}

// merge returns the chunk's defined positions (ascending) and values
// after the edit, and whether anything changed.
func (w *Writer) merge(old *h5core.SparseChunk, e *chunkEdit) ([]uint64, []byte, bool, error) {
	var oidx []uint64
	var ovals []byte
	if old != nil {
		var err error
		if oidx, ovals, err = old.Positions(); err != nil {
			return nil, nil, false, err
		}
	}
	// the last edit of each position, ascending
	slices.SortStableFunc(e.edits, func(a, b edit) int { return cmp.Compare(a.pos, b.pos) })
	eds := e.edits[:0]
	for _, ed := range e.edits {
		if n := len(eds); n > 0 && eds[n-1].pos == ed.pos {
			eds[n-1] = ed
			continue
		}
		eds = append(eds, ed)
	}
	es := w.es
	idx := make([]uint64, 0, len(oidx)+len(eds))
	vals := make([]byte, 0, (len(oidx)+len(eds))*es)
	changed := false
	i := 0
	for _, ed := range eds {
		for ; i < len(oidx) && oidx[i] < ed.pos; i++ {
			idx, vals = append(idx, oidx[i]), append(vals, ovals[i*es:(i+1)*es]...)
		}
		had := i < len(oidx) && oidx[i] == ed.pos
		switch {
		case ed.val < 0:
			changed = changed || had
		default:
			v := w.vals[ed.val : ed.val+es]
			changed = changed || !had || !slices.Equal(ovals[i*es:(i+1)*es], v)
			idx, vals = append(idx, ed.pos), append(vals, v...)
		}
		if had {
			i++
		}
	}
	for ; i < len(oidx); i++ {
		idx, vals = append(idx, oidx[i]), append(vals, ovals[i*es:(i+1)*es]...)
	}
	return idx, vals, changed, nil
}
