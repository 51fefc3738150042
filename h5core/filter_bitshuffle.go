package h5core

import (
	"encoding/binary"
	"fmt"

	"github.com/pierrec/lz4/v4"
)

// FilterBitshuffle is the registered id of the bitshuffle filter (Dectris
// EIGER/JUNGFRAU detectors, many NeXus files).
const FilterBitshuffle = 32008

func init() { registerFilter(FilterBitshuffle, "bitshuffle", decodeBitshuffle, nil) }

// Bitshuffle's compression modes (cd[4]) and block rules.
const (
	bshufNone = 0
	bshufLZ4  = 2
	bshufZstd = 3

	bshufBlockedMult = 8    // blocks hold a multiple of 8 elements
	bshufTargetBlock = 8192 // default block: about this many bytes,
	bshufMinBlock    = 128  // and at least this many elements
)

// decodeBitshuffle undoes the bitshuffle filter. cd: major and minor
// version, element size, block size in elements (0: the default), mode
// (0 bit shuffle only, 2 + LZ4, 3 + zstd), zstd level. The chunk is cut into
// blocks of that many elements, each bit-transposed (bit planes of the
// block); a last partial block keeps a multiple of 8 elements and the last
// n%8 elements are stored as they are. With LZ4 or zstd the chunk starts
// with the decoded size (8 bytes) and the block size in bytes (4 bytes),
// and each block is its compressed size (4 bytes) and the compressed bytes,
// all big-endian; the leftover elements follow uncompressed.
func decodeBitshuffle(cd []uint32, in, out []byte) ([]byte, error) {
	if len(cd) < 3 || cd[2] == 0 {
		return nil, fmt.Errorf("bitshuffle client data %v has no element size", cd)
	}
	es := uint64(cd[2])
	var block, mode uint64
	if len(cd) > 3 {
		block = uint64(cd[3])
	}
	if len(cd) > 4 {
		mode = uint64(cd[4])
	}
	nbytes := uint64(len(in))
	switch mode {
	case bshufNone:
	case bshufLZ4, bshufZstd:
		if len(in) < 12 {
			return nil, fmt.Errorf("bitshuffle header truncated (%d bytes)", len(in))
		}
		nbytes = binary.BigEndian.Uint64(in)
		block = uint64(binary.BigEndian.Uint32(in[8:])) / es
		in = in[12:]
	default:
		return nil, &unsupportedError{fmt.Sprintf("bitshuffle compression mode %d not supported", mode)}
	}
	if nbytes > uint64(cap(out)) {
		return nil, fmt.Errorf("bitshuffle data decodes to %d bytes, more than the %d expected", nbytes, cap(out))
	}
	if nbytes%es != 0 {
		return nil, fmt.Errorf("bitshuffle data of %d bytes is not a whole number of %d-byte elements", nbytes, es)
	}
	if block == 0 {
		block = max(bshufTargetBlock/es/bshufBlockedMult*bshufBlockedMult, bshufMinBlock)
	}
	if block%bshufBlockedMult != 0 {
		return nil, fmt.Errorf("bitshuffle block of %d elements is not a multiple of %d", block, bshufBlockedMult)
	}
	n := nbytes / es
	dst := out[:nbytes]
	var tmp []byte
	if mode != bshufNone {
		buf := getFilterBuf(int(min(block, n) * es))
		defer putFilterBuf(buf)
		tmp = *buf
	}
	pos := uint64(0) // bytes done
	for left := n; left >= bshufBlockedMult; {
		m := min(block, left/bshufBlockedMult*bshufBlockedMult)
		size := m * es
		src := in
		if mode == bshufNone {
			if uint64(len(in)) < size {
				return nil, fmt.Errorf("bitshuffle block at byte %d truncated", pos)
			}
			in = in[size:]
		} else {
			if len(in) < 4 {
				return nil, fmt.Errorf("bitshuffle block at byte %d truncated", pos)
			}
			cs := uint64(binary.BigEndian.Uint32(in))
			if cs > uint64(len(in)-4) {
				return nil, fmt.Errorf("bitshuffle block at byte %d claims %d bytes, %d left", pos, cs, len(in)-4)
			}
			var err error
			if src, err = bshufDecompress(tmp[:size], in[4:4+cs], mode); err != nil {
				return nil, fmt.Errorf("bitshuffle block at byte %d: %w", pos, err)
			}
			in = in[4+cs:]
		}
		bitUnshuffle(dst[pos:pos+size], src[:size], int(es))
		pos += size
		left -= m
	}
	if uint64(len(in)) != nbytes-pos {
		return nil, fmt.Errorf("bitshuffle data has %d bytes after its blocks, want %d", len(in), nbytes-pos)
	}
	copy(dst[pos:], in)
	return dst, nil
}

// bshufDecompress decodes one compressed bitshuffle block into all of dst.
func bshufDecompress(dst, src []byte, mode uint64) ([]byte, error) {
	var n int
	var err error
	if mode == bshufLZ4 {
		n, err = lz4.UncompressBlock(src, dst)
	} else {
		var res []byte
		res, err = zstdDecodeInto(dst[:0], src)
		n = len(res)
		if err == nil && n == len(dst) && !sameArray(res, dst) {
			copy(dst, res)
		}
	}
	if err != nil {
		return nil, err
	}
	if n != len(dst) {
		return nil, fmt.Errorf("decodes to %d bytes, not %d", n, len(dst))
	}
	return dst, nil
}
