package h5core

import "math/bits"

// Decode table entries of the inflater (inflate.go). One lookup of the
// low bits of the bit buffer gives one uint32 entry:
//
//	bits 0-7   bits to consume: the codeword (or its part past the main
//	           table, in a subtable) plus the symbol's extra bits; for a
//	           subtable pointer, the main table's index bits
//	bits 8-11  codeword bits, where the extra bits start; for a subtable
//	           pointer, the subtable's index bits
//	bit 12     a literal byte
//	bit 13     exceptional: end of block, subtable pointer or a code the
//	           stream may not use
//	bit 14     subtable pointer
//	bit 15     end of block
//	bits 16-31 the literal byte, base length, base distance or symbol; for
//	           a subtable pointer, the subtable's start index
//
// The bit layout lets the decoder consume an entry with one shift and take
// a length or distance as base + the extra bits above the codeword.
const (
	entLiteral  = 1 << 12
	entExcept   = 1 << 13
	entSubtable = 1 << 14
	entEOB      = 1 << 15
)

const (
	maxCodeBits  = 15 // longest deflate codeword
	litlenBits   = 11 // main table index bits of literal/length codes
	distBits     = 8  // main table index bits of distance codes
	precodeBits  = 7  // code length codes are at most 7 bits: one level
	numLitlen    = 288
	numDist      = 32
	numPrecode   = 19
	maxLitlenUse = 286 // symbols 286 and 287 may not occur
	maxDistUse   = 30  // distance symbols 30 and 31 may not occur

	// A main table plus, at most, one subtable of the longest codeword's
	// remaining bits per symbol.
	litlenTableSize = 1<<litlenBits + numLitlen<<(maxCodeBits-litlenBits)
	distTableSize   = 1<<distBits + numDist<<(maxCodeBits-distBits)
)

// litlenSyms, distSyms and precodeSyms are the entries of each symbol
// before the codeword bits are added (buildDecodeTable adds them): flags,
// value and, in the low byte, the number of extra bits.
var litlenSyms, distSyms, precodeSyms = func() (l [numLitlen]uint32, d [numDist]uint32, p [numPrecode]uint32) {
	for s := range 256 {
		l[s] = entLiteral | uint32(s)<<16
	}
	l[256] = entExcept | entEOB
	base := uint32(3)
	for s := 257; s < maxLitlenUse; s++ {
		extra := uint32(0)
		if s >= 265 && s < 285 {
			extra = uint32(s-261) / 4
		}
		if s == 285 {
			base = 258
		}
		l[s] = base<<16 | extra
		base += 1 << extra
	}
	l[286], l[287] = entExcept, entExcept
	base = 1
	for s := range maxDistUse {
		extra := uint32(0)
		if s >= 4 {
			extra = uint32(s)/2 - 1
		}
		d[s] = base<<16 | extra
		base += 1 << extra
	}
	d[30], d[31] = entExcept, entExcept
	for s := range p {
		p[s] = uint32(s) << 16
	}
	return
}()

// fixedLitlen and fixedDist are the tables of the fixed Huffman codes
// (RFC 1951 3.2.6).
var fixedLitlen, fixedDist = func() (l *[litlenTableSize]uint32, d *[distTableSize]uint32) {
	var lens [numLitlen + numDist]uint8
	for s := range numLitlen {
		switch {
		case s < 144:
			lens[s] = 8
		case s < 256:
			lens[s] = 9
		case s < 280:
			lens[s] = 7
		default:
			lens[s] = 8
		}
	}
	for s := range numDist {
		lens[numLitlen+s] = 5
	}
	l, d = new([litlenTableSize]uint32), new([distTableSize]uint32)
	if !buildDecodeTable(l[:], lens[:numLitlen], litlenSyms[:], litlenBits) ||
		!buildDecodeTable(d[:], lens[numLitlen:], distSyms[:], distBits) {
		panic("h5core: fixed Huffman tables do not build")
	}
	return l, d
}()

// buildDecodeTable fills table with the decode entries of the canonical
// Huffman code whose codeword lengths are lens (0: the symbol is unused);
// syms gives each symbol's entry before its codeword bits, tb the main
// table's index bits. Codewords longer than tb bits go to subtables, all
// of the longest codeword's remaining bits, after the main table.
//
// It reports false for an over-subscribed or incomplete code. Like
// compress/flate (and zlib for literal/length and distance codes) it
// accepts an empty code and a code of one 1-bit codeword; the codewords
// those lack decode to invalid entries.
func buildDecodeTable(table []uint32, lens []uint8, syms []uint32, tb uint) bool {
	var count [maxCodeBits + 1]int
	for _, l := range lens {
		count[l&15]++ // lengths are at most 15 by construction
	}
	count[0] = 0
	maxLen := uint(maxCodeBits)
	for maxLen > 0 && count[maxLen] == 0 {
		maxLen--
	}
	main := table[:1<<tb]
	if maxLen == 0 {
		for i := range main {
			main[i] = entExcept
		}
		return true
	}
	left := 1 // codewords not yet assigned at the current length
	for l := 1; l <= maxCodeBits; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false // over-subscribed
		}
	}
	if left > 0 && (maxLen != 1 || count[1] != 1) {
		return false // incomplete
	}
	var offs [maxCodeBits + 2]int
	for l := 1; l <= maxCodeBits; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	var sorted [numLitlen]uint16
	for s, l := range lens {
		if l != 0 {
			sorted[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	// The main table is filled length by length: before the codewords of
	// length l <= tb go to their indexes below 2^l, the part filled so far
	// (below 2^(l-1)) is copied above itself, which repeats each shorter
	// codeword's entry at every index whose low bits are that codeword.
	// Indexes no codeword reaches keep entExcept (the missing codeword of
	// a code of one 1-bit codeword).
	main[0] = entExcept
	sb := uint(0) // subtable index bits
	if maxLen > tb {
		sb = maxLen - tb
	}
	next := 1 << tb // start of the next subtable
	start, prefix := 0, -1
	code, i := 0, 0
	for l := uint(1); l <= max(maxLen, tb); l++ {
		if l <= tb {
			copy(main[1<<(l-1):1<<l], main[:1<<(l-1)])
		}
		for range count[l] {
			sym := sorted[i]
			i++
			r := int(bits.Reverse16(uint16(code)) >> (16 - l))
			code++
			if l <= tb {
				main[r] = syms[sym] + uint32(l) + uint32(l)<<8
				continue
			}
			if p := r & (1<<tb - 1); p != prefix {
				// codewords sharing their first tb bits are consecutive
				prefix, start = p, next
				next += 1 << sb
				if next > len(table) {
					return false
				}
				main[p] = entExcept | entSubtable | uint32(start)<<16 | uint32(sb)<<8 | uint32(tb)
			}
			c := l - tb
			e := syms[sym] + uint32(c) + uint32(c)<<8
			sub := table[start : start+1<<sb]
			for j := r >> tb; j < len(sub); j += 1 << c {
				sub[j] = e
			}
		}
		code <<= 1
	}
	return true
}
