package h5core

import (
	"errors"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

func init() { registerFilter(FilterZstd, "zstd", decodeZstd, encodeZstd) }

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

// zstdEncoders holds one shared encoder per zstd level (1-22) in use;
// EncodeAll is safe for concurrent use.
var zstdEncoders sync.Map // of int → func() (*zstd.Encoder, error)

// encodeZstd applies the Zstandard filter: one zstd frame at the level in
// cd[0] (the plugin's default, 3, when absent or 0).
func encodeZstd(cd []uint32, in []byte) ([]byte, error) {
	level := 3
	if len(cd) > 0 && cd[0] > 0 {
		level = int(min(cd[0], 22))
	}
	get, _ := zstdEncoders.LoadOrStore(level, sync.OnceValues(func() (*zstd.Encoder, error) {
		return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
			zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))
	}))
	enc, err := get.(func() (*zstd.Encoder, error))()
	if err != nil {
		return nil, err
	}
	return enc.EncodeAll(in, make([]byte, 0, len(in)/2+64)), nil
}
