package h5core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"
)

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
