package h5core

import "encoding/binary"

// undefAddr is the "undefined address" of the format: all bits set.
const undefAddr = ^uint64(0)

// decoder reads little-endian fields from a byte slice that was read from
// the file at address at. Reads past the end set a sticky error and return
// zero values, so a decode function can read all its fields and check err
// once at the end.
type decoder struct {
	b   []byte
	pos int
	at  uint64 // file address of b[0]
	so  int    // size of offsets
	sl  int    // size of lengths
	err error
}

func newDecoder(b []byte, at uint64, so, sl int) *decoder {
	return &decoder{b: b, at: at, so: so, sl: sl}
}

// addr returns the file address of the current position.
func (d *decoder) addr() uint64 { return d.at + uint64(d.pos) }

// remaining returns the number of unread bytes.
func (d *decoder) remaining() int { return len(d.b) - d.pos }

// fail records an error at the current position (first error wins).
func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = formatErr(d.addr(), format, args...)
	}
}

func (d *decoder) need(n int) bool {
	if d.err != nil {
		return false
	}
	if n < 0 || n > len(d.b)-d.pos {
		d.fail("structure truncated: need %d bytes, %d left", n, len(d.b)-d.pos)
		return false
	}
	return true
}

func (d *decoder) u8() uint8 {
	if !d.need(1) {
		return 0
	}
	v := d.b[d.pos]
	d.pos++
	return v
}

func (d *decoder) u16() uint16 {
	if !d.need(2) {
		return 0
	}
	v := binary.LittleEndian.Uint16(d.b[d.pos:])
	d.pos += 2
	return v
}

func (d *decoder) u32() uint32 {
	if !d.need(4) {
		return 0
	}
	v := binary.LittleEndian.Uint32(d.b[d.pos:])
	d.pos += 4
	return v
}

func (d *decoder) u64() uint64 {
	if !d.need(8) {
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b[d.pos:])
	d.pos += 8
	return v
}

// uN reads an n-byte little-endian unsigned integer (0 <= n <= 8).
func (d *decoder) uN(n int) uint64 {
	if n > 8 {
		d.fail("integer field of %d bytes", n)
		return 0
	}
	if !d.need(n) {
		return 0
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(d.b[d.pos+i])
	}
	d.pos += n
	return v
}

// offset reads a "size of offsets" address; all-ones becomes undefAddr.
func (d *decoder) offset() uint64 {
	v := d.uN(d.so)
	if d.so < 8 && v == 1<<(8*uint(d.so))-1 {
		return undefAddr
	}
	return v
}

// length reads a "size of lengths" field.
func (d *decoder) length() uint64 { return d.uN(d.sl) }

// bytes returns the next n bytes (a sub-slice, not a copy).
func (d *decoder) bytes(n int) []byte {
	if !d.need(n) {
		return nil
	}
	v := d.b[d.pos : d.pos+n]
	d.pos += n
	return v
}

// skip advances n bytes.
func (d *decoder) skip(n int) { d.bytes(n) }

// align advances to the next multiple of n relative to the slice start.
func (d *decoder) align(n int) {
	if r := d.pos % n; r != 0 {
		d.skip(n - r)
	}
}

// cstring reads a NUL-terminated string and consumes the terminator.
func (d *decoder) cstring() string {
	if d.err != nil {
		return ""
	}
	for i := d.pos; i < len(d.b); i++ {
		if d.b[i] == 0 {
			s := string(d.b[d.pos:i])
			d.pos = i + 1
			return s
		}
	}
	d.fail("unterminated string")
	return ""
}

// signature checks a 4-byte structure signature.
func (d *decoder) signature(want string) bool {
	got := d.bytes(4)
	if d.err != nil {
		return false
	}
	if string(got) != want {
		d.pos -= 4
		d.fail("expected signature %q, found %q", want, got)
		return false
	}
	return true
}

// bytesFor returns the number of bytes needed to hold max, the width the
// format uses for its variable-size encoded lengths.
func bytesFor(max uint64) int {
	n := 0
	for max > 0 {
		n++
		max >>= 8
	}
	if n == 0 {
		n = 1
	}
	return n
}

// bitsToBytes returns ceil(bits/8).
func bitsToBytes(bits uint64) int { return int((bits + 7) / 8) }
