package h5core

import (
	"bytes"
	"sync"

	"github.com/klauspost/compress/zlib"
)

func init() { registerFilter(FilterDeflate, "deflate", decodeDeflate, encodeDeflate) }

// decodeDeflate undoes the deflate filter (id 1): a zlib stream, inflated
// by inflateInto (inflate.go). Bytes after the end of the stream are
// ignored, as libhdf5 does.
func decodeDeflate(_ []uint32, in, out []byte) ([]byte, error) {
	n, err := inflateInto(out[:cap(out)], in)
	if err != nil {
		return nil, err
	}
	return out[:n], nil
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
