package h5core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The deflate filter stores each chunk as one whole zlib stream whose
// decoded size is known, so h5core inflates a buffer into a buffer instead
// of streaming through an io.Reader: a 64-bit bit buffer refilled by one
// 8-byte load, table entries that decode a literal, or a length with its
// extra bits, in one lookup (inflate_table.go), matches copied 8 bytes at
// a time, and a careful loop for the last bytes of input and output. On
// amd64 with BMI2 the fast loop is assembly (huffmanFastAsm, 16-byte
// copies); the Go loop stays the reference the tests hold it to.

// errInflateTruncated reports a deflate stream that ends too soon.
var errInflateTruncated = fmt.Errorf("deflate stream truncated: %w", io.ErrUnexpectedEOF)

// inflater holds the decode tables of one stream's dynamic blocks.
type inflater struct {
	litlen  [litlenTableSize]uint32
	dist    [distTableSize]uint32
	precode [1 << precodeBits]uint32
	lens    [maxLitlenUse + maxDistUse]uint8
	goLoop  bool // use huffmanBlock's Go loop even where assembly runs (tests)
}

var inflaters = sync.Pool{New: func() any { return new(inflater) }}

// inflateInto decompresses the zlib stream in (RFC 1950) into dst and
// returns the decompressed length; decompressing to more than len(dst)
// bytes is an error. Bytes after the stream's checksum are ignored, as
// libhdf5 does.
func inflateInto(dst, in []byte) (int, error) {
	if len(in) < 2 {
		return 0, fmt.Errorf("zlib stream: truncated header: %w", io.ErrUnexpectedEOF)
	}
	if cmf, flg := in[0], in[1]; cmf&0x0f != 8 || cmf>>4 > 7 || (uint(cmf)<<8|uint(flg))%31 != 0 {
		return 0, fmt.Errorf("zlib stream: invalid header %#02x %#02x", cmf, flg)
	} else if flg&0x20 != 0 {
		return 0, errors.New("zlib stream: needs a preset dictionary, which HDF5 never provides")
	}
	f := inflaters.Get().(*inflater)
	n, end, err := f.inflate(dst, in[2:])
	inflaters.Put(f)
	if err != nil {
		return 0, fmt.Errorf("zlib stream: %w", err)
	}
	end += 2
	if len(in)-end < 4 {
		return 0, fmt.Errorf("zlib stream: truncated checksum: %w", io.ErrUnexpectedEOF)
	}
	if want, got := binary.BigEndian.Uint32(in[end:]), adler32Sum(dst[:n]); want != got {
		return 0, fmt.Errorf("zlib stream: checksum %#08x, the data sums to %#08x", want, got)
	}
	return n, nil
}

// bitReader reads a deflate stream's bits, least significant first. Bits
// of buf above n are zero or the stream's next bits. pos, the next byte
// to load, runs past the end of in by the zero bytes read there (at most
// 8): whether the stream really held the bits it used is checked at its
// end.
type bitReader struct {
	in  []byte
	pos int
	buf uint64
	n   uint
}

// refill fills the buffer to at least 56 bits. It reports false when that
// needs more than 8 bytes past the end of input.
func (r *bitReader) refill() bool {
	if r.pos <= len(r.in)-8 {
		r.buf |= binary.LittleEndian.Uint64(r.in[r.pos:]) << (r.n & 63)
		r.pos += int(63-r.n) >> 3
		r.n |= 56
		return true
	}
	for r.n < 56 {
		if r.pos < len(r.in) {
			r.buf |= uint64(r.in[r.pos]) << (r.n & 63)
		} else if r.pos-len(r.in) >= 8 {
			return false
		}
		r.pos++
		r.n += 8
	}
	return true
}

// consume drops k <= r.n bits.
func (r *bitReader) consume(k uint) {
	r.buf >>= k & 63
	r.n -= k
}

// inflate decodes the deflate stream (RFC 1951) in into out and returns
// the decoded length and the length of the stream.
func (f *inflater) inflate(out, in []byte) (n, end int, err error) {
	br := bitReader{in: in}
	op := 0
	for final := false; !final; {
		if !br.refill() {
			return 0, 0, errInflateTruncated
		}
		final = br.buf&1 != 0
		typ := br.buf >> 1 & 3
		br.consume(3)
		switch typ {
		case 0:
			op, err = storedBlock(out, op, &br)
		case 1:
			op, err = f.huffman(out, op, &br, fixedLitlen, fixedDist)
		case 2:
			if err = f.readDynamic(&br); err == nil {
				op, err = f.huffman(out, op, &br, &f.litlen, &f.dist)
			}
		default:
			err = errors.New("invalid deflate block type 3")
		}
		if err != nil {
			return 0, 0, err
		}
	}
	end = br.pos - int(br.n>>3)
	if end > len(in) {
		return 0, 0, errInflateTruncated
	}
	return op, end, nil
}

// storedBlock copies a stored block's bytes to out[op:].
func storedBlock(out []byte, op int, br *bitReader) (int, error) {
	p := br.pos - int(br.n>>3) // the byte after the block header
	br.buf, br.n = 0, 0
	in := br.in
	if p > len(in)-4 {
		return 0, errInflateTruncated
	}
	ln, nln := binary.LittleEndian.Uint16(in[p:]), binary.LittleEndian.Uint16(in[p+2:])
	if ln != ^nln {
		return 0, fmt.Errorf("stored block length %d does not match its complement %d", ln, nln)
	}
	p += 4
	n := int(ln)
	if n > len(in)-p {
		return 0, errInflateTruncated
	}
	if n > len(out)-op {
		return 0, errInflateTooLong(len(out))
	}
	op += copy(out[op:], in[p:p+n])
	br.pos = p + n
	return op, nil
}

func errInflateTooLong(n int) error {
	return fmt.Errorf("deflate stream decodes to more than the expected %d bytes", n)
}

// precodeOrder is the order of the code length code lengths in a dynamic
// block header.
var precodeOrder = [numPrecode]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// readDynamic reads a dynamic block's header and builds its tables.
func (f *inflater) readDynamic(br *bitReader) error {
	if !br.refill() {
		return errInflateTruncated
	}
	nlit := int(br.buf&31) + 257
	ndist := int(br.buf>>5&31) + 1
	nclen := int(br.buf>>10&15) + 4
	br.consume(14)
	if nlit > maxLitlenUse || ndist > maxDistUse {
		return fmt.Errorf("dynamic block with %d literal/length and %d distance codes (at most %d and %d)", nlit, ndist, maxLitlenUse, maxDistUse)
	}
	var clens [numPrecode]uint8
	for _, s := range precodeOrder[:nclen] {
		if br.n < 3 && !br.refill() {
			return errInflateTruncated
		}
		clens[s] = uint8(br.buf & 7)
		br.consume(3)
	}
	if !buildDecodeTable(f.precode[:], clens[:], precodeSyms[:], precodeBits) {
		return errors.New("dynamic block: invalid code length code")
	}
	lens := f.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		if br.n < 2*precodeBits && !br.refill() {
			return errInflateTruncated
		}
		e := f.precode[br.buf&(1<<precodeBits-1)]
		if e&entExcept != 0 {
			return errors.New("dynamic block: invalid code length codeword")
		}
		br.consume(uint(e & 0xff))
		sym := uint8(e >> 16)
		if sym < 16 {
			lens[i] = sym
			i++
			continue
		}
		var rep int
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return errors.New("dynamic block: code length repeat with no previous length")
			}
			rep, v = 3+int(br.buf&3), lens[i-1]
			br.consume(2)
		case 17:
			rep = 3 + int(br.buf&7)
			br.consume(3)
		default:
			rep = 11 + int(br.buf&127)
			br.consume(7)
		}
		if rep > len(lens)-i {
			return errors.New("dynamic block: code length repeat past the last code")
		}
		for range rep {
			lens[i] = v
			i++
		}
	}
	if !buildDecodeTable(f.litlen[:], lens[:nlit], litlenSyms[:], litlenBits) {
		return errors.New("dynamic block: invalid literal/length code lengths")
	}
	if !buildDecodeTable(f.dist[:], lens[nlit:], distSyms[:], distBits) {
		return errors.New("dynamic block: invalid distance code lengths")
	}
	return nil
}

// huffman decodes a block of Huffman codes with the tables lt and dt into
// out[op:] and returns the new output length: huffmanFastAsm's fast loop
// where the processor has it, then huffmanBlockTail, or else huffmanBlock.
func (f *inflater) huffman(out []byte, op int, br *bitReader, lt *[litlenTableSize]uint32, dt *[distTableSize]uint32) (int, error) {
	if huffmanAsm && !f.goLoop && len(out)-op > fastAsmOutSlack {
		return huffmanBlockTail(out, huffmanFastAsm(out, op, br, lt, dt), br, lt, dt)
	}
	return huffmanBlock(out, op, br, lt, dt)
}

// fastAsmOutSlack is the output room a round of huffmanFastAsm needs: two
// literals and a match of 258 bytes copied 16 bytes a step.
const fastAsmOutSlack = 2 + 258 + 16

// fastOutSlack is the output room the fast loop of huffmanBlock needs for
// one round: two literals and a match of 258 bytes copied in 8-byte words.
const fastOutSlack = 2 + 258 + 8

// huffmanBlock decodes a block of Huffman codes with the tables lt and dt
// into out[op:] and returns the new output length.
//
// Its fast loop runs while 16 bytes of input are left (two refills by
// 8-byte loads) and fastOutSlack bytes of output: one refill leaves at
// least 56 bits, enough for three literals of the main table, or for a
// length (at most 15+5 bits) and a distance (15+13). Near the ends the slow
// loop does the same with a checked refill and exact copies.
func huffmanBlock(out []byte, op int, br *bitReader, lt *[litlenTableSize]uint32, dt *[distTableSize]uint32) (int, error) {
	const litMask = 1<<litlenBits - 1
	const distMask = 1<<distBits - 1
	in := br.in
	buf, n, pos := br.buf, br.n, br.pos
	for pos <= len(in)-16 && op <= len(out)-fastOutSlack {
		buf |= binary.LittleEndian.Uint64(in[pos:]) << (n & 63)
		pos += int(63-n) >> 3
		n |= 56
		e := lt[buf&litMask]
		if e&entLiteral != 0 {
			buf >>= e & 63
			n -= uint(e & 0xff)
			out[op] = byte(e >> 16)
			op++
			e = lt[buf&litMask]
			if e&entLiteral != 0 {
				buf >>= e & 63
				n -= uint(e & 0xff)
				out[op] = byte(e >> 16)
				op++
				e = lt[buf&litMask]
				if e&entLiteral != 0 {
					buf >>= e & 63
					n -= uint(e & 0xff)
					out[op] = byte(e >> 16)
					op++
					continue
				}
			}
			// the bits below n stay as they are: e is still the next entry
			buf |= binary.LittleEndian.Uint64(in[pos:]) << (n & 63)
			pos += int(63-n) >> 3
			n |= 56
		}
		if e&entExcept != 0 {
			if e&entSubtable == 0 {
				if e&entEOB == 0 {
					return 0, errors.New("invalid literal/length code")
				}
				buf >>= e & 63
				n -= uint(e & 0xff)
				br.buf, br.n, br.pos = buf, n, pos
				return op, nil
			}
			buf >>= e & 63
			n -= uint(e & 0xff)
			e = lt[e>>16+uint32(buf)&(1<<(e>>8&15)-1)]
			if e&entLiteral != 0 {
				buf >>= e & 63
				n -= uint(e & 0xff)
				out[op] = byte(e >> 16)
				op++
				continue
			}
			if e&entExcept != 0 {
				if e&entEOB == 0 {
					return 0, errors.New("invalid literal/length code")
				}
				buf >>= e & 63
				n -= uint(e & 0xff)
				br.buf, br.n, br.pos = buf, n, pos
				return op, nil
			}
		}
		saved := buf
		buf >>= e & 63
		n -= uint(e & 0xff)
		length := int(e>>16) + int(saved&(1<<(e&63)-1)>>(e>>8&15))

		d := dt[buf&distMask]
		if d&entExcept != 0 {
			if d&entSubtable == 0 {
				return 0, errors.New("invalid distance code")
			}
			buf >>= d & 63
			n -= uint(d & 0xff)
			d = dt[d>>16+uint32(buf)&(1<<(d>>8&15)-1)]
			if d&entExcept != 0 {
				return 0, errors.New("invalid distance code")
			}
		}
		saved = buf
		buf >>= d & 63
		n -= uint(d & 0xff)
		dist := int(d>>16) + int(saved&(1<<(d&63)-1)>>(d>>8&15))
		if dist > op {
			return 0, fmt.Errorf("match distance %d beyond the %d bytes decoded", dist, op)
		}
		src := op - dist
		end := op + length
		switch {
		case dist >= 8: // words never overlap what they copy
			for ; op < end; op, src = op+8, src+8 {
				binary.LittleEndian.PutUint64(out[op:], binary.LittleEndian.Uint64(out[src:]))
			}
		case dist == 1:
			v := uint64(out[src]) * 0x0101010101010101
			for ; op < end; op += 8 {
				binary.LittleEndian.PutUint64(out[op:], v)
			}
		default:
			for ; op < end; op, src = op+1, src+1 {
				out[op] = out[src]
			}
		}
		op = end
	}
	br.buf, br.n, br.pos = buf, n, pos
	return huffmanBlockTail(out, op, br, lt, dt)
}

// huffmanBlockTail decodes the rest of a Huffman block one symbol at a
// time, checking every refill and every copy.
func huffmanBlockTail(out []byte, op int, br *bitReader, lt *[litlenTableSize]uint32, dt *[distTableSize]uint32) (int, error) {
	for {
		if !br.refill() {
			return 0, errInflateTruncated
		}
		e := lt[br.buf&(1<<litlenBits-1)]
		if e&entSubtable != 0 {
			br.consume(uint(e & 0xff))
			e = lt[e>>16+uint32(br.buf)&(1<<(e>>8&15)-1)]
		}
		if e&entExcept != 0 {
			if e&entEOB == 0 {
				return 0, errors.New("invalid literal/length code")
			}
			br.consume(uint(e & 0xff))
			return op, nil
		}
		saved := br.buf
		br.consume(uint(e & 0xff))
		if e&entLiteral != 0 {
			if op >= len(out) {
				return 0, errInflateTooLong(len(out))
			}
			out[op] = byte(e >> 16)
			op++
			continue
		}
		length := int(e>>16) + int(saved&(1<<(e&63)-1)>>(e>>8&15))
		d := dt[br.buf&(1<<distBits-1)]
		if d&entSubtable != 0 {
			br.consume(uint(d & 0xff))
			d = dt[d>>16+uint32(br.buf)&(1<<(d>>8&15)-1)]
		}
		if d&entExcept != 0 {
			return 0, errors.New("invalid distance code")
		}
		saved = br.buf
		br.consume(uint(d & 0xff))
		dist := int(d>>16) + int(saved&(1<<(d&63)-1)>>(d>>8&15))
		if dist > op {
			return 0, fmt.Errorf("match distance %d beyond the %d bytes decoded", dist, op)
		}
		if length > len(out)-op {
			return 0, errInflateTooLong(len(out))
		}
		for src, end := op-dist, op+length; op < end; op, src = op+1, src+1 {
			out[op] = out[src]
		}
	}
}
