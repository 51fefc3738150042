package h5core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/klauspost/compress/snappy"
	"github.com/pierrec/lz4/v4"
)

func init() { registerFilter(FilterBlosc, "blosc", decodeBlosc, encodeBlosc) }

// Blosc version 1 frame header flags (byte 2); bits 5-7 hold the codec.
const (
	bloscShuffle    = 0x01 // bytes shuffled (when the item size is > 1)
	bloscMemcpyed   = 0x02 // data stored as is after the header
	bloscBitShuffle = 0x04 // bits shuffled
	bloscDontSplit  = 0x10 // blocks not split into one stream per byte

	bloscHeaderSize = 16
	bloscMaxSplits  = 16  // item sizes above this are never split
	bloscMinSplit   = 128 // nor blocks of fewer items than this
)

// Blosc codec numbers (flags >> 5).
const (
	bloscBloscLZ = 0
	bloscLZ4     = 1 // also LZ4HC
	bloscSnappy  = 2
	bloscZlib    = 3
	bloscZstd    = 4
)

// decodeBlosc undoes the Blosc filter (id 32001), whose chunks are Blosc
// version 1 frames: a 16-byte header (format version, codec version, flags,
// item size, then LE sizes: decoded bytes, block size, frame bytes), a
// table of block starts, and the blocks. A block is one compressed stream,
// or one per byte of the item (split); a stream whose compressed size
// equals its decoded size is stored as is. Shuffling is undone per block.
func decodeBlosc(_ []uint32, in, out []byte) ([]byte, error) {
	if len(in) < bloscHeaderSize {
		return nil, fmt.Errorf("blosc header truncated (%d bytes)", len(in))
	}
	version, flags, typesize := in[0], in[2], int(in[3])
	nbytes := uint64(binary.LittleEndian.Uint32(in[4:]))
	blocksize := uint64(binary.LittleEndian.Uint32(in[8:]))
	if version == 0 || version > 2 {
		return nil, &unsupportedError{fmt.Sprintf("blosc format version %d not supported", version)}
	}
	if nbytes > uint64(cap(out)) {
		return nil, fmt.Errorf("blosc frame decodes to %d bytes, more than the %d expected", nbytes, cap(out))
	}
	dst := out[:nbytes]
	if flags&bloscMemcpyed != 0 {
		if uint64(len(in)-bloscHeaderSize) < nbytes {
			return nil, fmt.Errorf("blosc frame truncated: %d bytes, need %d", len(in), nbytes+bloscHeaderSize)
		}
		copy(dst, in[bloscHeaderSize:])
		return dst, nil
	}
	if blocksize == 0 || typesize == 0 {
		return nil, fmt.Errorf("invalid blosc block size %d or item size %d", blocksize, typesize)
	}
	nblocks := (nbytes + blocksize - 1) / blocksize
	if uint64(len(in)-bloscHeaderSize)/4 < nblocks {
		return nil, fmt.Errorf("blosc block table of %d blocks truncated", nblocks)
	}
	shuffle := flags&bloscShuffle != 0 && typesize > 1
	bitShuffle := !shuffle && flags&bloscBitShuffle != 0
	var tmp []byte
	if shuffle || bitShuffle {
		buf := getFilterBuf(int(min(blocksize, nbytes)))
		defer putFilterBuf(buf)
		tmp = *buf
	}
	for j := uint64(0); j < nblocks; j++ {
		start := j * blocksize
		bsize := min(blocksize, nbytes-start)
		bstart := uint64(binary.LittleEndian.Uint32(in[bloscHeaderSize+4*j:]))
		if bstart >= uint64(len(in)) {
			return nil, fmt.Errorf("blosc block %d starts at %d, past the frame's %d bytes", j, bstart, len(in))
		}
		block := dst[start : start+bsize]
		target := block
		if tmp != nil {
			target = tmp[:bsize]
		}
		if err := bloscDecodeBlock(target, in[bstart:], flags, typesize, bsize < blocksize); err != nil {
			return nil, fmt.Errorf("blosc block %d: %w", j, err)
		}
		switch {
		case shuffle:
			unshuffleInto(block, target, typesize)
		case bitShuffle:
			bitUnshuffle(block, target, typesize)
		}
	}
	return dst, nil
}

// bloscDecodeBlock decodes one block's streams from src into dst.
func bloscDecodeBlock(dst, src []byte, flags byte, typesize int, leftover bool) error {
	nsplits := 1
	if flags&bloscDontSplit == 0 && typesize <= bloscMaxSplits && len(dst)/typesize >= bloscMinSplit && !leftover {
		nsplits = typesize
	}
	neblock := len(dst) / nsplits
	if neblock*nsplits != len(dst) {
		return fmt.Errorf("%d-byte block does not split into %d streams", len(dst), nsplits)
	}
	for s := 0; s < nsplits; s++ {
		if len(src) < 4 {
			return errors.New("stream header truncated")
		}
		cbytes := int64(int32(binary.LittleEndian.Uint32(src)))
		src = src[4:]
		if cbytes < 0 || cbytes > int64(len(src)) {
			return fmt.Errorf("stream of %d bytes, %d left", cbytes, len(src))
		}
		part := dst[s*neblock : (s+1)*neblock : (s+1)*neblock]
		if err := bloscDecodeStream(part, src[:cbytes], flags>>5); err != nil {
			return err
		}
		src = src[cbytes:]
	}
	return nil
}

// bloscDecodeStream decodes one stream into all of dst.
func bloscDecodeStream(dst, src []byte, codec byte) error {
	if len(src) == len(dst) {
		copy(dst, src)
		return nil
	}
	var n int
	var err error
	switch codec {
	case bloscBloscLZ:
		n, err = blosclzDecode(dst, src)
	case bloscLZ4:
		n, err = lz4.UncompressBlock(src, dst)
	case bloscZlib:
		n, err = inflateInto(dst, src)
	case bloscZstd:
		var res []byte
		res, err = zstdDecodeInto(dst[:0], src)
		n = len(res)
		if err == nil && !sameArray(res, dst) {
			copy(dst, res)
		}
	case bloscSnappy:
		n, err = snappyDecodeInto(dst, src)
	default:
		return fmt.Errorf("unknown blosc codec %d", codec)
	}
	if err != nil {
		return err
	}
	if n != len(dst) {
		return fmt.Errorf("stream decodes to %d bytes, not %d", n, len(dst))
	}
	return nil
}

// blosclzDecode decodes a BloscLZ stream (a FastLZ level 2 dialect) into
// dst and returns the decoded length.
func blosclzDecode(dst, src []byte) (int, error) {
	const maxDistance = 8191
	errTrunc := errors.New("BloscLZ stream truncated")
	errLong := errors.New("BloscLZ stream decodes to more than the block")
	if len(src) == 0 {
		return 0, errTrunc
	}
	ctrl := int(src[0]) & 31 // the top bits of the first byte mark the format
	ip, op := 1, 0
	for {
		if ctrl < 32 { // literal run of ctrl+1 bytes
			n := ctrl + 1
			if ip+n > len(src) {
				return 0, errTrunc
			}
			if op+n > len(dst) {
				return 0, errLong
			}
			copy(dst[op:], src[ip:ip+n])
			op += n
			ip += n
		} else { // match: length in the top 3 bits (7 = extended), distance below
			n := ctrl>>5 - 1
			ofs := (ctrl & 31) << 8
			if n == 6 {
				for {
					if ip >= len(src) {
						return 0, errTrunc
					}
					c := src[ip]
					ip++
					n += int(c)
					if c != 255 {
						break
					}
				}
			}
			if ip >= len(src) {
				return 0, errTrunc
			}
			code := int(src[ip])
			ip++
			n += 3
			dist := ofs + code + 1
			if code == 255 && ofs == 31<<8 { // 16-bit far distance
				if ip+2 > len(src) {
					return 0, errTrunc
				}
				dist = (int(src[ip])<<8 | int(src[ip+1])) + maxDistance + 1
				ip += 2
			}
			ref := op - dist
			if ref < 0 {
				return 0, errors.New("BloscLZ match before the start of the block")
			}
			if op+n > len(dst) {
				return 0, errLong
			}
			if dist >= n {
				copy(dst[op:op+n], dst[ref:ref+n])
			} else {
				for k := 0; k < n; k++ { // overlapping: repeats the pattern
					dst[op+k] = dst[ref+k]
				}
			}
			op += n
		}
		if ip >= len(src) {
			return op, nil
		}
		ctrl = int(src[ip])
		ip++
	}
}

// bitUnshuffle undoes Blosc's bit shuffle of one block of items of es
// bytes: bit k of byte j of item i was stored at bit (8j+k)·n + i, counting
// from the least significant bit of each byte, for the n = len(src)/es
// items. Blosc leaves blocks whose n is not a multiple of 8 unshuffled.
func bitUnshuffle(dst, src []byte, es int) {
	n := len(src) / es
	if n%8 != 0 {
		copy(dst, src)
		return
	}
	row := n / 8 // bytes per bit plane
	for j := 0; j < es; j++ {
		planes := src[8*j*row : 8*(j+1)*row]
		for q := 0; q < row; q++ {
			var x uint64
			for k := 0; k < 8; k++ {
				x |= uint64(planes[k*row+q]) << (8 * k)
			}
			x = transposeBits8x8(x)
			for m := 0; m < 8; m++ {
				dst[(8*q+m)*es+j] = byte(x >> (8 * m))
			}
		}
	}
	copy(dst[n*es:], src[n*es:])
}

// transposeBits8x8 transposes the 8×8 bit matrix whose row r is byte r of
// x: bit c of byte r moves to bit r of byte c.
func transposeBits8x8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00aa00aa00aa00aa
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000cccc0000cccc
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000f0f0f0f0
	return x ^ t ^ t<<28
}

// Blosc filter client data (hdf5-blosc, after its set_local): cd[2] the
// item size, cd[4] the compression level, cd[5] the shuffle (0 none, 1
// byte, 2 bit) and cd[6] the compressor (bloscComp*).
const (
	bloscCDTypesize   = 2
	bloscCDLevel      = 4
	bloscCDShuffle    = 5
	bloscCDCompressor = 6

	bloscCompBloscLZ = 0
	bloscCompLZ4     = 1
	bloscCompLZ4HC   = 2
	bloscCompSnappy  = 3
	bloscCompZlib    = 4
	bloscCompZstd    = 5

	bloscMinBuffer = 128 // smaller chunks are stored as they are, as Blosc does
)

// encodeBlosc applies the Blosc filter: a Blosc version 1 frame holding
// the chunk as one unsplit block, byte-shuffled when cd asks for shuffling
// of either kind (the frame's flags say which was done, so any Blosc
// reader undoes it), compressed with the compressor cd names (LZ4HC is
// written as LZ4, which decodes the same; snappy as a raw Snappy block). A chunk the compressor cannot
// shrink, a small one, or level 0 gives a frame that stores the bytes as
// they are.
func encodeBlosc(cd []uint32, in []byte) ([]byte, error) {
	typesize, level, shuffle, comp := 1, uint32(5), uint32(1), uint32(bloscCompBloscLZ)
	if len(cd) > bloscCDTypesize && cd[bloscCDTypesize] > 0 && cd[bloscCDTypesize] <= 255 {
		typesize = int(cd[bloscCDTypesize])
	}
	if len(cd) > bloscCDLevel {
		level = cd[bloscCDLevel]
	}
	if len(cd) > bloscCDShuffle {
		shuffle = cd[bloscCDShuffle]
	}
	if len(cd) > bloscCDCompressor {
		comp = cd[bloscCDCompressor]
	}
	if uint64(len(in)) > math.MaxInt32-bloscHeaderSize-8 {
		return nil, fmt.Errorf("a %d-byte chunk is too large for a Blosc frame", len(in))
	}
	var codec byte
	switch comp {
	case bloscCompBloscLZ:
		codec = bloscBloscLZ
	case bloscCompLZ4, bloscCompLZ4HC:
		codec = bloscLZ4
	case bloscCompZlib:
		codec = bloscZlib
	case bloscCompZstd:
		codec = bloscZstd
	case bloscCompSnappy:
		codec = bloscSnappy
	default:
		return nil, fmt.Errorf("unknown blosc compressor %d", comp)
	}
	flags := bloscDontSplit | codec<<5
	block := in
	if shuffle != 0 && typesize > 1 {
		flags |= bloscShuffle
		s, err := encodeShuffle([]uint32{uint32(typesize)}, in)
		if err != nil {
			return nil, err
		}
		block = s
	}
	var stream []byte
	if level > 0 && len(in) >= bloscMinBuffer {
		var err error
		if stream, err = bloscEncodeStream(block, codec, int(min(level, 9))); err != nil {
			return nil, err
		}
	}
	if stream == nil || len(stream) >= len(in) {
		out := bloscFrameHeader(bloscMemcpyed|codec<<5, typesize, len(in), len(in), bloscHeaderSize+len(in))
		return append(out, in...), nil
	}
	total := bloscHeaderSize + 8 + len(stream)
	out := bloscFrameHeader(flags, typesize, len(in), len(in), total)
	out = binary.LittleEndian.AppendUint32(out, bloscHeaderSize+4) // the block's start
	out = binary.LittleEndian.AppendUint32(out, uint32(len(stream)))
	return append(out, stream...), nil
}

// bloscFrameHeader returns a Blosc version 1 frame header (format version
// 2, codec format version 1).
func bloscFrameHeader(flags byte, typesize, nbytes, blocksize, cbytes int) []byte {
	h := make([]byte, 4, bloscHeaderSize+8+nbytes)
	h[0], h[1], h[2], h[3] = 2, 1, flags, byte(typesize)
	h = binary.LittleEndian.AppendUint32(h, uint32(nbytes))
	h = binary.LittleEndian.AppendUint32(h, uint32(blocksize))
	return binary.LittleEndian.AppendUint32(h, uint32(cbytes))
}

// bloscEncodeStream compresses one stream with a Blosc codec; nil means
// the codec could not shrink it.
func bloscEncodeStream(src []byte, codec byte, level int) ([]byte, error) {
	switch codec {
	case bloscBloscLZ:
		return blosclzEncode(src), nil
	case bloscLZ4:
		dst := make([]byte, lz4.CompressBlockBound(len(src)))
		var c lz4.Compressor
		n, err := c.CompressBlock(src, dst)
		if err != nil || n == 0 {
			return nil, err
		}
		return dst[:n], nil
	case bloscZlib:
		return encodeDeflate([]uint32{uint32(level)}, src)
	case bloscSnappy:
		return snappy.Encode(nil, src), nil
	}
	return encodeZstd([]uint32{uint32(level)}, src)
}

// blosclzEncode compresses src into a BloscLZ stream (see blosclzDecode):
// literal runs of up to 32 bytes and matches of 3 or more bytes at
// distances up to 8191. The stream starts and ends with a literal run, as
// Blosc's decoder wants. It returns nil when the stream would not be
// smaller than src.
func blosclzEncode(src []byte) []byte {
	const (
		hashLog = 13
		maxDist = 8191
		maxLit  = 32
		tail    = 12 // bytes at the end left to literals
	)
	n := len(src)
	if n <= tail+3 {
		return nil
	}
	out := make([]byte, 0, n+n/maxLit+1)
	htab := make([]int32, 1<<hashLog) // position+1 of the last 3 bytes hashing here
	hash := func(i int) uint32 {
		v := uint32(src[i])<<16 | uint32(src[i+1])<<8 | uint32(src[i+2])
		return v * 2654435761 >> (32 - hashLog)
	}
	lit := 0
	flush := func(end int) {
		for lit < end {
			k := min(maxLit, end-lit)
			out = append(append(out, byte(k-1)), src[lit:lit+k]...)
			lit += k
		}
	}
	limit := n - tail
	for i := 0; i < limit; {
		h := hash(i)
		ref := int(htab[h]) - 1
		htab[h] = int32(i + 1)
		if ref < 0 || i-ref > maxDist || src[ref] != src[i] || src[ref+1] != src[i+1] || src[ref+2] != src[i+2] {
			i++
			continue
		}
		l := 3
		for i+l < limit && src[ref+l] == src[i+l] {
			l++
		}
		flush(i)
		d := i - ref - 1
		if l <= 8 {
			out = append(out, byte((l-2)<<5|d>>8))
		} else {
			out = append(out, byte(7<<5|d>>8))
			e := l - 9
			for ; e >= 255; e -= 255 {
				out = append(out, 255)
			}
			out = append(out, byte(e))
		}
		out = append(out, byte(d))
		for j := i + 1; j < i+l && j+2 < n; j++ {
			htab[hash(j)] = int32(j + 1)
		}
		i += l
		lit = i
		if len(out) >= n {
			return nil
		}
	}
	flush(n)
	if len(out) >= n {
		return nil
	}
	return out
}

// snappyDecodeInto decodes one raw Snappy block (Blosc's snappy codec) into
// dst, which must be exactly its decoded size.
func snappyDecodeInto(dst, src []byte) (int, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return 0, err
	}
	if n != len(dst) {
		return 0, fmt.Errorf("snappy stream decodes to %d bytes, not %d", n, len(dst))
	}
	res, err := snappy.Decode(dst, src)
	if err != nil {
		return 0, err
	}
	if !sameArray(res, dst) {
		copy(dst, res)
	}
	return len(res), nil
}
