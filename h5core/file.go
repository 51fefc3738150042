package h5core

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// File is an open HDF5 file. It reads through an io.ReaderAt with
// positioned reads and never loads the whole file. A File is safe for
// concurrent use.
type File struct {
	r    io.ReaderAt
	name string
	size atomic.Int64 // bytes known to be available through r (see holds)
	base uint64
	so   int // size of offsets
	sl   int // size of lengths

	sb       superblock
	sohm     []sohmIndex
	cache    *chunkCache
	maxChunk int64 // Options.MaxChunkBytes

	closer io.Closer
	opt    Options        // as opened, for the files of external links
	ext    *externalFiles // files external links led to

	mu      sync.Mutex
	gheaps  map[uint64]*globalHeap // global heap collections by address
	headers map[uint64]*objectHeader
	links   map[uint64][]Link       // sorted links by group header address
	fheaps  map[uint64]*fractalHeap // fractal heap headers by address
}

// Options tune how a file is read.
type Options struct {
	// ChunkCacheBytes is the byte budget of the decoded-chunk cache shared by
	// all datasets of the file. Zero means 64 MiB.
	ChunkCacheBytes int64
	// MaxChunkBytes is the largest decoded chunk accepted; datasets with
	// larger chunks are refused (reading them fails, naming the limit).
	// Zero means DefaultMaxChunkBytes.
	MaxChunkBytes int64
}

// DefaultMaxChunkBytes is the default Options.MaxChunkBytes: 256 MiB.
// It bounds the memory one chunk can take (decoded, it is cached whole,
// even beyond the cache budget, so that a scan decodes it once): a chunk of
// a few kilobytes on disk may claim to decode to gigabytes. libhdf5's own
// limit is 4 GiB; real files stay far below 256 MiB (h5py picks chunks of
// at most 1 MiB).
const DefaultMaxChunkBytes = 256 << 20

// Open opens the named HDF5 file for reading.
func Open(name string) (*File, error) { return OpenWith(name, Options{}) }

// OpenWith opens the named HDF5 file for reading with the given options.
// A hot rollback journal beside the file is rolled back first
// (RecoverForRead).
func OpenWith(name string, opt Options) (*File, error) {
	if err := RecoverForRead(name); err != nil {
		return nil, err
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	f, err := NewFile(fh, st.Size(), name, opt)
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// NewFile reads the HDF5 file of the given size from r. name is used in
// error messages only.
func NewFile(r io.ReaderAt, size int64, name string, opt Options) (*File, error) {
	f := &File{r: r, name: name,
		gheaps: map[uint64]*globalHeap{}, headers: map[uint64]*objectHeader{}, links: map[uint64][]Link{}}
	f.size.Store(size)
	if err := f.readSuperblock(); err != nil {
		return nil, withPath(err, name, "superblock")
	}
	budget := opt.ChunkCacheBytes
	if budget <= 0 {
		budget = 64 << 20
	}
	f.cache = newChunkCache(budget)
	f.opt = opt
	f.ext = &externalFiles{owner: f, files: map[string]*File{}}
	if abs, err := filepath.Abs(name); err == nil {
		f.ext.files[abs] = f
	}
	f.maxChunk = opt.MaxChunkBytes
	if f.maxChunk <= 0 {
		f.maxChunk = DefaultMaxChunkBytes
	}
	return f, nil
}

// Close closes the underlying file if Open opened it, and the files its
// external links opened.
func (f *File) Close() error {
	f.closeExternal()
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Name returns the name the file was opened with.
func (f *File) Name() string { return f.name }

// Size returns the size in bytes of the underlying file, as last known:
// the size it was opened with, or a greater one found since (see holds).
func (f *File) Size() int64 { return f.size.Load() }

// SuperblockVersion returns the version of the file's superblock.
func (f *File) SuperblockVersion() int { return int(f.sb.version) }

// UserBlockSize returns the size of the user block before the superblock.
func (f *File) UserBlockSize() uint64 { return f.base }

// statter is a reader that can tell the current size of what it reads,
// as *os.File does.
type statter interface{ Stat() (fs.FileInfo, error) }

// holds reports whether n bytes at relative address addr lie in the file.
// A range past the known end has the file's size looked up again when the
// reader can tell it: another process (a libhdf5 SWMR writer, h5py
// appending rows) may have extended the file since it was opened, and
// the structures read since (the file is read lazily, and in place) may
// point into the new part. Such a range is then read as it is on disk; a
// range past the file's real end is still refused.
func (f *File) holds(addr, n uint64) bool {
	abs := addr + f.base
	if addr == undefAddr || abs < addr || abs+n < abs {
		return false
	}
	if abs+n <= uint64(f.size.Load()) {
		return true
	}
	s, ok := f.r.(statter)
	if !ok {
		return false
	}
	st, err := s.Stat()
	if err != nil {
		return false
	}
	for {
		old := f.size.Load()
		if st.Size() <= old || f.size.CompareAndSwap(old, st.Size()) {
			break
		}
	}
	return abs+n <= uint64(f.size.Load())
}

// read returns n bytes at relative address addr, refusing ranges that do
// not lie inside the file.
func (f *File) read(addr, n uint64) ([]byte, error) { return f.readBuf(nil, addr, n) }

// readBuf is read into buf[:n] when buf has the capacity, else into a new
// buffer.
func (f *File) readBuf(buf []byte, addr, n uint64) ([]byte, error) {
	if addr == undefAddr {
		return nil, formatErr(addr, "read at undefined address")
	}
	if !f.holds(addr, n) {
		return nil, formatErr(addr, "%d bytes at %#x lie beyond the end of the file (%d bytes)", n, addr, f.Size())
	}
	b := buf[:0]
	if uint64(cap(b)) >= n {
		b = b[:n]
	} else {
		b = make([]byte, n)
	}
	if _, err := f.r.ReadAt(b, int64(addr+f.base)); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, formatErr(addr, "read %d bytes: %v", n, err)
	}
	return b, nil
}

// readUpTo reads at most n bytes at addr, fewer if the file ends first. It
// is used for structures whose length is only known after decoding.
func (f *File) readUpTo(addr, n uint64) ([]byte, error) {
	if !f.holds(addr, n) {
		abs, end := addr+f.base, uint64(f.Size())
		if addr == undefAddr || abs < addr || abs >= end {
			return nil, formatErr(addr, "address %#x is beyond the end of the file (%d bytes)", addr, end)
		}
		n = end - abs
	}
	return f.read(addr, n)
}

// decoderAt returns a decoder over n bytes at addr.
func (f *File) decoderAt(addr, n uint64) (*decoder, error) {
	b, err := f.read(addr, n)
	if err != nil {
		return nil, err
	}
	return f.decoder(b, addr), nil
}

// decoder wraps bytes read at addr with the file's offset and length sizes.
func (f *File) decoder(b []byte, addr uint64) *decoder {
	return newDecoder(b, addr, f.so, f.sl)
}

// errf returns a FormatError naming this file.
func (f *File) errf(addr uint64, format string, args ...any) error {
	err := formatErr(addr, format, args...).(*FormatError)
	err.File = f.name
	return err
}

// String describes the file for logs.
func (f *File) String() string { return fmt.Sprintf("h5core.File(%s)", f.name) }
