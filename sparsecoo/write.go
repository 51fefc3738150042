package sparsecoo

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

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
	typ   *h5core.Datatype
	es    int
	edits map[string]*chunkEdit
	vals  []byte // the defined values, packed
	n     int
	known *Chunks // committed chunks, decoded
}

// Chunks keeps the decoded content of the chunks Writers of one dataset
// committed, so that a later commit rebuilding the same chunks takes them
// from memory instead of reading and decoding them again. It is trusted
// only while the file is in the state of its last commit (no other
// transaction since) and keeps at most maxKnownBytes. Writers that share
// one (Writer.Share) must commit one at a time.
type Chunks struct {
	gen   uint64 // the file's generation after the last commit
	m     map[string]*h5core.SparseContent
	bytes int
}

// maxKnownBytes bounds what a Chunks keeps: past it, it starts afresh.
const maxKnownBytes = 256 << 20

// NewChunks returns an empty Chunks.
func NewChunks() *Chunks { return &Chunks{m: map[string]*h5core.SparseContent{}} }

// reset forgets every chunk.
func (c *Chunks) reset() {
	clear(c.m)
	c.bytes = 0
}

// put records a chunk's content after a commit.
func (c *Chunks) put(key string, k *h5core.SparseContent) {
	if old := c.m[key]; old != nil {
		c.bytes -= old.Bytes()
	}
	c.m[key] = k
	c.bytes += k.Bytes()
}

// chunkEdit is the pending change of one chunk: its edits in the order
// they were made.
type chunkEdit struct {
	key    string
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
		chunk: ds.ChunkShape(), typ: ds.Type, es: ds.Type.PackedSize(), edits: map[string]*chunkEdit{}, known: NewChunks()}, nil
}

// Share makes the writer take committed chunks from c and keep the ones
// it commits there, for the next Writer of the same dataset.
func (w *Writer) Share(c *Chunks) { w.known = c }

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

// Type returns the dataset's element type.
func (w *Writer) Type() *h5core.Datatype { return w.typ }

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
		e = &chunkEdit{key: string(key), scaled: scaled}
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
	if w.known.gen != w.rw.Generation() {
		w.known.reset() // another transaction came between
	}
	tx, err := w.rw.Begin()
	if err != nil {
		return err
	}
	after, err := w.apply(tx, ds)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		tx.Rollback() // a failed commit too: only a rollback ends it
		w.known.reset()
		return err
	}
	if w.known.bytes > maxKnownBytes {
		w.known.reset()
	}
	for key, k := range after {
		w.known.put(key, k)
	}
	w.known.gen = w.rw.Generation()
	return nil
}

// apply writes every edited chunk, in row-major chunk order, and
// returns the content of each edited chunk after the commit.
func (w *Writer) apply(tx *h5core.Tx, ds *h5core.Dataset) (map[string]*h5core.SparseContent, error) {
	// another writer may have grown the extent since this one opened
	shape := slices.Clone(ds.Shape())
	for i, n := range w.shape {
		shape[i] = max(shape[i], n)
	}
	if !slices.Equal(shape, ds.Shape()) {
		if err := tx.SetExtent(w.path, shape); err != nil {
			return nil, err
		}
	}
	w.shape = shape
	chunks := slices.Collect(maps.Values(w.edits))
	slices.SortFunc(chunks, func(a, b *chunkEdit) int { return slices.Compare(a.scaled, b.scaled) })
	ups := make([]h5core.SparseUpdate, len(chunks))
	for i, e := range chunks {
		ups[i] = h5core.SparseUpdate{Scaled: e.scaled, Old: w.known.m[e.key], Edits: w.lastEdits(e)}
	}
	after := make(map[string]*h5core.SparseContent, len(chunks))
	err := tx.UpdateSparseChunks(w.path, ups, func(i int, c *h5core.SparseContent) { after[chunks[i].key] = c })
	return after, err
}

// lastEdits returns the last edit of each position of a chunk, ascending
// by position.
func (w *Writer) lastEdits(e *chunkEdit) []h5core.SparseEdit {
	slices.SortStableFunc(e.edits, func(a, b edit) int { return cmp.Compare(a.pos, b.pos) })
	out := make([]h5core.SparseEdit, 0, len(e.edits))
	for _, ed := range e.edits {
		var v []byte
		if ed.val >= 0 {
			v = w.vals[ed.val : ed.val+w.es : ed.val+w.es]
		}
		if n := len(out); n > 0 && out[n-1].Pos == ed.pos {
			out[n-1].Val = v
			continue
		}
		out = append(out, h5core.SparseEdit{Pos: ed.pos, Val: v})
	}
	return out
}
