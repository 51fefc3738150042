package h5core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// The rollback journal (the SQLite model). Before a transaction overwrites
// any byte that existed when it began, the old content of that range goes
// to FILE-journal beside the file and is fsynced; bytes past the old end of
// the file are not journaled, the journal's header records the old size
// instead. Layout, all little-endian:
//
//	header:  "H5FSJRNL" | version u32 (1 to 3) | salt u32 | old size u64 | lookup3 u32 | pad u32
//	records: offset u64 | length u32 | period u32 | old bytes | lookup3 u32 (seeded with the salt) of the preceding fields
//
// The old bytes are the range's length of bytes, or, when period is not
// 0, the first period bytes of a range that repeats them (a fill value:
// the rows past NROWS of a preallocated chunk that an append overwrites
// hold it, and are journaled in a few bytes instead of all of theirs).
// Versions 1 and 2 have no period field (every record holds all its
// bytes).
//
// A journal is hot when its header is intact. Rolling back writes the
// intact records back in reverse order (each holds the content the range
// had before the transaction), truncates the file to the old size, syncs,
// and removes the journal. A torn last record was never acted on: its
// range is only overwritten after the record is durable.
//
// An RW keeps its journal file from one transaction to the next (as
// SQLite's persistent journal mode does): a commit wipes the header
// instead of removing the file, and the next transaction writes its own
// header and records over it, so a commit costs no file creation,
// directory sync and removal. Each transaction's header carries a salt of
// its own (version 2; version 1 is salt 0), which seeds its records'
// checksums: the records of an earlier transaction left past the end of
// this one's do not check, and end the journal as a torn record does.

const (
	journalMagic      = "H5FSJRNL"
	journalHeaderSize = 32
	journalVersion    = 3
	journalRecordHead = 16 // version 3; 12 before
	// maxJournalRecord bounds one record when reading a journal back.
	maxJournalRecord = 1 << 30
	// maxJournalPeriod is the longest repeating unit save looks for, and
	// minRepeated the fewest bytes it looks for one in.
	maxJournalPeriod = 64
	minRepeated      = 256
)

// JournalPath returns the path of the rollback journal of an HDF5 file.
func JournalPath(name string) string { return name + "-journal" }

// journal is the rollback journal of one transaction.
type journal struct {
	fsys    FS
	path    string
	fh      FSFile      // nil until the first record, unless kept from an earlier transaction
	active  bool        // this transaction's header is written (or being written): fh holds its records
	salt    uint32      // this transaction's
	end     int64       // bytes of this transaction written to fh
	oldSize int64       // size of the data file when the transaction began
	saved   []byteRange // ranges of the data file already journaled, sorted
	buf     *[]byte     // the RW's buffer for what save writes, reused from one save to the next
}

// maxJournalBuf is the largest buffer save keeps for the next one.
const maxJournalBuf = 4 << 20

// maxKeptJournal is the largest journal a commit wipes and keeps for the
// next transaction; a larger one is removed, to give its space back.
const maxKeptJournal = 16 << 20

// byteRange is a byte range [off, end) of a file.
type byteRange struct{ off, end int64 }

// uncovered returns the parts of s that no saved byteRange covers.
func (j *journal) uncovered(s byteRange) []byteRange {
	var out []byteRange
	cur := s.off
	i := sort.Search(len(j.saved), func(i int) bool { return j.saved[i].end > cur })
	for ; i < len(j.saved) && cur < s.end; i++ {
		v := j.saved[i]
		if v.off > cur {
			out = append(out, byteRange{cur, min(v.off, s.end)})
		}
		cur = max(cur, v.end)
	}
	if cur < s.end {
		out = append(out, byteRange{cur, s.end})
	}
	return out
}

// add records s as journaled, keeping saved sorted and merged.
func (j *journal) add(s byteRange) {
	j.saved = append(j.saved, s)
	sort.Slice(j.saved, func(a, b int) bool { return j.saved[a].off < j.saved[b].off })
	out := j.saved[:1]
	for _, v := range j.saved[1:] {
		if last := &out[len(out)-1]; v.off <= last.end {
			last.end = max(last.end, v.end)
		} else {
			out = append(out, v)
		}
	}
	j.saved = out
}

// save journals the old content (read from data) of every range in
// spans that lies before the old end of file and was not journaled yet,
// and makes the journal durable, and with it data when syncData is set.
// It returns once the ranges may be overwritten.
func (j *journal) save(data FSFile, spans []byteRange, syncData bool) error {
	var todo []byteRange
	for _, s := range spans {
		s.end = min(s.end, j.oldSize)
		if s.off >= s.end {
			continue
		}
		todo = append(todo, j.uncovered(s)...)
	}
	if len(todo) == 0 {
		if syncData {
			return syncFile(data)
		}
		return nil
	}
	created := false
	if j.fh == nil {
		fh, err := j.fsys.OpenFile(j.path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("create rollback journal: %w", err)
		}
		j.fh, created = fh, true
	}
	size := 0
	if !j.active {
		size = journalHeaderSize
	}
	for _, s := range todo {
		size += journalRecordHead + int(s.end-s.off) + 4
	}
	var buf []byte // the header and records, written at once
	if j.buf != nil {
		buf = *j.buf
	}
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	if j.buf != nil && size <= maxJournalBuf {
		*j.buf = buf
	}
	used := 0 // a repeating range's record takes less than size counts
	if !j.active {
		hdr := buf[:journalHeaderSize]
		copy(hdr, journalMagic)
		binary.LittleEndian.PutUint32(hdr[8:], journalVersion)
		binary.LittleEndian.PutUint32(hdr[12:], j.salt)
		binary.LittleEndian.PutUint64(hdr[16:], uint64(j.oldSize))
		binary.LittleEndian.PutUint32(hdr[24:], lookup3(hdr[:24], 0))
		binary.LittleEndian.PutUint32(hdr[28:], 0)
		used, j.end = journalHeaderSize, 0
	}
	for _, s := range todo {
		n := s.end - s.off
		rec := buf[used:]
		old := rec[journalRecordHead : journalRecordHead+n]
		if _, err := data.ReadAt(old, s.off); err != nil {
			return fmt.Errorf("read bytes to journal at %#x: %w", s.off, err)
		}
		period := repeatPeriod(old)
		kept := n
		if period > 0 {
			kept = int64(period) // old begins with the unit
		}
		binary.LittleEndian.PutUint64(rec, uint64(s.off))
		binary.LittleEndian.PutUint32(rec[8:], uint32(n))
		binary.LittleEndian.PutUint32(rec[12:], uint32(period))
		binary.LittleEndian.PutUint32(rec[journalRecordHead+kept:], lookup3(rec[:journalRecordHead+kept], j.salt))
		used += journalRecordHead + int(kept) + 4
	}
	buf = buf[:used]
	j.active = true // from here on a rollback goes through the journal file
	if _, err := j.fh.WriteAt(buf, j.end); err != nil {
		return fmt.Errorf("write rollback journal: %w", err)
	}
	j.end += int64(len(buf))
	// Each sync waits for the disk: they are independent, so they wait
	// together.
	syncs := []func() error{func() error {
		if err := j.fh.Sync(); err != nil {
			return fmt.Errorf("sync rollback journal: %w", err)
		}
		return nil
	}}
	if created {
		syncs = append(syncs, func() error {
			if err := j.fsys.SyncDir(filepath.Dir(j.path)); err != nil {
				return fmt.Errorf("sync directory of rollback journal: %w", err)
			}
			return nil
		})
	}
	if syncData {
		syncs = append(syncs, func() error { return syncFile(data) })
	}
	if err := together(syncs); err != nil {
		return err
	}
	for _, s := range todo {
		j.add(s)
	}
	return nil
}

// repeatPeriod returns the length of the shortest unit, of at most
// maxJournalPeriod bytes, that b repeats (b[i] == b[i%p] for every i), or
// 0 when b repeats none or is shorter than minRepeated.
func repeatPeriod(b []byte) int {
	if len(b) < minRepeated {
		return 0
	}
	for p := 1; p <= maxJournalPeriod; p++ {
		if bytes.Equal(b[p:], b[:len(b)-p]) {
			return p
		}
	}
	return 0
}

// syncFile syncs the data file.
func syncFile(data FSFile) error {
	if err := data.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}

// together runs fns at once and returns the first error.
func together(fns []func() error) error {
	errs := make(chan error, len(fns))
	for _, f := range fns[1:] {
		go func() { errs <- f() }()
	}
	err := fns[0]()
	for range fns[1:] {
		if e := <-errs; err == nil {
			err = e
		}
	}
	return err
}

// finish is the commit point of a transaction that journaled: its header
// wiped, the file kept for the next transaction (keep), or the file
// removed. Either is left for the file system to make durable (RW.Close
// syncs the directory): if a crash undoes it, the next open rolls back a
// committed transaction, to the consistent file it began with. The next
// transaction's header is synced before it is relied on, which makes this
// wipe durable too (a new file's creation is synced with it).
func (j *journal) finish(keep bool) error {
	if !j.active {
		return nil
	}
	j.active, j.saved = false, nil
	if keep && j.end <= maxKeptJournal {
		if _, err := j.fh.WriteAt(make([]byte, len(journalMagic)), 0); err != nil {
			return fmt.Errorf("wipe rollback journal: %w", err)
		}
		return nil
	}
	return j.close(true)
}

// close closes the journal file, and removes it when remove is set.
func (j *journal) close(remove bool) error {
	if j.fh == nil {
		return nil
	}
	j.fh.Close()
	j.fh, j.active = nil, false
	if !remove {
		return nil
	}
	if err := j.fsys.Remove(j.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove rollback journal: %w", err)
	}
	return nil
}

// Recover rolls back an interrupted transaction on the named file: if
// its rollback journal is hot, the old bytes are written back, the file is
// truncated to its old size and the journal is removed, and Recover says
// so on stderr. It reports whether it rolled anything back. Every h5fs
// command that opens a file calls it first (OpenRW does). It takes
// libhdf5's lock first: a journal whose file another process holds open
// for writing belongs to a live transaction and is left alone (ErrLocked).
func Recover(name string) (bool, error) {
	if _, err := os.Stat(JournalPath(name)); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	fh, err := OSFS.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return false, fmt.Errorf("%s: open to roll back: %w", name, err)
	}
	defer fh.Close()
	if err := lockFile(name, fh); err != nil {
		return false, err
	}
	return RecoverFS(OSFS, name, os.Stderr)
}

// RecoverForRead is Recover for a reader about to open the named file:
// the journal of a live transaction (ErrLocked) is the writer's to
// finish, and the reader goes on; any other failure to roll back is an
// error, since the file may hold a half-written transaction.
func RecoverForRead(name string) error {
	if _, err := Recover(name); err != nil && !errors.Is(err, ErrLocked) {
		return err
	}
	return nil
}

// RecoverFS is Recover through fsys, logging to log (nil: silent),
// without taking the lock: the caller holds it.
func RecoverFS(fsys FS, name string, log io.Writer) (bool, error) {
	jpath := JournalPath(name)
	jf, err := fsys.OpenFile(jpath, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: open rollback journal: %w", name, err)
	}
	recs, oldSize, hot, err := readJournal(jf)
	jf.Close()
	if err != nil {
		return false, fmt.Errorf("%s: read rollback journal: %w", name, err)
	}
	if hot {
		df, err := fsys.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			return false, fmt.Errorf("%s: open to roll back: %w", name, err)
		}
		err = rollBack(df, recs, oldSize)
		if cerr := df.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return false, fmt.Errorf("%s: roll back interrupted write: %w", name, err)
		}
	}
	if err := fsys.Remove(jpath); err != nil {
		return false, fmt.Errorf("%s: remove rollback journal: %w", name, err)
	}
	if err := fsys.SyncDir(filepath.Dir(jpath)); err != nil {
		return false, fmt.Errorf("%s: sync directory: %w", name, err)
	}
	if hot && log != nil {
		fmt.Fprintf(log, "h5fs: %s: rolled back an interrupted write (hot journal %s: %d ranges restored, size %d)\n", name, jpath, len(recs), oldSize)
	}
	return hot, nil
}

// headerIntact reports whether hdr, the first journalHeaderSize bytes of
// a journal, is an intact header: the journal is hot.
func headerIntact(hdr []byte) bool {
	return string(hdr[:8]) == journalMagic && binary.LittleEndian.Uint32(hdr[24:]) == lookup3(hdr[:24], 0)
}

// JournalHot reports whether the named HDF5 file's rollback journal is
// hot: a transaction is under way, or was interrupted and awaits
// Recover. It only reads the journal's header.
func JournalHot(name string) bool {
	f, err := os.Open(JournalPath(name))
	if err != nil {
		return false
	}
	defer f.Close()
	hdr := make([]byte, journalHeaderSize)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return false
	}
	return headerIntact(hdr)
}

// journalRecord is one range of old bytes: n bytes at off, data or, when
// shorter, the unit they repeat.
type journalRecord struct {
	off  int64
	n    int64
	data []byte
}

// readJournal returns the intact records of a journal and the old size;
// hot is false when the header itself is torn (nothing was overwritten).
func readJournal(jf FSFile) (recs []journalRecord, oldSize int64, hot bool, err error) {
	size, err := jf.Size()
	if err != nil {
		return nil, 0, false, err
	}
	hdr := make([]byte, journalHeaderSize)
	if size < journalHeaderSize {
		return nil, 0, false, nil
	}
	if _, err := jf.ReadAt(hdr, 0); err != nil {
		return nil, 0, false, err
	}
	if !headerIntact(hdr) {
		return nil, 0, false, nil
	}
	var salt uint32
	headLen := int64(journalRecordHead)
	switch v := binary.LittleEndian.Uint32(hdr[8:]); v {
	case 1, 2:
		headLen = 12 // no period
		if v == 2 {
			salt = binary.LittleEndian.Uint32(hdr[12:])
		}
	case journalVersion:
		salt = binary.LittleEndian.Uint32(hdr[12:])
	default:
		return nil, 0, false, fmt.Errorf("journal version %d unknown", v)
	}
	oldSize = int64(binary.LittleEndian.Uint64(hdr[16:]))
	for pos := int64(journalHeaderSize); pos+headLen+4 <= size; {
		head := make([]byte, headLen)
		if _, err := jf.ReadAt(head, pos); err != nil {
			return nil, 0, false, err
		}
		n := int64(binary.LittleEndian.Uint32(head[8:]))
		kept := n
		if headLen > 12 {
			if p := int64(binary.LittleEndian.Uint32(head[12:])); p > 0 {
				kept = p
			}
		}
		if n > maxJournalRecord || kept > n || pos+headLen+kept+4 > size {
			break // torn
		}
		rec := make([]byte, headLen+kept+4)
		if _, err := jf.ReadAt(rec, pos); err != nil {
			return nil, 0, false, err
		}
		if binary.LittleEndian.Uint32(rec[headLen+kept:]) != lookup3(rec[:headLen+kept], salt) {
			break // torn
		}
		recs = append(recs, journalRecord{int64(binary.LittleEndian.Uint64(rec)), n, rec[headLen : headLen+kept]})
		pos += headLen + kept + 4
	}
	return recs, oldSize, true, nil
}

// rollBack writes the records back, newest first, truncates and syncs.
func rollBack(df FSFile, recs []journalRecord, oldSize int64) error {
	for i := len(recs) - 1; i >= 0; i-- {
		if err := recs[i].restore(df); err != nil {
			return err
		}
	}
	if err := df.Truncate(oldSize); err != nil {
		return err
	}
	return df.Sync()
}

// restore writes the record's old bytes back: a repeated unit in pieces
// of at most maxRestorePiece bytes.
func (r journalRecord) restore(df FSFile) error {
	if int64(len(r.data)) == r.n {
		_, err := df.WriteAt(r.data, r.off)
		return err
	}
	piece := make([]byte, min(r.n, maxRestorePiece))
	for at := int64(0); at < r.n; at += int64(len(piece)) {
		p := piece[:min(int64(len(piece)), r.n-at)]
		fillRepeat(p, r.data, at)
		if _, err := df.WriteAt(p, r.off+at); err != nil {
			return err
		}
	}
	return nil
}

// maxRestorePiece bounds the memory of restoring a repeated unit.
const maxRestorePiece = 1 << 20
