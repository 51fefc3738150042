package h5core

import (
	"errors"
	"fmt"
)

// FormatError reports a structure in an HDF5 file that is not what the
// format specification allows. It names where the problem is: the file
// address of the structure and, when known, the object path.
type FormatError struct {
	File   string // file name, when known
	Path   string // HDF5 object path, when known
	Offset int64  // file offset of the offending structure, or -1
	What   string // what was wrong or expected
}

func (e *FormatError) Error() string {
	s := ""
	if e.File != "" {
		s = e.File + ": "
	}
	if e.Path != "" {
		s += e.Path + ": "
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf("at offset %#x: ", e.Offset)
	}
	return s + e.What
}

// ErrUnsupported is wrapped by errors about valid HDF5 features that h5core
// does not implement (for example an unregistered filter).
var ErrUnsupported = errors.New("unsupported")

// formatErr builds a FormatError at a relative file address.
func formatErr(addr uint64, format string, args ...any) error {
	off := int64(-1)
	if addr != undefAddr && addr < 1<<62 {
		off = int64(addr)
	}
	return &FormatError{Offset: off, What: fmt.Sprintf(format, args...)}
}

// withPath returns err annotated with an object path and file name, unless
// it already names them.
func withPath(err error, file, path string) error {
	if err == nil {
		return nil
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		c := *fe
		if c.Path == "" {
			c.Path = path
		}
		if c.File == "" {
			c.File = file
		}
		return &c
	}
	var oe *objectError
	if errors.As(err, &oe) {
		return err
	}
	return &objectError{file: file, path: path, err: err}
}

// objectError annotates an error that is not a FormatError with the file
// and object it concerns.
type objectError struct {
	file, path string
	err        error
}

func (e *objectError) Error() string { return e.file + ": " + e.path + ": " + e.err.Error() }
func (e *objectError) Unwrap() error { return e.err }
