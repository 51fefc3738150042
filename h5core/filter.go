package h5core

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// Filter identifiers of the HDF5 filter pipeline (Filter.ID). Values below
// 256 are defined by the format; the others are registered third-party
// filters.
const (
	FilterDeflate     = 1     // zlib deflate (gzip)
	FilterShuffle     = 2     // byte shuffle
	FilterFletcher32  = 3     // Fletcher-32 checksum
	FilterSZIP        = 4     // SZIP (CCSDS adaptive entropy coding, as libaec writes it)
	FilterNBit        = 5     // n-bit packing
	FilterScaleOffset = 6     // scale-offset packing
	FilterLZF         = 32000 // LZF, as h5py and PyTables write it
	FilterBlosc       = 32001 // Blosc version 1 frames
	FilterLZ4         = 32004 // LZ4 blocks in the HDF Group plugin's framing
	FilterZstd        = 32015 // Zstandard frames
)

// maxFilters is the most filters a pipeline may hold: one bit each in a
// chunk's 32-bit filter mask.
const maxFilters = 32

// filterDecoder undoes one filter. cd are the filter's client data values,
// in is the filter's output on write. The decoder writes its result into
// out (length 0) and must never produce more than cap(out) bytes: cap(out)
// is the most this stage of the pipeline may decode to, and exceeding it is
// an error. A decoder may instead return in itself or a sub-slice of it
// (shuffle of 1-byte items, the checksum filter).
type filterDecoder func(cd []uint32, in, out []byte) ([]byte, error)

// unsupportedError reports a valid feature h5core does not implement.
type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string { return e.msg }
func (e *unsupportedError) Unwrap() error { return ErrUnsupported }

// filterStageLimit is the most an intermediate stage of a pipeline may
// decode to for a chunk of size bytes: the output of one compressor can be
// the input of another, and incompressible data grows a little.
func filterStageLimit(size int) int { return size + size/128 + 4096 }

// filterBufPool holds scratch buffers for intermediate pipeline stages.
var filterBufPool sync.Pool // of *[]byte

// getFilterBuf returns a pooled buffer with a capacity of at least n bytes.
func getFilterBuf(n int) *[]byte {
	if p, ok := filterBufPool.Get().(*[]byte); ok && cap(*p) >= n {
		return p
	}
	b := make([]byte, n)
	return &b
}

// putFilterBuf returns a buffer (or nil) to the pool.
func putFilterBuf(p *[]byte) {
	if p != nil {
		filterBufPool.Put(p)
	}
}

// sameArray reports whether the capacities of a and b end at the same place
// in memory, as when a is a sub-slice of b (a[i:j] keeps the end of b).
func sameArray(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:cap(a)][cap(a)-1] == &b[:cap(b)][cap(b)-1]
}

// decodeChunk undoes a chunk's filter pipeline: filters run in reverse
// order, skipping filter i when bit i of mask is set. size is the decoded
// chunk size in bytes (chunk elements × element size); no stage may decode
// to much more than that, and the result must be exactly size bytes. The
// result may share memory with data.
func decodeChunk(pipeline []Filter, mask uint32, data []byte, size int) ([]byte, error) {
	if size < 0 {
		return nil, fmt.Errorf("invalid decoded chunk size %d", size)
	}
	if len(pipeline) > maxFilters {
		return nil, fmt.Errorf("filter pipeline of %d filters (at most %d)", len(pipeline), maxFilters)
	}
	last := -1 // the index of the last filter to undo
	for i := range pipeline {
		if mask&(1<<i) == 0 {
			last = i
			break
		}
	}
	cur := data
	var curPool *[]byte // the pooled buffer cur lives in, if any,
	var curBase []byte  // and the slice of it the decoder of cur was given
	for i := len(pipeline) - 1; i >= last && last >= 0; i-- {
		if mask&(1<<i) != 0 {
			continue
		}
		f := &pipeline[i]
		dec := filterDecoderFor(f.ID)
		if dec == nil {
			putFilterBuf(curPool)
			return nil, &unsupportedError{fmt.Sprintf("filter %s not supported", filterLabel(f))}
		}
		var out []byte
		var outPool *[]byte
		if i == last {
			out = make([]byte, 0, size)
		} else {
			limit := filterStageLimit(size)
			outPool = getFilterBuf(limit)
			out = (*outPool)[:0:limit]
		}
		res, err := dec(f.ClientData, cur, out)
		if err != nil {
			putFilterBuf(curPool)
			putFilterBuf(outPool)
			return nil, fmt.Errorf("filter %s: %w", filterLabel(f), err)
		}
		switch {
		case outPool != nil && sameArray(res, out):
			putFilterBuf(curPool)
			curPool, curBase = outPool, out
		case curPool != nil && sameArray(res, curBase): // decoded in place
			putFilterBuf(outPool)
		default:
			putFilterBuf(curPool)
			putFilterBuf(outPool)
			curPool, curBase = nil, nil
		}
		cur = res
	}
	if len(cur) != size {
		putFilterBuf(curPool)
		return nil, fmt.Errorf("decoded chunk is %d bytes, expected %d", len(cur), size)
	}
	if curPool != nil {
		cur = append(make([]byte, 0, size), cur...)
		putFilterBuf(curPool)
	}
	return cur, nil
}

// sized returns out resliced to n bytes, or an error when n is more than
// the cap(out) bytes this stage may produce.
func sized(out []byte, n int) ([]byte, error) {
	if n < 0 || n > cap(out) {
		return nil, fmt.Errorf("decodes to %d bytes, more than the %d expected", n, cap(out))
	}
	return out[:n], nil
}

// msbBitReader reads bit fields most significant bit first, the packing of
// the n-bit and scale-offset filters.
type msbBitReader struct {
	b   []byte
	pos int    // next byte of b
	acc uint64 // buffered bits, in the low n bits
	n   uint
}

// bits returns the next k bits (k <= 32); ok is false past the end.
func (r *msbBitReader) bits(k uint) (v uint64, ok bool) {
	for r.n < k {
		if r.pos >= len(r.b) {
			return 0, false
		}
		r.acc = r.acc<<8 | uint64(r.b[r.pos])
		r.pos++
		r.n += 8
	}
	r.n -= k
	return r.acc >> r.n & (1<<k - 1), true
}

// bits64 returns the next k bits (k <= 64).
func (r *msbBitReader) bits64(k uint) (uint64, bool) {
	if k <= 32 {
		return r.bits(k)
	}
	hi, ok1 := r.bits(k - 32)
	lo, ok2 := r.bits(32)
	return hi<<32 | lo, ok1 && ok2
}

// msbBitWriter is msbBitReader's inverse: it appends bit fields to b,
// most significant bit first.
type msbBitWriter struct {
	b   []byte
	acc uint64 // pending bits, in the low n bits
	n   uint
}

// put writes the low k bits of v (k <= 64).
func (w *msbBitWriter) put(v uint64, k uint) {
	if k > 32 {
		w.put(v>>32, k-32)
		v, k = v&0xffffffff, 32
	}
	w.acc = w.acc<<k | v&(1<<k-1)
	w.n += k
	for w.n >= 8 {
		w.n -= 8
		w.b = append(w.b, byte(w.acc>>w.n))
	}
}

// flush pads the last byte with zero bits and returns the bytes written.
func (w *msbBitWriter) flush() []byte {
	if w.n > 0 {
		w.b = append(w.b, byte(w.acc<<(8-w.n)))
		w.n = 0
	}
	return w.b
}

// putUint writes the low n bytes of v (n <= 8) in the given byte order.
func putUint(b []byte, v uint64, n int, bigEndian bool) {
	if bigEndian {
		for i := n - 1; i >= 0; i-- {
			b[i] = byte(v)
			v >>= 8
		}
		return
	}
	switch n {
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	default:
		for i := 0; i < n; i++ {
			b[i] = byte(v)
			v >>= 8
		}
	}
}
