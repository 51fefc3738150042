package h5core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// FilterBlosc2 is the registered id of the Blosc2 filter (the HDF Group's
// and PyTables' plugins, hdf5plugin.Blosc2).
const FilterBlosc2 = 32026

func init() { registerFilter(FilterBlosc2, "blosc2", decodeBlosc2, nil) }

// Blosc2 chunk format: the 16-byte Blosc header of filter_blosc.go,
// extended to 32 bytes when flags have both shuffle bits set.
const (
	blosc2HeaderSize = 32
	blosc2Extended   = bloscShuffle | bloscBitShuffle
	blosc2Delta      = 0x08 // flags bit 3 of a 16-byte header: delta filter
	blosc2UDCodec    = 6    // codec number: the user-defined codec in byte 22
	blosc2MaxFilters = 6

	// blosc2 flags (byte 31)
	blosc2UseDict = 0x01
	blosc2Lazy    = 0x08

	// special values of a whole chunk (blosc2 flags bits 4-6)
	blosc2SpecialZero   = 1
	blosc2SpecialNaN    = 2
	blosc2SpecialValue  = 3
	blosc2SpecialUninit = 4

	// filter codes of the pipeline (bytes 16-21, applied in this order)
	blosc2NoFilter   = 0
	blosc2Shuffle    = 1
	blosc2BitShuffle = 2
	blosc2DeltaCode  = 3
	blosc2TruncPrec  = 4
)

// Blosc2 contiguous frame (cframe): a msgpack header at fixed offsets, the
// chunks, a chunk holding the chunks' int64 offsets, a trailer.
const (
	b2frameMagic       = "b2frame\x00"
	b2frameHeaderLen   = 11 // int32: the header's length
	b2frameLen         = 16 // uint64: the frame's length
	b2frameFlags       = 25 // general flags: format version, offset width
	b2frameType        = 26
	b2frameNBytes      = 30 // int64: decoded bytes of all chunks
	b2frameCBytes      = 39 // int64: stored bytes of all chunks
	b2frameTypesize    = 48 // int32
	b2frameChunksize   = 58 // int32: bytes of each chunk but the last
	b2frameMetalayers  = 87 // msgpack [idx, {name: offset}, [content]]
	b2frameMinHeader   = 87
	b2maxNDim          = 8
	b2specialChunkMask = 0x80 // the offset's top byte marks a special chunk
)

// decodeBlosc2 undoes the Blosc2 filter (id 32026). Its plugins store each
// HDF5 chunk as a Blosc2 contiguous frame: a super-chunk of one Blosc2
// chunk, or for chunks of 2 to 8 dimensions a B2ND array (metalayer
// "b2nd") whose one chunk is cut into N-dimensional blocks. Older PyTables
// versions stored a bare Blosc2 chunk. As the HDF Group's plugin does, a
// plain frame yields its first chunk, a B2ND frame its whole array.
func decodeBlosc2(_ []uint32, in, out []byte) ([]byte, error) {
	if isB2Frame(in) {
		return decodeB2Frame(in, out)
	}
	n, err := blosc2DecodeChunk(in, out[:cap(out)])
	if err != nil {
		return nil, err
	}
	return out[:n], nil
}

// blosc2Header is the part of a chunk header the decoder uses.
type blosc2Header struct {
	version, flags, typesize byte
	nbytes, blocksize        int
	cbytes                   int
	overhead                 int // 16 or 32
	filters, filtersMeta     [blosc2MaxFilters]byte
	udcodec, blosc2Flags     byte
}

// parseBlosc2Header reads a chunk header, checking its sizes against the
// chunk's src bytes.
func parseBlosc2Header(src []byte) (*blosc2Header, error) {
	if len(src) < bloscHeaderSize {
		return nil, fmt.Errorf("blosc2 chunk header truncated (%d bytes)", len(src))
	}
	h := &blosc2Header{version: src[0], flags: src[2], typesize: src[3], overhead: bloscHeaderSize}
	nbytes := int32(binary.LittleEndian.Uint32(src[4:]))
	blocksize := int32(binary.LittleEndian.Uint32(src[8:]))
	cbytes := int32(binary.LittleEndian.Uint32(src[12:]))
	if nbytes < 0 || blocksize < 0 || cbytes < int32(bloscHeaderSize) || h.typesize == 0 {
		return nil, fmt.Errorf("invalid blosc2 chunk header (%d bytes, block %d, stored %d, item %d)",
			nbytes, blocksize, cbytes, h.typesize)
	}
	h.nbytes, h.blocksize, h.cbytes = int(nbytes), int(blocksize), int(cbytes)
	if h.flags&blosc2Extended == blosc2Extended {
		if len(src) < blosc2HeaderSize {
			return nil, fmt.Errorf("blosc2 extended header truncated (%d bytes)", len(src))
		}
		h.overhead = blosc2HeaderSize
		copy(h.filters[:], src[16:22])
		h.udcodec = src[22]
		copy(h.filtersMeta[:], src[24:30])
		h.blosc2Flags = src[31]
		if h.version == 3 { // the alpha format left the last filter slot undefined
			h.filters[5], h.filtersMeta[5] = 0, 0
		}
	} else {
		if h.flags&bloscShuffle != 0 && h.typesize > 1 {
			h.filters[5] = blosc2Shuffle
		}
		if h.flags&bloscBitShuffle != 0 {
			h.filters[5] = blosc2BitShuffle
		}
		if h.flags&blosc2Delta != 0 {
			h.filters[4] = blosc2DeltaCode
		}
	}
	if h.cbytes > len(src) {
		return nil, fmt.Errorf("blosc2 chunk of %d bytes truncated to %d", h.cbytes, len(src))
	}
	return h, nil
}

// blosc2DecodeChunk decodes one Blosc2 chunk (or a Blosc1 one: Blosc2
// reads both) into dst and returns its decoded length, which must fit dst.
func blosc2DecodeChunk(src, dst []byte) (int, error) {
	h, err := parseBlosc2Header(src)
	if err != nil {
		return 0, err
	}
	if h.nbytes > len(dst) {
		return 0, fmt.Errorf("blosc2 chunk decodes to %d bytes, more than the %d expected", h.nbytes, len(dst))
	}
	src, dst = src[:h.cbytes], dst[:h.nbytes]
	switch special := h.blosc2Flags >> 4 & 7; special {
	case 0:
	case blosc2SpecialZero, blosc2SpecialUninit: // uninitialized: libhdf5 gets whatever malloc gave
		clear(dst)
		return h.nbytes, nil
	case blosc2SpecialNaN:
		return h.nbytes, fillNaN(dst, int(h.typesize))
	case blosc2SpecialValue:
		ts := int(h.typesize)
		if len(src) < h.overhead+ts || h.nbytes%ts != 0 {
			return 0, errors.New("blosc2 repeated-value chunk truncated")
		}
		for i := 0; i < h.nbytes; i += ts {
			copy(dst[i:], src[h.overhead:h.overhead+ts])
		}
		return h.nbytes, nil
	default:
		return 0, fmt.Errorf("blosc2 chunk with unknown special value kind %d", special)
	}
	if h.flags&bloscMemcpyed != 0 {
		if h.cbytes != h.overhead+h.nbytes {
			return 0, fmt.Errorf("blosc2 stored chunk of %d bytes holds %d, not %d", h.cbytes, h.cbytes-h.overhead, h.nbytes)
		}
		copy(dst, src[h.overhead:])
		return h.nbytes, nil
	}
	if h.nbytes == 0 {
		return 0, nil
	}
	if h.blosc2Flags&blosc2Lazy != 0 {
		return 0, errors.New("blosc2 lazy chunk (its blocks are elsewhere) in a stored buffer")
	}
	if h.blosc2Flags&blosc2UseDict != 0 {
		return 0, &unsupportedError{"blosc2 chunks compressed with a dictionary are not supported"}
	}
	codec := h.flags >> 5
	if codec == blosc2UDCodec {
		return 0, &unsupportedError{fmt.Sprintf("blosc2 codec %d (a plugin codec) not supported", h.udcodec)}
	}
	if h.blocksize == 0 {
		return 0, errors.New("blosc2 chunk with block size 0")
	}
	if h.overhead == bloscHeaderSize {
		return blosc1Chunk(src, dst)
	}
	return h.nbytes, blosc2Blocks(h, src, dst, codec)
}

// blosc1Chunk decodes a chunk with a 16-byte header through the Blosc1
// decoder.
func blosc1Chunk(src, dst []byte) (int, error) {
	res, err := decodeBlosc(nil, src, dst[:0])
	return len(res), err
}

// fillNaN fills dst with the NaN of es-byte floats, as Blosc2 does.
func fillNaN(dst []byte, es int) error {
	if len(dst)%es != 0 {
		return fmt.Errorf("%d bytes of NaN are not whole %d-byte items", len(dst), es)
	}
	switch es {
	case 4:
		for i := 0; i < len(dst); i += 4 {
			binary.LittleEndian.PutUint32(dst[i:], math.Float32bits(float32(math.NaN())))
		}
	case 8:
		for i := 0; i < len(dst); i += 8 {
			binary.LittleEndian.PutUint64(dst[i:], math.Float64bits(math.NaN()))
		}
	default:
		return fmt.Errorf("blosc2 NaN chunk of %d-byte items", es)
	}
	return nil
}

// blosc2Blocks decodes the blocks of a chunk with an extended header: each
// block's streams (one, or one per byte of the item when split), then the
// filter pipeline from the last slot to the first.
func blosc2Blocks(h *blosc2Header, src, dst []byte, codec byte) error {
	ts := int(h.typesize)
	nblocks := (h.nbytes + h.blocksize - 1) / h.blocksize
	if (len(src)-h.overhead)/4 < nblocks {
		return fmt.Errorf("blosc2 block table of %d blocks truncated", nblocks)
	}
	last := -1 // the slot of the filter undone last so far
	for i := blosc2MaxFilters - 1; i >= 0; i-- {
		switch h.filters[i] {
		case blosc2NoFilter, blosc2TruncPrec: // truncation needs no undoing
		case blosc2Shuffle, blosc2BitShuffle:
			if last >= 0 && h.filters[last] == blosc2DeltaCode {
				return &unsupportedError{"blosc2 shuffle after the delta filter not supported"}
			}
			last = i
		case blosc2DeltaCode:
			last = i
		default:
			return &unsupportedError{fmt.Sprintf("blosc2 filter %d not supported", h.filters[i])}
		}
	}
	bufA := getFilterBuf(h.blocksize)
	defer putFilterBuf(bufA)
	bufB := getFilterBuf(h.blocksize)
	defer putFilterBuf(bufB)
	for j := 0; j < nblocks; j++ {
		start := j * h.blocksize
		bsize := min(h.blocksize, h.nbytes-start)
		bstart := int(int32(binary.LittleEndian.Uint32(src[h.overhead+4*j:])))
		if bstart <= 0 || bstart >= len(src) {
			return fmt.Errorf("blosc2 block %d starts at %d, outside the chunk's %d bytes", j, bstart, len(src))
		}
		cur, spare := (*bufA)[:bsize], (*bufB)[:bsize]
		nstreams := 1
		if h.flags&bloscDontSplit == 0 && bsize == h.blocksize {
			nstreams = ts
		}
		if err := blosc2DecodeStreams(cur, src[bstart:], nstreams, codec); err != nil {
			return fmt.Errorf("blosc2 block %d: %w", j, err)
		}
		block := dst[start : start+bsize]
		for i := blosc2MaxFilters - 1; i >= 0; i-- {
			switch h.filters[i] {
			case blosc2Shuffle:
				for r := 0; r <= int(h.filtersMeta[i]); r++ {
					unshuffleInto(spare, cur, ts)
					cur, spare = spare, cur
				}
			case blosc2BitShuffle:
				n := bsize / ts
				if h.version > 2 { // since format 3 the items past the last 8 are left as they are
					n -= n % 8
				}
				bitUnshuffle(spare[:n*ts], cur[:n*ts], ts)
				copy(spare[n*ts:], cur[n*ts:])
				cur, spare = spare, cur
			case blosc2DeltaCode:
				copy(block, cur)
				blosc2Undelta(block, dst[:min(h.blocksize, h.nbytes)], start, ts)
				cur = block
			}
		}
		if &cur[0] != &block[0] {
			copy(block, cur)
		}
	}
	return nil
}

// blosc2DecodeStreams decodes nstreams streams of a block from src into dst
// (in equal parts): a stream is an int32 size then the codec's bytes; 0 is
// a run of zeros, a negative size a run of the byte -size (with a token
// byte), a size equal to the part's length the part as is.
func blosc2DecodeStreams(dst, src []byte, nstreams int, codec byte) error {
	part := len(dst) / nstreams
	if part == 0 || part*nstreams != len(dst) {
		return fmt.Errorf("%d-byte block does not split into %d streams", len(dst), nstreams)
	}
	for s := 0; s < nstreams; s++ {
		if len(src) < 4 {
			return errors.New("stream header truncated")
		}
		csize := int32(binary.LittleEndian.Uint32(src))
		src = src[4:]
		p := dst[s*part : (s+1)*part : (s+1)*part]
		switch {
		case csize == 0:
			clear(p)
		case csize < 0:
			if len(src) < 1 || src[0]&1 == 0 || csize < -255 {
				return fmt.Errorf("invalid stream run (size %d)", csize)
			}
			src = src[1:]
			for i := range p {
				p[i] = byte(-csize)
			}
		default:
			if int64(csize) > int64(len(src)) {
				return fmt.Errorf("stream of %d bytes, %d left", csize, len(src))
			}
			if err := bloscDecodeStream(p, src[:csize], codec); err != nil {
				return err
			}
			src = src[csize:]
		}
	}
	return nil
}

// blosc2Undelta undoes Blosc's delta filter on block, which starts at byte
// off of the chunk: the first block holds each item XORed with the one
// before it, every other block each item XORed with the same item of the
// decoded first block ref. Items are ts bytes when ts is 1, 2, 4 or 8,
// else 8 or 1 bytes; bytes past the last whole item stay as they are.
func blosc2Undelta(block, ref []byte, off, ts int) {
	unit := ts
	switch ts {
	case 1, 2, 4, 8:
	default:
		unit = 1
		if ts%8 == 0 {
			unit = 8
		}
	}
	n := len(block) / unit * unit
	if off == 0 {
		for i := unit; i < n; i++ {
			block[i] ^= block[i-unit]
		}
		return
	}
	for i := 0; i < n; i++ {
		block[i] ^= ref[i]
	}
}

// b2frame is what the decoder needs of a Blosc2 contiguous frame.
type b2frame struct {
	buf       []byte // the frame
	headerLen int
	nbytes    int64
	chunksize int
	typesize  int
	offsets   []int64 // of each chunk, from the end of the header
}

// parseB2Frame reads a frame's header and chunk offsets.
// A frame of more than maxChunks chunks is refused.
func parseB2Frame(in []byte, maxChunks int64) (*b2frame, error) {
	if len(in) < b2frameMinHeader {
		return nil, fmt.Errorf("blosc2 frame header truncated (%d bytes)", len(in))
	}
	if in[b2frameHeaderLen-1] != 0xd2 || in[b2frameLen-1] != 0xcf || in[b2frameNBytes-1] != 0xd3 ||
		in[b2frameCBytes-1] != 0xd3 || in[b2frameTypesize-1] != 0xd2 || in[b2frameChunksize-1] != 0xd2 {
		return nil, errors.New("blosc2 frame header malformed")
	}
	headerLen := int64(int32(binary.BigEndian.Uint32(in[b2frameHeaderLen:])))
	frameLen := binary.BigEndian.Uint64(in[b2frameLen:])
	nbytes := int64(binary.BigEndian.Uint64(in[b2frameNBytes:]))
	cbytes := int64(binary.BigEndian.Uint64(in[b2frameCBytes:]))
	typesize := int32(binary.BigEndian.Uint32(in[b2frameTypesize:]))
	chunksize := int32(binary.BigEndian.Uint32(in[b2frameChunksize:]))
	if frameLen > uint64(len(in)) {
		return nil, fmt.Errorf("blosc2 frame of %d bytes truncated to %d", frameLen, len(in))
	}
	if in[b2frameType]&0x0f != 0 {
		return nil, &unsupportedError{fmt.Sprintf("blosc2 frame type %d (not contiguous) not supported", in[b2frameType]&0x0f)}
	}
	if off := in[b2frameFlags] >> 4 & 3; off != 1 {
		return nil, &unsupportedError{fmt.Sprintf("blosc2 frame with chunk offsets of kind %d not supported", off)}
	}
	if headerLen < b2frameMinHeader || nbytes < 0 || cbytes < 0 || typesize <= 0 || chunksize < 0 ||
		cbytes > int64(frameLen) || headerLen > int64(frameLen)-cbytes {
		return nil, fmt.Errorf("invalid blosc2 frame header (header %d, frame %d, stored %d, decoded %d bytes)",
			headerLen, frameLen, cbytes, nbytes)
	}
	f := &b2frame{buf: in[:frameLen], headerLen: int(headerLen), nbytes: nbytes, chunksize: int(chunksize), typesize: int(typesize)}
	if nbytes == 0 {
		return f, nil
	}
	if chunksize == 0 {
		return nil, &unsupportedError{"blosc2 frame with chunks of varying size not supported"}
	}
	nchunks := (nbytes + int64(chunksize) - 1) / int64(chunksize)
	if nchunks > maxChunks {
		return nil, fmt.Errorf("blosc2 frame of %d chunks for %d bytes", nchunks, maxChunks)
	}
	idx := f.buf[headerLen+cbytes:]
	h, err := parseBlosc2Header(idx)
	if err != nil {
		return nil, fmt.Errorf("blosc2 frame chunk offsets: %w", err)
	}
	if int64(h.nbytes) != 8*nchunks {
		return nil, fmt.Errorf("blosc2 frame has %d chunks but %d bytes of offsets", nchunks, h.nbytes)
	}
	raw := make([]byte, h.nbytes)
	if _, err := blosc2DecodeChunk(idx, raw); err != nil {
		return nil, fmt.Errorf("blosc2 frame chunk offsets: %w", err)
	}
	f.offsets = make([]int64, nchunks)
	for i := range f.offsets {
		f.offsets[i] = int64(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return f, nil
}

// chunkSize returns the decoded size of chunk i.
func (f *b2frame) chunkSize(i int) int {
	if rest := f.nbytes - int64(i)*int64(f.chunksize); rest < int64(f.chunksize) {
		return int(rest)
	}
	return f.chunksize
}

// decodeChunk decodes chunk i into dst, which must be its size.
func (f *b2frame) decodeChunk(i int, dst []byte) error {
	off := f.offsets[i]
	if off < 0 { // a chunk of special values: the kind is in the top byte
		switch kind := byte(uint64(off)>>56) &^ b2specialChunkMask; {
		case kind&blosc2SpecialZero != 0, kind&blosc2SpecialUninit != 0:
			clear(dst)
			return nil
		case kind&blosc2SpecialNaN != 0:
			return fillNaN(dst, f.typesize)
		default:
			return fmt.Errorf("blosc2 frame chunk %d has unknown special value kind %d", i, kind)
		}
	}
	if off >= int64(len(f.buf)-f.headerLen) {
		return fmt.Errorf("blosc2 frame chunk %d at %d, past the frame's end", i, off)
	}
	n, err := blosc2DecodeChunk(f.buf[int64(f.headerLen)+off:], dst)
	if err != nil {
		return fmt.Errorf("blosc2 frame chunk %d: %w", i, err)
	}
	if n != len(dst) {
		return fmt.Errorf("blosc2 frame chunk %d decodes to %d bytes, not %d", i, n, len(dst))
	}
	return nil
}

// decodeB2Frame decodes a frame: its B2ND array, else its first chunk.
func decodeB2Frame(in, out []byte) ([]byte, error) {
	f, err := parseB2Frame(in, int64(cap(out))+1) // each chunk holds at least one byte of out
	if err != nil {
		return nil, err
	}
	meta, err := f.metalayer("b2nd")
	if err == nil && meta == nil {
		meta, err = f.metalayer("caterva")
	}
	if err != nil {
		return nil, err
	}
	if meta != nil {
		a, err := parseB2ND(meta)
		if err != nil {
			return nil, err
		}
		return a.decode(f, out)
	}
	if len(f.offsets) == 0 {
		return out[:0], nil
	}
	n := f.chunkSize(0)
	if n > cap(out) {
		return nil, fmt.Errorf("blosc2 frame chunk decodes to %d bytes, more than the %d expected", n, cap(out))
	}
	return out[:n], f.decodeChunk(0, out[:n])
}

// metalayer returns the content of the frame's metalayer name (a msgpack
// value), or nil when it has none.
func (f *b2frame) metalayer(name string) ([]byte, error) {
	hdr := f.buf[:f.headerLen]
	bad := errors.New("blosc2 frame metalayers malformed")
	p := b2frameMetalayers
	// [0x93, uint16 idx, map16 {fixstr name: int32 offset}, ...]
	if len(hdr) < p+6 || hdr[p] != 0x93 || hdr[p+1] != 0xcd || hdr[p+4] != 0xde {
		return nil, bad
	}
	n := int(binary.BigEndian.Uint16(hdr[p+5:]))
	p += 7
	for ; n > 0; n-- {
		if p >= len(hdr) || hdr[p]&0xe0 != 0xa0 {
			return nil, bad
		}
		l := int(hdr[p] & 0x1f)
		if p+1+l+5 > len(hdr) || hdr[p+1+l] != 0xd2 {
			return nil, bad
		}
		key := hdr[p+1 : p+1+l]
		off := int64(int32(binary.BigEndian.Uint32(hdr[p+2+l:])))
		p += 1 + l + 5
		if string(key) != name {
			continue
		}
		// the content: bin32
		if off < 0 || off+5 > int64(len(hdr)) || hdr[off] != 0xc6 {
			return nil, fmt.Errorf("blosc2 frame metalayer %q malformed", name)
		}
		size := int64(binary.BigEndian.Uint32(hdr[off+1:]))
		if size > int64(len(hdr))-off-5 {
			return nil, fmt.Errorf("blosc2 frame metalayer %q truncated", name)
		}
		return hdr[off+5 : off+5+size], nil
	}
	return nil, nil
}

// b2ndArray is the B2ND metalayer: the array's shape, the shape of its
// chunks and of the blocks each chunk is cut into.
type b2ndArray struct {
	shape                  []int64
	chunkshape, blockshape []int64
}

// parseB2ND reads a B2ND metalayer: [version, ndim, [shape int64...],
// [chunkshape int32...], [blockshape int32...], dtype format, dtype].
func parseB2ND(m []byte) (*b2ndArray, error) {
	bad := errors.New("blosc2 B2ND metalayer malformed")
	if len(m) < 3 || m[0]&0xf0 != 0x90 || m[1] > 0x7f || m[2] > 0x7f {
		return nil, bad
	}
	ndim := int(m[2])
	if ndim == 0 || ndim > b2maxNDim {
		return nil, fmt.Errorf("blosc2 B2ND array of %d dimensions", ndim)
	}
	p := 3
	dims := func(marker byte, width int) ([]int64, error) {
		if p >= len(m) || m[p] != 0x90|byte(ndim) {
			return nil, bad
		}
		p++
		v := make([]int64, ndim)
		for i := range v {
			if p+1+width > len(m) || m[p] != marker {
				return nil, bad
			}
			if width == 8 {
				v[i] = int64(binary.BigEndian.Uint64(m[p+1:]))
			} else {
				v[i] = int64(int32(binary.BigEndian.Uint32(m[p+1:])))
			}
			if v[i] < 0 || width == 4 && v[i] == 0 {
				return nil, fmt.Errorf("blosc2 B2ND dimension %d is %d", i, v[i])
			}
			p += 1 + width
		}
		return v, nil
	}
	a := &b2ndArray{}
	var err error
	if a.shape, err = dims(0xd3, 8); err != nil {
		return nil, err
	}
	if a.chunkshape, err = dims(0xd2, 4); err != nil {
		return nil, err
	}
	if a.blockshape, err = dims(0xd2, 4); err != nil {
		return nil, err
	}
	for i := range a.shape {
		if a.blockshape[i] > a.chunkshape[i] {
			return nil, fmt.Errorf("blosc2 B2ND block dimension %d (%d) exceeds the chunk's (%d)", i, a.blockshape[i], a.chunkshape[i])
		}
	}
	return a, nil
}

// decode decodes the array's chunks of frame f into out in C order. A
// chunk holds its blocks one after the other, each in C order, and spans
// the chunk shape rounded up to whole blocks; the parts of chunks and
// blocks past the array's edge are padding.
func (a *b2ndArray) decode(f *b2frame, out []byte) ([]byte, error) {
	ndim := len(a.shape)
	es := int64(f.typesize)
	total := es
	for _, d := range a.shape {
		if d != 0 && total > int64(cap(out))/d {
			return nil, fmt.Errorf("blosc2 B2ND array exceeds the %d bytes expected", cap(out))
		}
		total *= d
	}
	if total > int64(cap(out)) {
		return nil, fmt.Errorf("blosc2 B2ND array of %d bytes, more than the %d expected", total, cap(out))
	}
	dst := out[:total]
	if total == 0 {
		return dst, nil
	}
	// The plugins store an HDF5 chunk as one B2ND chunk of its own shape,
	// padded to whole blocks: at most twice each dimension. More padding
	// than that is refused before anything is allocated.
	limit := total << ndim
	grid := make([]int64, ndim)  // chunks per dimension
	bgrid := make([]int64, ndim) // blocks per dimension of a chunk
	blockElems, chunkBytes, nchunks := int64(1), es, int64(1)
	for i := range a.shape {
		grid[i] = (a.shape[i] + a.chunkshape[i] - 1) / a.chunkshape[i]
		bgrid[i] = (a.chunkshape[i] + a.blockshape[i] - 1) / a.blockshape[i]
		ext := bgrid[i] * a.blockshape[i]
		if ext > limit/chunkBytes || grid[i] > limit/chunkBytes/ext/nchunks {
			return nil, fmt.Errorf("blosc2 B2ND array of %d bytes in chunks of shape %v, blocks of %v: padding exceeds twice each dimension",
				total, a.chunkshape, a.blockshape)
		}
		blockElems *= a.blockshape[i]
		chunkBytes *= ext
		nchunks *= grid[i]
	}
	if nchunks != int64(len(f.offsets)) {
		return nil, fmt.Errorf("blosc2 B2ND array of %d chunks in a frame of %d", nchunks, len(f.offsets))
	}
	buf := getFilterBuf(int(chunkBytes))
	defer putFilterBuf(buf)
	cbuf := (*buf)[:chunkBytes]
	strides := make([]int64, ndim) // elements per step of each dimension of the array
	strides[ndim-1] = 1
	for i := ndim - 2; i >= 0; i-- {
		strides[i] = strides[i+1] * a.shape[i+1]
	}
	cpos, bpos, origin := make([]int64, ndim), make([]int64, ndim), make([]int64, ndim)
	for c := 0; c < int(nchunks); c++ {
		if f.chunkSize(c) != int(chunkBytes) {
			return nil, fmt.Errorf("blosc2 B2ND chunk %d holds %d bytes, not %d", c, f.chunkSize(c), chunkBytes)
		}
		if err := f.decodeChunk(c, cbuf); err != nil {
			return nil, err
		}
		clear(bpos)
		for b := int64(0); b < chunkBytes/(blockElems*es); b++ {
			for i := range origin {
				origin[i] = cpos[i]*a.chunkshape[i] + bpos[i]*a.blockshape[i]
			}
			a.copyBlock(dst, cbuf[b*blockElems*es:(b+1)*blockElems*es], origin, cpos, strides, es)
			nextIndex(bpos, bgrid)
		}
		nextIndex(cpos, grid)
	}
	return dst, nil
}

// copyBlock copies the part of one decoded block (origin: its first
// element's position in the array) that lies inside both its chunk (at
// chunk position cpos) and the array into dst.
func (a *b2ndArray) copyBlock(dst, block []byte, origin, cpos, strides []int64, es int64) {
	ndim := len(a.shape)
	ext := make([]int64, ndim) // the block's extent inside chunk and array
	for i := range ext {
		end := min(origin[i]+a.blockshape[i], (cpos[i]+1)*a.chunkshape[i], a.shape[i])
		if end <= origin[i] {
			return
		}
		ext[i] = end - origin[i]
	}
	row := ext[ndim-1] * es
	pos := make([]int64, ndim) // within the block, last dimension 0
	for {
		src, at := int64(0), int64(0)
		for i := 0; i < ndim; i++ {
			src = src*a.blockshape[i] + pos[i]
			at += (origin[i] + pos[i]) * strides[i]
		}
		copy(dst[at*es:at*es+row], block[src*es:src*es+row])
		if ndim == 1 || !nextIndex(pos[:ndim-1], ext[:ndim-1]) {
			return
		}
	}
}

// nextIndex advances pos through the grid ext in C order and reports
// whether it did not wrap around to all zeros.
func nextIndex(pos, ext []int64) bool {
	for i := len(pos) - 1; i >= 0; i-- {
		pos[i]++
		if pos[i] < ext[i] {
			return true
		}
		pos[i] = 0
	}
	return false
}

// isB2Frame reports whether a chunk holds a Blosc2 frame.
func isB2Frame(in []byte) bool { return len(in) >= 10 && bytes.Equal(in[2:10], []byte(b2frameMagic)) }
