package h5core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"
)

func init() { registerFilter(FilterDeflate, "deflate", decodeDeflate, encodeDeflate) }

// zlibReaders pools zlib readers (and their inflate windows) across chunks.
var zlibReaders sync.Pool // of *zlibReader

type zlibReader struct {
	src bytes.Reader
	zr  io.ReadCloser
}

// decodeDeflate undoes the deflate filter (id 1): a zlib stream. Bytes
// after the end of the stream are ignored, as libhdf5 does.
func decodeDeflate(_ []uint32, in, out []byte) ([]byte, error) {
	n, err := inflateInto(out[:cap(out)], in)
	if err != nil {
		return nil, err
	}
	return out[:n], nil
}

// inflateInto decompresses the zlib stream in into dst and returns the
// decompressed length; decompressing to more than len(dst) bytes is an
// error.
func inflateInto(dst, in []byte) (int, error) {
	z, _ := zlibReaders.Get().(*zlibReader)
	if z == nil {
		z = new(zlibReader)
	}
	defer zlibReaders.Put(z)
	z.src.Reset(in)
	var err error
	if z.zr == nil {
		z.zr, err = zlib.NewReader(&z.src)
	} else {
		err = z.zr.(zlib.Resetter).Reset(&z.src, nil)
	}
	if err != nil {
		z.zr = nil
		return 0, fmt.Errorf("zlib stream: %w", err)
	}
	n := 0
	for {
		m, err := z.zr.Read(dst[n:])
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("zlib stream: %w", err)
		}
		if n == len(dst) {
			var probe [1]byte
			m, err := z.zr.Read(probe[:])
			if m > 0 {
				return n, errors.New("zlib stream decodes to more than the expected size")
			}
			if err == io.EOF {
				return n, nil
			}
			if err != nil {
				return n, fmt.Errorf("zlib stream: %w", err)
			}
		}
	}
}

// zlibWriters pools zlib writers by compression level (0-9).
var zlibWriters [10]sync.Pool // of *zlib.Writer

// encodeDeflate applies the deflate filter: a zlib stream at the level in
// cd[0] (libhdf5's default, 6, when absent; clamped to 0-9).
func encodeDeflate(cd []uint32, in []byte) ([]byte, error) {
	level := 6
	if len(cd) > 0 {
		level = int(min(cd[0], 9))
	}
	var buf bytes.Buffer
	buf.Grow(len(in)/2 + 64)
	w, _ := zlibWriters[level].Get().(*zlib.Writer)
	if w == nil {
		var err error
		if w, err = zlib.NewWriterLevel(&buf, level); err != nil {
			return nil, err
		}
	} else {
		w.Reset(&buf)
	}
	defer zlibWriters[level].Put(w)
	if _, err := w.Write(in); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
