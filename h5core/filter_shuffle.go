package h5core

import (
	"encoding/binary"
	"fmt"
)

func init() { registerFilter(FilterShuffle, "shuffle", decodeShuffle, encodeShuffle) }

// encodeShuffle applies the shuffle filter: byte j of every element of
// cd[0] bytes goes to plane j, planes one after the other; the tail of
// len(in)%cd[0] bytes follows as is.
func encodeShuffle(cd []uint32, in []byte) ([]byte, error) {
	if len(cd) != 1 || cd[0] == 0 {
		return nil, fmt.Errorf("invalid shuffle parameters %v", cd)
	}
	es := int(cd[0])
	n := len(in) / es
	if es <= 1 || n <= 1 {
		return in, nil
	}
	out := make([]byte, len(in))
	for j := 0; j < es; j++ {
		plane := out[j*n : j*n+n]
		for i := range plane {
			plane[i] = in[i*es+j]
		}
	}
	copy(out[n*es:], in[n*es:])
	return out, nil
}

// decodeShuffle undoes the shuffle filter (id 2), which stores byte j of
// every element together: cd[0] is the element size. A tail of
// len(in)%size bytes passes unchanged, and so does everything when the
// elements are single bytes or there is at most one element.
func decodeShuffle(cd []uint32, in, out []byte) ([]byte, error) {
	if len(cd) != 1 || cd[0] == 0 {
		return nil, fmt.Errorf("invalid shuffle parameters %v", cd)
	}
	es := int(cd[0])
	if es <= 1 || len(in)/es <= 1 {
		return in, nil
	}
	out, err := sized(out, len(in))
	if err != nil {
		return nil, err
	}
	unshuffleInto(out, in, es)
	return out, nil
}

// unshuffleInto undoes the byte shuffle of src (items of es bytes) into dst,
// which has the same length; a tail of len(src)%es bytes is copied as is.
func unshuffleInto(dst, src []byte, es int) {
	n := len(src) / es
	switch es {
	case 2:
		unshuffle2(dst, src, n)
	case 4:
		unshuffle4(dst, src, n)
	case 8:
		unshuffle8(dst, src, n)
	default:
		unshuffleN(dst, src, n, es)
	}
	copy(dst[n*es:], src[n*es:])
}

// unshuffleN is the general case: element i's byte j is src[j*n+i].
func unshuffleN(dst, src []byte, n, es int) {
	for j := 0; j < es; j++ {
		s := src[j*n : j*n+n]
		d := dst[j:]
		for i, c := range s {
			d[i*es] = c
		}
	}
}

// unshuffle2 interleaves two byte planes, eight elements at a time.
func unshuffle2(dst, src []byte, n int) {
	s0, s1 := src[:n], src[n:2*n]
	i := 0
	for ; i+8 <= n; i += 8 {
		a := spreadBytes(binary.LittleEndian.Uint32(s0[i:]))
		b := spreadBytes(binary.LittleEndian.Uint32(s1[i:]))
		binary.LittleEndian.PutUint64(dst[2*i:], a|b<<8)
		a = spreadBytes(binary.LittleEndian.Uint32(s0[i+4:]))
		b = spreadBytes(binary.LittleEndian.Uint32(s1[i+4:]))
		binary.LittleEndian.PutUint64(dst[2*i+8:], a|b<<8)
	}
	for ; i < n; i++ {
		dst[2*i] = s0[i]
		dst[2*i+1] = s1[i]
	}
}

// spreadBytes moves byte k of x to byte 2k of the result.
func spreadBytes(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000ffff0000ffff
	return (v | v<<8) & 0x00ff00ff00ff00ff
}

// unshuffle4 transposes 4 byte planes × 8 elements at a time.
func unshuffle4(dst, src []byte, n int) {
	s0, s1, s2, s3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
	i := 0
	for ; i+8 <= n; i += 8 {
		w0 := binary.LittleEndian.Uint64(s0[i:])
		w1 := binary.LittleEndian.Uint64(s1[i:])
		w2 := binary.LittleEndian.Uint64(s2[i:])
		w3 := binary.LittleEndian.Uint64(s3[i:])
		w0, w1 = transposeStep(w0, w1, 8, 0x00ff00ff00ff00ff)
		w2, w3 = transposeStep(w2, w3, 8, 0x00ff00ff00ff00ff)
		w0, w2 = transposeStep(w0, w2, 16, 0x0000ffff0000ffff)
		w1, w3 = transposeStep(w1, w3, 16, 0x0000ffff0000ffff)
		// wk now holds element i+k in its low half, i+4+k in its high half.
		d := dst[4*i : 4*i+32]
		binary.LittleEndian.PutUint32(d[0:], uint32(w0))
		binary.LittleEndian.PutUint32(d[4:], uint32(w1))
		binary.LittleEndian.PutUint32(d[8:], uint32(w2))
		binary.LittleEndian.PutUint32(d[12:], uint32(w3))
		binary.LittleEndian.PutUint32(d[16:], uint32(w0>>32))
		binary.LittleEndian.PutUint32(d[20:], uint32(w1>>32))
		binary.LittleEndian.PutUint32(d[24:], uint32(w2>>32))
		binary.LittleEndian.PutUint32(d[28:], uint32(w3>>32))
	}
	for ; i < n; i++ {
		dst[4*i] = s0[i]
		dst[4*i+1] = s1[i]
		dst[4*i+2] = s2[i]
		dst[4*i+3] = s3[i]
	}
}

// unshuffle8Go interleaves 8 byte planes of n bytes from element from on,
// transposing 8 planes × 8 elements at a time: unshuffle8 on any
// architecture, and its last elements on amd64.
func unshuffle8Go(dst, src []byte, n, from int) {
	s0, s1, s2, s3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
	s4, s5, s6, s7 := src[4*n:5*n], src[5*n:6*n], src[6*n:7*n], src[7*n:8*n]
	i := from
	for ; i+8 <= n; i += 8 {
		w0 := binary.LittleEndian.Uint64(s0[i:])
		w1 := binary.LittleEndian.Uint64(s1[i:])
		w2 := binary.LittleEndian.Uint64(s2[i:])
		w3 := binary.LittleEndian.Uint64(s3[i:])
		w4 := binary.LittleEndian.Uint64(s4[i:])
		w5 := binary.LittleEndian.Uint64(s5[i:])
		w6 := binary.LittleEndian.Uint64(s6[i:])
		w7 := binary.LittleEndian.Uint64(s7[i:])
		w0, w1 = transposeStep(w0, w1, 8, 0x00ff00ff00ff00ff)
		w2, w3 = transposeStep(w2, w3, 8, 0x00ff00ff00ff00ff)
		w4, w5 = transposeStep(w4, w5, 8, 0x00ff00ff00ff00ff)
		w6, w7 = transposeStep(w6, w7, 8, 0x00ff00ff00ff00ff)
		w0, w2 = transposeStep(w0, w2, 16, 0x0000ffff0000ffff)
		w1, w3 = transposeStep(w1, w3, 16, 0x0000ffff0000ffff)
		w4, w6 = transposeStep(w4, w6, 16, 0x0000ffff0000ffff)
		w5, w7 = transposeStep(w5, w7, 16, 0x0000ffff0000ffff)
		w0, w4 = transposeStep(w0, w4, 32, 0x00000000ffffffff)
		w1, w5 = transposeStep(w1, w5, 32, 0x00000000ffffffff)
		w2, w6 = transposeStep(w2, w6, 32, 0x00000000ffffffff)
		w3, w7 = transposeStep(w3, w7, 32, 0x00000000ffffffff)
		d := dst[8*i : 8*i+64]
		binary.LittleEndian.PutUint64(d[0:], w0)
		binary.LittleEndian.PutUint64(d[8:], w1)
		binary.LittleEndian.PutUint64(d[16:], w2)
		binary.LittleEndian.PutUint64(d[24:], w3)
		binary.LittleEndian.PutUint64(d[32:], w4)
		binary.LittleEndian.PutUint64(d[40:], w5)
		binary.LittleEndian.PutUint64(d[48:], w6)
		binary.LittleEndian.PutUint64(d[56:], w7)
	}
	for ; i < n; i++ {
		d := dst[8*i : 8*i+8]
		d[0], d[1], d[2], d[3] = s0[i], s1[i], s2[i], s3[i]
		d[4], d[5], d[6], d[7] = s4[i], s5[i], s6[i], s7[i]
	}
}

// transposeStep swaps the odd blocks of a with the even blocks of b, blocks
// being shift bits wide: one step of a recursive byte-matrix transpose
// whose rows are little-endian words.
func transposeStep(a, b uint64, shift uint, mask uint64) (uint64, uint64) {
	t := (a>>shift ^ b) & mask
	return a ^ t<<shift, b ^ t
}
