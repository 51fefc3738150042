package h5core

import "errors"

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
