package h5core

import "errors"

func init() { registerFilter(FilterLZF, "lzf", decodeLZF, encodeLZF) }

// LZF stream limits (liblzf's lzfP.h).
const (
	lzfHashLog = 14
	lzfMaxLit  = 1 << 5      // bytes in one literal run
	lzfMaxOff  = 1 << 13     // back-reference distance
	lzfMaxRef  = 1<<8 + 1<<3 // back-reference length
)

// encodeLZF applies the LZF filter: a liblzf stream of literal runs and
// back references (see decodeLZF). Like h5py's filter it declines a chunk
// it cannot shrink (or an empty one): h5py registers LZF as optional, so
// such a chunk is stored as it is with the filter's mask bit set.
func encodeLZF(_ []uint32, in []byte) ([]byte, error) {
	if len(in) == 0 {
		return nil, errFilterSkipped
	}
	out := make([]byte, 0, len(in)+len(in)/lzfMaxLit+1)
	htab := make([]int32, 1<<lzfHashLog) // position+1 of the last 3 bytes hashing here
	hash := func(i int) uint32 {
		v := uint32(in[i])<<16 | uint32(in[i+1])<<8 | uint32(in[i+2])
		return v * 2654435761 >> (32 - lzfHashLog)
	}
	lit := 0 // start of the pending literal bytes
	flush := func(end int) {
		for lit < end {
			n := min(lzfMaxLit, end-lit)
			out = append(append(out, byte(n-1)), in[lit:lit+n]...)
			lit += n
		}
	}
	for i := 0; i+2 < len(in); {
		h := hash(i)
		ref := int(htab[h]) - 1
		htab[h] = int32(i + 1)
		if ref < 0 || i-ref > lzfMaxOff || in[ref] != in[i] || in[ref+1] != in[i+1] || in[ref+2] != in[i+2] {
			i++
			continue
		}
		n, limit := 3, min(len(in)-i, lzfMaxRef)
		for n < limit && in[ref+n] == in[i+n] {
			n++
		}
		flush(i)
		off, code := i-ref-1, n-2
		if code < 7 {
			out = append(out, byte(code<<5|off>>8))
		} else {
			out = append(out, byte(7<<5|off>>8), byte(code-7))
		}
		out = append(out, byte(off))
		for j := i + 1; j < i+n && j+2 < len(in); j++ {
			htab[hash(j)] = int32(j + 1)
		}
		i += n
		lit = i
		if len(out) >= len(in) {
			return nil, errFilterSkipped
		}
	}
	flush(len(in))
	if len(out) >= len(in) {
		return nil, errFilterSkipped
	}
	return out, nil
}

// decodeLZF undoes the LZF filter (id 32000) of h5py and PyTables: one raw
// liblzf stream. A chunk LZF could not shrink is stored as it was, with the
// filter's bit set in the chunk's filter mask (the filter is optional), so
// it never reaches this decoder.
func decodeLZF(_ []uint32, in, out []byte) ([]byte, error) {
	if len(in) == 0 {
		return nil, errors.New("empty LZF stream")
	}
	dst := out[:cap(out)]
	op, ip := 0, 0
	for ip < len(in) {
		ctrl := int(in[ip])
		ip++
		if ctrl < 1<<5 { // literal run of ctrl+1 bytes
			n := ctrl + 1
			if ip+n > len(in) {
				return nil, errors.New("LZF stream truncated in a literal run")
			}
			if op+n > len(dst) {
				return nil, errors.New("LZF stream decodes to more than the expected size")
			}
			copy(dst[op:], in[ip:ip+n])
			op += n
			ip += n
			continue
		}
		// back reference: length in the top 3 bits (7 = extended),
		// distance-1 in the low 5 bits and the next byte
		n := ctrl >> 5
		if ip >= len(in) {
			return nil, errors.New("LZF stream truncated in a back reference")
		}
		if n == 7 {
			n += int(in[ip])
			ip++
			if ip >= len(in) {
				return nil, errors.New("LZF stream truncated in a back reference")
			}
		}
		ref := op - (ctrl&0x1f)<<8 - 1 - int(in[ip])
		ip++
		n += 2
		if op+n > len(dst) {
			return nil, errors.New("LZF stream decodes to more than the expected size")
		}
		if ref < 0 {
			return nil, errors.New("LZF back reference before the start of the data")
		}
		if op-ref >= n {
			copy(dst[op:op+n], dst[ref:ref+n])
		} else {
			for k := 0; k < n; k++ { // overlapping: repeats the pattern
				dst[op+k] = dst[ref+k]
			}
		}
		op += n
	}
	return dst[:op], nil
}
