package h5core

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// Tx is a transaction on a file open for writing (RW.Begin). Its
// operations name datasets and objects by absolute path:
//
//	tx, _ := rw.Begin()
//	tx.SetExtent("/t/x", []uint64{n + k})         // within the maximum dimensions
//	tx.WriteAt("/t/x", elems, int64(n)*elemSize)  // the file's element bytes, as ReadAt returns them
//	tx.Barrier()                                  // everything so far durable
//	tx.SetAttribute("/t", "NROWS", nrowsLE)       // a commit point of the caller's own
//	tx.Commit()                                   // durable; the journal is gone
//
// Data written past the end of file (new chunks, new index nodes) goes to
// the disk at once; libhdf5 ignores bytes past the superblock's
// end-of-file address, so they change nothing until the commit.
// Overwrites of existing bytes (index entries, object header messages,
// attribute values, the superblock's end-of-file address) are kept in
// memory, where reads through RW.File see them, until Commit. Barrier is
// an ordering point among them: what was overwritten before it reaches
// the disk before anything overwritten after it. Commit then:
//
//  1. writes the chunk index structures that are rebuilt rather than
//     patched (B-trees) past the end of file,
//  2. saves the old content of every range about to be overwritten to
//     the rollback journal (FILE-journal, see Recover) and syncs it, while
//     it syncs the file, so everything new is durable (skipped when
//     nothing was written past the end of file),
//  3. writes the superblock's new end-of-file address and syncs, so no
//     pointer to the new space can precede it,
//  4. writes the other overwrites in the order they were made, one sync
//     per barrier interval (pointers to new structures last: a dataset's
//     layout and dataspace messages are rewritten after its index). The
//     writer adds ordering points of its own where one overwrite must be
//     durable before another for libhdf5 to read the file before any
//     recovery: a group's heap header before the pointer to the index
//     naming the new link, a variable-length dataset's index before its
//     grown extent (see Tx.flush); they cost a sync only to the
//     transactions that make them,
//  5. removes the journal: that is the commit point.
//
// The removal is not synced: a crash just after it may bring the journal
// back, and the next open then rolls back a committed transaction, which
// leaves the file as consistent as before it (RW.Close syncs it). Every
// checksummed block is rewritten whole. A crash before the commit point,
// or Rollback, or any write error (ENOSPC, EIO: the transaction is then
// failed and only Rollback is left) restores the file as it was at Begin,
// now or when the file is next opened. A caller that orders its own
// commit point, as HEP001's NROWS, issues Barrier before writing it: a
// crash before recovery then shows libhdf5 the old or the new value.
//
// Chunks go through the dataset's filter pipeline. A dataset that cannot
// grow (contiguous or compact layout, or a fixed maximum extent) is an
// error naming it, before anything is changed.
type Tx struct {
	w        *RW
	j        *journal
	oldSize  int64  // size of the file at Begin
	eoa      uint64 // end of allocated space, relative to the base
	beginEOA uint64 // eoa at Begin
	sbEOA    uint64 // the superblock's end-of-file address as on disk, relative to the base
	dsets    map[string]*dsWriter
	heap     *heapWriter // the global heap collection being filled (NewVlen)
	order    []*dsWriter // datasets in the order first touched
	err      error       // sticky: the first write error
	fresh    bool        // written past the old end of file since the last sync
	taken    []extent    // reused space (allocReusable), written in place
	freed    []extent    // space no longer used, reusable after the commit
	done     bool
}

// ErrTxDone is returned by operations on a committed or rolled-back
// transaction.
var ErrTxDone = errors.New("transaction already committed or rolled back")

// Begin starts a transaction. There is at most one at a time.
func (w *RW) Begin() (*Tx, error) {
	if w.tx != nil {
		return nil, fmt.Errorf("%s: a transaction is already open", w.name)
	}
	size, err := w.fh.Size()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.name, err)
	}
	rel := uint64(size) - w.f.base
	sbEOA := w.f.sb.relEOF()
	eoa := max(sbEOA, rel)
	w.salt++
	tx := &Tx{w: w, oldSize: size, eoa: eoa, beginEOA: eoa, sbEOA: sbEOA,
		dsets: map[string]*dsWriter{},
		j:     &journal{fsys: w.fsys, path: JournalPath(w.name), oldSize: size, fh: w.jfh, salt: w.salt, buf: &w.jbuf}}
	w.tx = tx
	return tx, nil
}

// check returns the error that stops an operation before it starts.
func (tx *Tx) check() error {
	if tx.done {
		return ErrTxDone
	}
	return tx.err
}

// fail records the first write error: the transaction can only be rolled
// back after it.
func (tx *Tx) fail(err error) error {
	if err != nil && tx.err == nil {
		tx.err = fmt.Errorf("%s: transaction failed, roll back: %w", tx.w.name, err)
	}
	return err
}

// alloc reserves n bytes at the end of the file and returns their
// address.
func (tx *Tx) alloc(n uint64) uint64 {
	a := tx.eoa
	tx.eoa += n
	if end := int64(tx.eoa + tx.w.f.base); end > tx.w.ov.size {
		tx.w.ov.size = end
		tx.w.f.size.Store(end)
	}
	return a
}

// write writes the bytes of a file structure, b, at relative address
// addr: at once past the old end of file, into the overlay (until the
// next barrier) before it. What the writer's File parsed from those bytes
// is forgotten (RW.forget).
func (tx *Tx) write(addr uint64, b []byte) error { return tx.put(addr, b, false) }

// writeData is write for raw data (chunk and contiguous storage bytes),
// from which no structure is parsed: only the decoded chunks are
// forgotten. Its overwrites keep b, not a copy: b must not change until
// the transaction ends.
func (tx *Tx) writeData(addr uint64, b []byte) error { return tx.put(addr, b, true) }

func (tx *Tx) put(addr uint64, b []byte, data bool) error {
	abs := int64(addr + tx.w.f.base)
	if abs+int64(len(b)) > tx.w.ov.size {
		return fmt.Errorf("%s: write of %d bytes at %#x past the allocated end of file", tx.w.name, len(b), addr)
	}
	n0 := uint64(len(b))
	if abs < tx.oldSize && !tx.inTaken(addr, uint64(len(b))) {
		n := min(int64(len(b)), tx.oldSize-abs)
		tx.w.ov.put(abs, b[:n], data)
		b, abs = b[n:], abs+n
	}
	if len(b) > 0 {
		if _, err := tx.w.fh.WriteAt(b, abs); err != nil {
			return tx.fail(fmt.Errorf("write %d bytes at %#x: %w", len(b), abs, err))
		}
		tx.fresh = true
	}
	tx.w.forget(addr, n0, data)
	return nil
}

// read reads n bytes at relative address addr as the transaction sees
// them.
func (tx *Tx) read(addr, n uint64) ([]byte, error) { return tx.w.f.read(addr, n) }

// Barrier is an ordering point: the overwrites made before it reach the
// disk, at Commit, before any made after it (see Tx). Writes that follow
// no overwrite cost nothing.
func (tx *Tx) Barrier() error {
	if err := tx.check(); err != nil {
		return err
	}
	if err := tx.fail(tx.flush()); err != nil {
		return err
	}
	tx.orderPoint()
	return nil
}

// orderPoint is an ordering point among the overwrites (Barrier without
// the datasets' deferred writes), for a writer whose new structure must
// be durable before the pointer to it: the overwrites made before it
// reach the disk, at Commit, a sync before those made after it.
func (tx *Tx) orderPoint() { tx.w.ov.epoch++ }

// flush writes what the datasets' index writers deferred, then their
// dataspaces (the pointer-like fields last). The extents that must not
// precede their index on the disk (dsWriter.spaceAfterIndex) follow an
// ordering point of their own, so only transactions growing such a
// dataset pay its sync.
func (tx *Tx) flush() error {
	var late []*dsWriter
	for _, d := range tx.order {
		if err := d.flushIndex(); err != nil {
			return err
		}
		if d.spaceAfterIndex() {
			late = append(late, d)
		} else if err := d.flushSpace(); err != nil {
			return err
		}
	}
	if len(late) > 0 {
		tx.orderPoint()
	}
	for _, d := range late {
		if err := d.flushSpace(); err != nil {
			return err
		}
	}
	return nil
}

// apply makes everything the transaction wrote durable, in the order
// described on Tx, up to the commit point.
func (tx *Tx) apply() error {
	if err := tx.flush(); err != nil {
		return err
	}
	var groups [][]pendingWrite // written in order, a sync after each
	if tx.eoa != tx.sbEOA {
		addr, b, err := tx.superblockEOF(tx.eoa)
		if err != nil {
			return err
		}
		groups = append(groups, []pendingWrite{{off: int64(addr + tx.w.f.base), data: b}})
	}
	ov := tx.w.ov
	fh := tx.w.fh
	spans := make([]byteRange, 0, len(ov.pending)+1)
	for i, p := range ov.pending {
		if i == 0 || p.epoch != ov.pending[i-1].epoch {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], p)
	}
	for _, g := range groups {
		for _, p := range g {
			spans = append(spans, byteRange{p.off, p.off + int64(len(p.data))})
		}
	}
	// The new bytes and the journal become durable together: both must
	// be before the first overwrite.
	if err := tx.j.save(fh, spans, tx.fresh || tx.eoa != tx.sbEOA); err != nil {
		return err
	}
	tx.fresh = false
	for _, g := range groups {
		for _, p := range g {
			if _, err := fh.WriteAt(p.data, p.off); err != nil {
				return fmt.Errorf("write %d bytes at %#x: %w", len(p.data), p.off, err)
			}
		}
		if err := fh.Sync(); err != nil {
			return fmt.Errorf("sync: %w", err)
		}
	}
	ov.pending, ov.epoch = nil, 0
	tx.sbEOA = tx.eoa
	tx.w.f.sb.eofAddr = tx.eoa + tx.w.f.sb.baseAddr
	return nil
}

// Commit makes the transaction durable and ends it.
func (tx *Tx) Commit() error {
	if err := tx.check(); err != nil {
		return err
	}
	if err := tx.fail(tx.apply()); err != nil {
		return err
	}
	// A transaction that freed space removes its journal, whose removal
	// the reuse of that space makes durable first (allocReusable); the
	// others keep the file for the next transaction.
	journaled := tx.j.active
	err := tx.j.finish(len(tx.freed) == 0)
	tx.w.jfh = tx.j.fh
	if err := tx.fail(err); err != nil {
		return err
	}
	tx.w.space.unsynced = tx.w.space.unsynced || journaled && tx.j.fh == nil
	tx.w.space.commit(tx.freed)
	tx.done = true
	tx.w.tx = nil
	// What the writer's File holds was parsed from the overlay, which is
	// now the file: it stays (every write forgot what it changed).
	return nil
}

// Rollback undoes the transaction: the file is as it was at Begin. If
// restoring fails the journal stays, and the next open rolls back.
func (tx *Tx) Rollback() error {
	if tx.done {
		return ErrTxDone
	}
	tx.done = true
	w := tx.w
	w.tx = nil
	w.ov.pending, w.ov.epoch = nil, 0
	w.space.giveBack(tx.taken, tx.beginEOA)
	var err error
	active := tx.j.active
	w.jfh = nil
	if active {
		tx.j.close(false)
		_, err = RecoverFS(w.fsys, w.name, nil)
	} else {
		err = tx.j.close(true) // an earlier commit's, wiped: no journal is left
		if terr := w.fh.Truncate(tx.oldSize); err == nil {
			err = terr
		}
		if err == nil {
			err = w.fh.Sync()
		}
	}
	if err != nil {
		return fmt.Errorf("%s: roll back: %w", w.name, err)
	}
	return w.load()
}

// pendingWrite is an overwrite waiting for the commit.
type pendingWrite struct {
	off   int64 // absolute file offset
	data  []byte
	epoch int // the ordering points before it
}

// overlay is the writer's io.ReaderAt: the file with the pending
// overwrites laid over it, zeros where space is allocated but not yet
// written.
type overlay struct {
	fh      FSFile
	size    int64 // allocated size
	pending []pendingWrite
	epoch   int // ordering points so far in the transaction (orderPoint)
	// readEnd is the end of the furthest read since the File's caches
	// were last cleared: nothing the File holds was parsed from bytes
	// past it (RW.forget).
	readEnd atomic.Int64
}

// put adds an overwrite; one of the same range since the last barrier
// replaces its data. It keeps b itself when keep is set (raw data, which
// its writer leaves unchanged until the transaction ends), else a copy.
func (o *overlay) put(off int64, b []byte, keep bool) {
	if !keep {
		b = append([]byte(nil), b...)
	}
	for i := range o.pending {
		if p := &o.pending[i]; p.off == off && len(p.data) == len(b) && p.epoch == o.epoch {
			p.data = b
			return
		}
	}
	o.pending = append(o.pending, pendingWrite{off, b, o.epoch})
}

func (o *overlay) ReadAt(p []byte, off int64) (int, error) {
	if off >= o.size {
		return 0, io.EOF
	}
	for end := off + int64(len(p)); ; {
		if cur := o.readEnd.Load(); cur >= end || o.readEnd.CompareAndSwap(cur, end) {
			break
		}
	}
	want := p
	if int64(len(p)) > o.size-off {
		p = p[:o.size-off]
	}
	n, err := o.fh.ReadAt(p, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, err
	}
	clear(p[n:])
	for _, w := range o.pending {
		lo, hi := max(off, w.off), min(off+int64(len(p)), w.off+int64(len(w.data)))
		if lo < hi {
			copy(p[lo-off:hi-off], w.data[lo-w.off:hi-w.off])
		}
	}
	if len(p) < len(want) {
		return len(p), io.EOF
	}
	return len(p), nil
}

// forget drops what the writer's File parsed from the n bytes at
// relative address addr, which a transaction is changing: the decoded
// chunks always; for a structure's bytes also the object header (and its
// group's links) when they lie inside one that the File holds, nothing
// more when no read reached them (new space), and else everything
// (resetCaches). So the structures a
// commit did not change stay parsed for the next transaction.
func (w *RW) forget(addr, n uint64, data bool) {
	f := w.f
	f.cache = newChunkCache(f.cache.budget) // it also holds chunks never read (fill)
	if data || int64(addr+f.base) >= w.ov.readEnd.Load() {
		return
	}
	f.mu.Lock()
	var hit []uint64
	if len(f.headers) <= maxForgetScan {
		for a, oh := range f.headers {
			if oh.holds(addr, n) {
				hit = append(hit, a)
			}
		}
	}
	for _, a := range hit {
		delete(f.headers, a)
		delete(f.links, a)
	}
	f.mu.Unlock()
	if len(hit) == 0 {
		w.ov.readEnd.Store(0)
		f.resetCaches()
	}
}

// maxForgetScan is the most object headers forget looks through for the
// one a write changes; with more held it forgets everything.
const maxForgetScan = 4096

// holds reports whether the n bytes at addr lie inside one block of the
// header: its first block with the prefix (and a version 2 header's
// checksum), or a continuation block.
func (oh *objectHeader) holds(addr, n uint64) bool {
	for i, c := range oh.chunks {
		start, end := c.addr, c.addr+c.size
		if i == 0 {
			start = oh.addr
			if oh.version == 2 {
				end += 4
			}
		}
		if addr >= start && addr+n <= end && addr+n >= addr {
			return true
		}
	}
	return false
}

// resetCaches forgets every decoded structure: the writer changed the
// file under them.
func (f *File) resetCaches() {
	f.mu.Lock()
	f.gheaps = map[uint64]*globalHeap{}
	f.headers = map[uint64]*objectHeader{}
	f.links = map[uint64][]Link{}
	f.fheaps = map[uint64]*fractalHeap{}
	f.mu.Unlock()
	f.cache = newChunkCache(f.cache.budget)
}
