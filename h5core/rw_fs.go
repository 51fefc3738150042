package h5core

import (
	"io"
	"io/fs"
	"os"
	"syscall"
)

// FS is the storage a read-write file goes through: the operating system
// (OSFS) unless a test interposes, as h5core/crashtest does to record every
// write and fsync of a transaction.
type FS interface {
	// OpenFile opens a file as os.OpenFile does.
	OpenFile(name string, flag int, perm fs.FileMode) (FSFile, error)
	// Remove removes a file as os.Remove does.
	Remove(name string) error
	// SyncDir makes the creation and removal of the directory's entries
	// durable (fsync of the directory).
	SyncDir(dir string) error
}

// FSFile is an open file of an FS.
type FSFile interface {
	io.ReaderAt
	io.WriterAt
	// Sync makes the file's contents and size durable (fdatasync).
	Sync() error
	// Truncate changes the file's size.
	Truncate(size int64) error
	// Size returns the file's current size.
	Size() (int64, error)
	Close() error
}

// OSFS is the operating system's file system.
var OSFS FS = osFS{}

type osFS struct{}

type osFile struct{ *os.File }

func (osFS) OpenFile(name string, flag int, perm fs.FileMode) (FSFile, error) {
	fh, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return osFile{fh}, nil
}

func (osFS) Remove(name string) error { return os.Remove(name) }

func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Sync is fdatasync: the contents and the size, not the times, which
// would cost a file system journal commit for every in-place overwrite.
func (f osFile) Sync() error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error = syscall.EINTR
	if err := rc.Control(func(fd uintptr) {
		for serr == syscall.EINTR {
			serr = syscall.Fdatasync(int(fd))
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}

func (f osFile) Size() (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
