package h5core

import (
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zstdDecoder is shared by all goroutines (DecodeAll is safe for concurrent
// use) and never decodes past the capacity of the buffer it is given.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(0))
})

// decodeZstd undoes the Zstandard filter (id 32015): zstd frames.
func decodeZstd(_ []uint32, in, out []byte) ([]byte, error) {
	return zstdDecodeInto(out, in)
}

// zstdDecodeInto decodes the zstd frames in into out, producing at most
// cap(out) bytes.
func zstdDecodeInto(out, in []byte) ([]byte, error) {
	if len(in) == 0 {
		return nil, errors.New("empty zstd stream")
	}
	dec, err := zstdDecoder()
	if err != nil {
		return nil, err
	}
	res, err := dec.DecodeAll(in, out[:0])
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return nil, fmt.Errorf("zstd stream decodes to more than the %d bytes expected", cap(out))
	}
	if err != nil {
		return nil, fmt.Errorf("zstd stream: %w", err)
	}
	return res, nil
}
