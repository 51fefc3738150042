package arrowexport

import (
	"errors"
	"fmt"
	"io"
)

// View is one rendered file.
type View interface {
	// Ext is the file name extension of the format, without the dot:
	// "raw", "npy", "csv", "arrow" or "parquet".
	Ext() string
	// Size is the file size in bytes: exact when Exact reports true,
	// otherwise an upper-bound estimate that is never 0.
	Size() int64
	// Exact reports whether Size is the exact size.
	Exact() bool
	// Finalize makes Size exact, running a data pass if the format needs
	// one (or taking its result from the cache). It is safe to call more
	// than once and from several goroutines.
	Finalize() error
	// ReadAt reads len(p) bytes of the file at off, as io.ReaderAt does.
	// It finalizes the view first if needed.
	ReadAt(p []byte, off int64) (int, error)
}

// ErrUnsupported is returned (wrapped) for data a format cannot hold.
var ErrUnsupported = errors.New("arrowexport: not supported")

// clip bounds a read of len(p) bytes at off to a file of size bytes. It
// returns how many bytes to fill and the error ReadAt reports with them.
func clip(p []byte, off, size int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("arrowexport: negative offset %d", off)
	}
	if off >= size {
		return 0, io.EOF
	}
	if rest := size - off; int64(len(p)) > rest {
		return int(rest), io.EOF
	}
	return len(p), nil
}
