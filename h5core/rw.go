package h5core

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// RW is an HDF5 file open for reading and writing, the write side of
// h5core. Changes are made in transactions (Begin); see Tx for the API
// and the order in which a transaction's writes reach the disk.
//
// Opening takes the advisory lock libhdf5 takes (an exclusive flock,
// unless HDF5_USE_FILE_LOCKING is FALSE), so h5py cannot open the file
// while it is open here and OpenRW refuses a file libhdf5 has open. It
// refuses a superblock v3 file whose "open for write" (or SWMR) flag
// another writer left set, and never sets that flag itself: a crash must
// not make libhdf5 refuse the file. A hot rollback journal is rolled back
// first (Recover). A file with a user block is written like any other:
// every address is relative to the superblock's base (the end-of-file
// address, which libhdf5 stores absolute, too), and the user block is
// never written.
//
// An RW is not safe for concurrent use; readers of the same file should
// use their own File (Snapshot) and reopen it after each commit.
type RW struct {
	fsys FS
	name string
	fh   FSFile
	ov   *overlay
	f    *File // the writer's view: reads see the transaction's writes
	tx   *Tx
	jfh  FSFile // the rollback journal kept between transactions (journal.finish), or nil
	salt uint32 // the last transaction's journal salt
	jbuf []byte // the journal's write buffer (journal.buf)

	space freeSpace // space freed by commits, for reuse (space.go)
}

// RWOptions tune OpenRWWith.
type RWOptions struct {
	// FS is the storage to go through; nil means OSFS.
	FS FS
	// NoLock skips the advisory lock (tests that interpose an FS).
	NoLock bool
}

// ErrLocked is returned (wrapped) when another process holds the file's
// lock or left its superblock's write-access flag set.
var ErrLocked = errors.New("file is open for writing elsewhere")

// OpenRW opens the named HDF5 file for reading and writing.
func OpenRW(name string) (*RW, error) { return OpenRWWith(name, RWOptions{}) }

// OpenRWWith is OpenRW with options.
func OpenRWWith(name string, opt RWOptions) (*RW, error) {
	fsys := opt.FS
	if fsys == nil {
		fsys = OSFS
	}
	fh, err := fsys.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if !opt.NoLock {
		if err := lockFile(name, fh); err != nil {
			fh.Close()
			return nil, err
		}
	}
	// Roll back under the lock: nobody else is writing now.
	if _, err := RecoverFS(fsys, name, os.Stderr); err != nil {
		fh.Close()
		return nil, err
	}
	w := &RW{fsys: fsys, name: name, fh: fh}
	w.salt = rand.Uint32()
	if err := w.load(); err != nil {
		fh.Close()
		return nil, err
	}
	if err := w.checkWritable(); err != nil {
		fh.Close()
		return nil, err
	}
	return w, nil
}

// load (re)reads the file through a fresh overlay.
func (w *RW) load() error {
	size, err := w.fh.Size()
	if err != nil {
		return fmt.Errorf("%s: %w", w.name, err)
	}
	w.ov = &overlay{fh: w.fh, size: size}
	f, err := NewFile(w.ov, size, w.name, Options{ChunkCacheBytes: 4 << 20})
	if err != nil {
		return err
	}
	w.f = f
	return nil
}

// lockFile takes libhdf5's lock: flock(LOCK_EX|LOCK_NB), skipped when
// HDF5_USE_FILE_LOCKING is FALSE and failures of an unsupported lock
// ignored when it is BEST_EFFORT, as libhdf5 does.
func lockFile(name string, fh FSFile) error {
	env := strings.ToUpper(os.Getenv("HDF5_USE_FILE_LOCKING"))
	if env == "FALSE" || env == "0" {
		return nil
	}
	fd, ok := fh.(interface{ Fd() uintptr })
	if !ok {
		return nil
	}
	err := syscall.Flock(int(fd.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return fmt.Errorf("%s: %w (another process holds its HDF5 file lock)", name, ErrLocked)
	case env == "BEST_EFFORT" && errors.Is(err, syscall.ENOSYS):
		return nil
	}
	return fmt.Errorf("%s: lock: %w", name, err)
}

// checkWritable refuses what h5core cannot write safely.
func (w *RW) checkWritable() error {
	sb := &w.f.sb
	if sb.version >= 3 {
		b, err := w.f.read(11, 1)
		if err != nil {
			return err
		}
		if b[0]&(1|4) != 0 {
			return fmt.Errorf("%s: %w: its superblock's write-access flag is set (a writer has it open or crashed; h5clear -s clears it)", w.name, ErrLocked)
		}
	}
	if sb.eofAddr == undefAddr || sb.eofAddr < sb.baseAddr {
		return fmt.Errorf("%s: superblock end-of-file address %#x lies before its base address %#x", w.name, sb.eofAddr, sb.baseAddr)
	}
	if w.f.sb.extAddr != undefAddr {
		oh, err := w.f.objectHeader(w.f.sb.extAddr)
		if err != nil {
			return err
		}
		if m := oh.find(msgFileSpaceInfo); m != nil {
			return fmt.Errorf("%s: persistent free-space management (file space info message): %w for writing", w.name, ErrUnsupported)
		}
	}
	return nil
}

// Name returns the file name.
func (w *RW) Name() string { return w.name }

// File returns the writer's view of the file: reads see the writes of
// the open transaction. It is for the goroutine that writes; its caches
// are reset by every change.
func (w *RW) File() *File { return w.f }

// Snapshot opens a new read-only File over the bytes on disk, for
// readers on other goroutines. Open one after each Commit.
func (w *RW) Snapshot(opt Options) (*File, error) {
	size, err := w.fh.Size()
	if err != nil {
		return nil, err
	}
	return NewFile(w.fh, size, w.name, opt)
}

// Close rolls back an open transaction and closes the file (releasing
// the lock).
func (w *RW) Close() error {
	var err error
	if w.tx != nil {
		err = w.tx.Rollback()
	}
	if w.jfh != nil { // wiped by the last commit
		j := &journal{fsys: w.fsys, path: JournalPath(w.name), fh: w.jfh}
		if jerr := j.close(true); err == nil {
			err = jerr
		}
		w.jfh = nil
	}
	if serr := w.fsys.SyncDir(filepath.Dir(JournalPath(w.name))); err == nil {
		err = serr // the last commit's removal of its journal
	}
	if cerr := w.fh.Close(); err == nil {
		err = cerr
	}
	return err
}
