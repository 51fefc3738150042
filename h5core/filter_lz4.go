package h5core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/pierrec/lz4/v4"
)

func init() { registerFilter(FilterLZ4, "lz4", decodeLZ4, encodeLZ4) }

// lz4DefaultBlock is the HDF Group plugin's block size when cd[0] is
// absent or 0.
const lz4DefaultBlock = 1 << 30

// encodeLZ4 applies the LZ4 filter in the HDF Group plugin's framing (see
// decodeLZ4), with blocks of cd[0] bytes; a block LZ4 cannot shrink is
// stored as is.
func encodeLZ4(cd []uint32, in []byte) ([]byte, error) {
	block := lz4DefaultBlock
	if len(cd) > 0 && cd[0] > 0 {
		block = int(min(cd[0], lz4DefaultBlock))
	}
	block = max(min(block, len(in)), 1)
	out := binary.BigEndian.AppendUint64(make([]byte, 0, 12+len(in)+len(in)/block*4+64), uint64(len(in)))
	out = binary.BigEndian.AppendUint32(out, uint32(block))
	var c lz4.Compressor
	for len(in) > 0 {
		b := in[:min(block, len(in))]
		in = in[len(b):]
		out = binary.BigEndian.AppendUint32(out, 0)
		start, bound := len(out), lz4.CompressBlockBound(len(b))
		out = slices.Grow(out, bound)[:start+bound]
		n, err := c.CompressBlock(b, out[start:])
		if err != nil {
			return nil, err
		}
		if n == 0 || n >= len(b) {
			n = copy(out[start:], b)
		}
		binary.BigEndian.PutUint32(out[start-4:], uint32(n))
		out = out[:start+n]
	}
	return out, nil
}

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
