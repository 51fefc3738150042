package fsnode

import "io"

// View is the content of one generated file, as the renderers produce it:
// a size (exact, or an estimate until Finalize has run its data pass) and
// random-access reads that return the same bytes every time.
type View interface {
	Size() int64
	Exact() bool
	ReadAt(p []byte, off int64) (int, error)
	Finalize() error
}

// bytesView serves a small document held in memory (.meta.json).
type bytesView []byte

func (b bytesView) Size() int64     { return int64(len(b)) }
func (b bytesView) Exact() bool     { return true }
func (b bytesView) Finalize() error { return nil }

func (b bytesView) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
