package h5core

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/pierrec/lz4/v4"
)

// decodeLZ4 undoes the LZ4 filter (id 32004) in the HDF Group plugin's
// framing: the decoded size (8 bytes, big-endian), the block size (4 bytes,
// big-endian), then per block its compressed size (4 bytes, big-endian) and
// an LZ4 block, or the block's bytes as they were when the compressed size
// equals the block size.
func decodeLZ4(_ []uint32, in, out []byte) ([]byte, error) {
	if len(in) < 12 {
		return nil, fmt.Errorf("LZ4 header truncated (%d bytes)", len(in))
	}
	total := binary.BigEndian.Uint64(in)
	block := uint64(binary.BigEndian.Uint32(in[8:]))
	if total > uint64(cap(out)) {
		return nil, fmt.Errorf("LZ4 data decodes to %d bytes, more than the %d expected", total, cap(out))
	}
	dst := out[:total]
	if block > total {
		block = total
	}
	if block == 0 && total > 0 {
		return nil, errors.New("LZ4 block size is 0")
	}
	in = in[12:]
	for done := uint64(0); done < total; {
		bs := min(block, total-done)
		if len(in) < 4 {
			return nil, fmt.Errorf("LZ4 block at byte %d truncated", done)
		}
		cs := uint64(binary.BigEndian.Uint32(in))
		in = in[4:]
		if cs > uint64(len(in)) {
			return nil, fmt.Errorf("LZ4 block at byte %d claims %d bytes, %d left", done, cs, len(in))
		}
		d := dst[done : done+bs]
		if cs == bs {
			copy(d, in[:cs])
		} else {
			n, err := lz4.UncompressBlock(in[:cs], d)
			if err != nil {
				return nil, fmt.Errorf("LZ4 block at byte %d: %w", done, err)
			}
			if uint64(n) != bs {
				return nil, fmt.Errorf("LZ4 block at byte %d decodes to %d bytes, not %d", done, n, bs)
			}
		}
		in = in[cs:]
		done += bs
	}
	return dst, nil
}
