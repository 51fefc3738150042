package fsnode

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/h5fs/h5fs/arrowexport"
	"github.com/h5fs/h5fs/h5core"
	"github.com/h5fs/h5fs/sparsecoo"
	"github.com/h5fs/h5fs/table"
)

// Table writes on a read-write mount: rows appended to a whole-table CSV
// (<table>.csv, _table.csv) or to every column's .raw file become one
// table.Append; whole elements written inside a .raw file (pwrite below
// its end) become one table.Update of that column's cells, at fsync and
// close; truncate(2) of a .raw file to a row boundary, or of the CSV to
// where a line starts, becomes a table.Truncate. Each is one h5core transaction, committed before the
// system call returns; then the table's files show the new rows.

// writer is the write side of a read-write tree.
type writer struct {
	rw *h5core.RW

	mu   sync.Mutex            // serializes transactions and guards live
	live map[string]*liveTable // by table path

	bound atomic.Uint64 // no file shows a state older than this generation (holdState)
}

// liveTable is a table of a read-write mount: its files, to be shown
// afresh after each commit, and the .raw rows waiting for every column.
type liveTable struct {
	path    string
	stem    string           // name of its whole-table files, "" until listed
	files   map[string]*file // "up/" + whole-table file name, or "dir/" + name in its directory
	pending map[string][]byte
	widths  map[string]int    // element size of each column's .raw, by name; nil until listed
	chunks  *sparsecoo.Chunks // a sparse dataset's committed chunks, for its next commit
}

// tableOf returns the live table at path, registering it on first use.
func (w *writer) tableOf(path string) *liveTable {
	w.mu.Lock()
	defer w.mu.Unlock()
	lt := w.live[path]
	if lt == nil {
		lt = &liveTable{path: path, files: map[string]*file{}, pending: map[string][]byte{}}
		w.live[path] = lt
	}
	return lt
}

// track records the files of table tb that a commit changes: prefix is
// "up/" for the whole-table files beside its directory (stem names
// them), "dir/" for those in it.
func (t *Tree) track(tb *table.Table, prefix, stem string, es []entry) {
	if t.w == nil {
		return
	}
	lt := t.w.tableOf(tb.Path)
	t.w.mu.Lock()
	defer t.w.mu.Unlock()
	if stem != "" {
		lt.stem = stem
	}
	if lt.widths == nil {
		lt.widths = widthsOf(tb)
	}
	for _, e := range es {
		if e.file != nil {
			lt.files[prefix+e.name] = e.file
		}
	}
}

// csvHooks returns the hooks of a whole-table CSV, the file f: appends,
// and truncation to where a line starts.
func (t *Tree) csvHooks(path string, f *file) *writeHooks {
	if t.w == nil {
		return nil
	}
	return &writeHooks{
		newAppender: func() (Appender, error) { return t.newCSVAppender(path) },
		truncate: func(size int64) error {
			v, err := t.finalize(f)
			if err != nil {
				return err
			}
			cv, ok := v.(*arrowexport.CSVView)
			if !ok {
				return fmt.Errorf("%s is not a CSV view", f.path)
			}
			rows, ok, err := cv.RowAt(size)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: byte %d is not where a line starts", ErrInvalid, size)
			}
			return t.truncate(path, rows)
		},
	}
}

// rawHooks returns the hooks of column col's .raw file: appends, writes
// of whole elements inside it, and truncation (of the whole table: every
// column's file) to a row boundary.
func (t *Tree) rawHooks(path, col string, elemSize int) *writeHooks {
	if t.w == nil {
		return nil
	}
	return &writeHooks{
		newAppender: func() (Appender, error) {
			return &rawAppender{t: t, lt: t.w.tableOf(path), col: col, elemSize: int64(elemSize)}, nil
		},
		truncate: func(size int64) error {
			if size%int64(elemSize) != 0 {
				return fmt.Errorf("%w: size %d is not a row boundary (rows of %d bytes)", ErrInvalid, size, elemSize)
			}
			return t.truncate(path, size/int64(elemSize))
		},
	}
}

// truncate shrinks the table at path to rows rows.
func (t *Tree) truncate(path string, rows int64) error {
	return t.commit(path, func(tb *table.Table, tx *h5core.Tx) error {
		if rows > tb.NRows {
			return fmt.Errorf("%w: %d rows is more than the %d the table has", ErrInvalid, rows, tb.NRows)
		}
		return tb.Truncate(tx, rows)
	})
}

// commit runs one mutation of the table at path in a transaction of its
// own, on the table as the writer sees it, then shows the table's files
// afresh.
func (t *Tree) commit(path string, mutate func(tb *table.Table, tx *h5core.Tx) error) error {
	w := t.w
	w.mu.Lock()
	tb, err := t.commitLocked(path, mutate)
	gen, lt := w.rw.Generation(), w.live[path]
	w.mu.Unlock()
	if err != nil {
		return err
	}
	for _, err := range tb.Dropped {
		t.opt.Log.Printf("h5fs: %v", err)
	}
	t.refreshLazily(lt, gen, t.tableFresh)
	return nil
}

// commitLocked is commit's transaction, under w.mu.
func (t *Tree) commitLocked(path string, mutate func(tb *table.Table, tx *h5core.Tx) error) (*table.Table, error) {
	w := t.w
	tb, err := table.Open(w.rw.File(), path, table.Lenient)
	if err != nil {
		return nil, err
	}
	tx, err := w.rw.Begin()
	if err != nil {
		return nil, err
	}
	err = mutate(tb, tx)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil { // a failed commit (ENOSPC, EIO) is rolled back too
		if rerr := tx.Rollback(); rerr != nil {
			return nil, fmt.Errorf("%v (and rolling back: %v)", err, rerr)
		}
		return nil, err
	}
	return tb, nil
}

// tableFresh makes the files of the table at path (the live table lt's
// keys: its whole-table files and those in its directory) over a new
// snapshot of the file; w.mu is held.
func (t *Tree) tableFresh(path string) (map[string]*file, error) {
	f, err := t.w.rw.Snapshot(h5core.Options{ChunkCacheBytes: snapshotChunkCache})
	if err != nil {
		return nil, err
	}
	tb, err := table.Open(f, path, table.Lenient)
	if err != nil {
		return nil, err
	}
	o, err := f.Open(path)
	if err != nil {
		return nil, err
	}
	if id, err := arrowexport.StatFileID(t.f.Name()); err == nil {
		t.setFileID(&id)
	}
	fresh := map[string]*file{}
	if stem := t.w.live[path].stem; stem != "" {
		for _, e := range t.wholeTableEntries(stem, o, tb) {
			fresh["up/"+e.name] = e.file
		}
	}
	links, _ := o.Links() // none for a row table
	for _, c := range tb.Columns {
		for _, e := range t.columnEntries(o, tb, c, t.columnObject(o, links, c)) {
			fresh["dir/"+e.name] = e.file
		}
	}
	fresh["dir/"+metaName] = t.metaEntry(o, tb, nil).file
	return fresh, nil
}

// csvAppender parses the lines appended to a whole-table CSV and encodes
// their values as they arrive, so that a line the table cannot take fails
// the write that carried it; the rows commit as one append.
type csvAppender struct {
	t    *Tree
	path string
	tb   *table.Table // the table as the mount shows it: for encoding
	p    *arrowexport.CSVParser
	cols [][]byte // encoded rows not committed yet, one buffer per column
}

// newCSVAppender opens a whole-table CSV for appends; a table that cannot
// take rows (a column that cannot take values, say) is refused here, with
// EPERM.
func (t *Tree) newCSVAppender(path string) (Appender, error) {
	tb, err := table.Open(t.f, path, table.Lenient)
	if err != nil {
		return nil, err
	}
	if err := tb.Writable(); err != nil {
		return nil, fmt.Errorf("%w: %v", syscall.EPERM, err)
	}
	for _, c := range tb.Columns {
		if err := c.Writable(); err != nil {
			return nil, fmt.Errorf("%w: %v", syscall.EPERM, err)
		}
	}
	p, err := arrowexport.NewCSVParser(arrowexport.FromTable(tb))
	if err != nil {
		return nil, err
	}
	return &csvAppender{t: t, path: path, tb: tb, p: p, cols: make([][]byte, len(tb.Columns))}, nil
}

func (a *csvAppender) Write(b []byte) error {
	if err := a.p.Write(b); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return a.encode()
}

// encode encodes the rows parsed so far.
func (a *csvAppender) encode() error {
	bs := a.p.NewBatches()
	defer func() {
		for _, b := range bs {
			for _, x := range b.Arrays {
				x.Release()
			}
		}
	}()
	rows := 0
	for _, b := range bs {
		rows += len(b.Lines)
	}
	for j, c := range a.tb.Columns { // room by doubling: append's growth by a quarter copies each byte several times
		if need := len(a.cols[j]) + rows*c.Type.Size; need > cap(a.cols[j]) {
			a.cols[j] = slices.Grow(a.cols[j], max(need, 2*cap(a.cols[j]))-len(a.cols[j]))
		}
	}
	for _, b := range bs {
		for j, c := range a.tb.Columns {
			var err error
			a.cols[j], err = c.AppendEncoded(a.cols[j], b.Arrays[j])
			var re *table.RowError
			if errors.As(err, &re) {
				return fmt.Errorf("%w: line %d, column %q: %v", ErrInvalid, b.Lines[re.Row], c.Name, re.Err)
			}
			if err != nil {
				return fmt.Errorf("%w: %v", ErrInvalid, err)
			}
		}
	}
	return nil
}

func (a *csvAppender) Commit() error {
	if err := a.p.Flush(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := a.encode(); err != nil {
		return err
	}
	if len(a.cols) == 0 || len(a.cols[0]) == 0 {
		return nil
	}
	err := a.t.commit(a.path, func(tb *table.Table, tx *h5core.Tx) error { return tb.Append(tx, a.cols) })
	clear(a.cols)
	return err
}

func (a *csvAppender) Abort() {
	a.p.Release()
	clear(a.cols)
}

// rawAppender appends packed elements to one column's pending rows; the
// rows commit when every column of the table has the same number. Whole
// elements written inside the file rewrite that column's cells; they
// commit, as one update of the handle's writes, at the next commit.
type rawAppender struct {
	t        *Tree
	lt       *liveTable
	col      string
	elemSize int64
	cells    []rawCells // not committed yet, in the order written
}

// rawCells are packed elements written at byte offset off of a .raw file.
type rawCells struct {
	off int64
	p   []byte
}

func (a *rawAppender) Write(b []byte) error {
	a.t.w.mu.Lock()
	defer a.t.w.mu.Unlock()
	a.lt.pending[a.col] = append(a.lt.pending[a.col], b...)
	return nil
}

// Overwrite takes whole elements written inside the file.
func (a *rawAppender) Overwrite(p []byte, off int64) error {
	if off%a.elemSize != 0 || int64(len(p))%a.elemSize != 0 {
		return fmt.Errorf("%w: %d bytes at %d are not whole elements of %d bytes", ErrInvalid, len(p), off, a.elemSize)
	}
	a.cells = append(a.cells, rawCells{off, append([]byte(nil), p...)})
	return nil
}

// Commit rewrites the cells written inside the file, then appends the
// pending rows if every column has the same number of them; otherwise
// they wait for the other columns' files.
func (a *rawAppender) Commit() error {
	if err := a.commitCells(); err != nil {
		return err
	}
	a.t.w.mu.Lock()
	waiting := a.lt.widths != nil && !linedUp(a.lt.pending, a.lt.widths)
	a.t.w.mu.Unlock()
	if waiting { // no transaction for rows that cannot commit yet
		return nil
	}
	err := a.t.commit(a.lt.path, func(tb *table.Table, tx *h5core.Tx) error {
		if !linedUp(a.lt.pending, widthsOf(tb)) {
			return errWaiting
		}
		cols := make([][]byte, len(tb.Columns))
		for j, c := range tb.Columns {
			var err error
			if cols[j], err = c.EncodeRaw(a.lt.pending[c.Name]); err != nil {
				return fmt.Errorf("%w: %v", ErrInvalid, err)
			}
		}
		if err := tb.Append(tx, cols); err != nil {
			return err
		}
		emptyPending(a.lt.pending)
		return nil
	})
	if errors.Is(err, errWaiting) {
		return nil
	}
	return err
}

// commitCells commits the cells written inside the file as one update.
func (a *rawAppender) commitCells() error {
	if len(a.cells) == 0 {
		return nil
	}
	defer func() { a.cells = nil }()
	return a.t.commit(a.lt.path, func(tb *table.Table, tx *h5core.Tx) error {
		j := slices.IndexFunc(tb.Columns, func(c *table.Column) bool { return c.Name == a.col })
		if j < 0 {
			return fmt.Errorf("no column %s", a.col)
		}
		cells := make([]table.Cells, len(a.cells))
		for i, w := range a.cells {
			row, k := w.off/a.elemSize, int64(len(w.p))/a.elemSize
			if row+k > tb.NRows {
				return fmt.Errorf("%w: rows [%d, %d) written, the table has %d", ErrInvalid, row, row+k, tb.NRows)
			}
			v, err := tb.Columns[j].EncodeRaw(w.p)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrInvalid, err)
			}
			cells[i] = table.Cells{Column: j, Row: row, Values: v}
		}
		return tb.Update(tx, cells)
	})
}

func (a *rawAppender) Abort() { a.cells = nil }

// widthsOf returns the element size of each column of tb, by name.
func widthsOf(tb *table.Table) map[string]int {
	w := make(map[string]int, len(tb.Columns))
	for _, c := range tb.Columns {
		w[c.Name] = c.ElemSize
	}
	return w
}

// linedUp reports whether every column (widths: element sizes by name)
// has the same number of pending rows, and at least one.
func linedUp(pending map[string][]byte, widths map[string]int) bool {
	rows := -1
	for name, w := range widths {
		b := pending[name]
		if w == 0 || len(b)%w != 0 {
			return false
		}
		if r := len(b) / w; r == 0 || rows >= 0 && r != rows {
			return false
		} else {
			rows = r
		}
	}
	return rows > 0
}

// emptyPending empties the pending rows of every column once they are
// committed, keeping buffers of up to maxKeptPending bytes for the next
// rows.
func emptyPending(pending map[string][]byte) {
	for name, b := range pending {
		if cap(b) > maxKeptPending {
			delete(pending, name)
		} else {
			pending[name] = b[:0]
		}
	}
}

// maxKeptPending is the largest buffer of a column's pending rows kept
// from one commit to the next.
const maxKeptPending = 4 << 20

// errWaiting is a .raw commit whose columns do not line up yet.
var errWaiting = errors.New("columns do not have the same number of pending rows")

// PendingRows logs and drops the .raw rows that never lined up, at
// unmount.
func (t *Tree) PendingRows() {
	if t.w == nil {
		return
	}
	t.w.mu.Lock()
	defer t.w.mu.Unlock()
	for _, lt := range t.w.live {
		for col, b := range lt.pending {
			if len(b) > 0 {
				t.opt.Log.Printf("h5fs: %s: %d bytes appended to %s.raw never lined up with the other columns: dropped", lt.path, len(b), col)
			}
		}
	}
}

// snapshotChunkCache is the chunk cache of the snapshot a table's views
// read after a commit.
const snapshotChunkCache = 16 << 20
