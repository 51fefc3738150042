package h5core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
)

// FilterLZO is the registered id of PyTables' LZO filter.
const FilterLZO = 305

func init() { registerFilter(FilterLZO, "lzo", decodeLZO, nil) }

// decodeLZO undoes PyTables' LZO filter (cd: complevel, object version,
// object type): an LZO1X stream, which PyTables 3 writes alone and earlier
// versions (compiled with CHECKSUM) followed with the Adler-32 of the
// decoded bytes and the decoded size, 4 bytes little-endian each. Both
// forms are read: whatever follows the stream's end marker must be that
// checksum and size.
func decodeLZO(_ []uint32, in, out []byte) ([]byte, error) {
	res, used, err := lzo1xDecode(out[:0], in)
	if err != nil {
		return nil, fmt.Errorf("LZO: %w", err)
	}
	switch tail := in[used:]; len(tail) {
	case 0:
	case 8:
		if sum := binary.LittleEndian.Uint32(tail); adler32.Checksum(res) != sum {
			return nil, fmt.Errorf("LZO checksum %#08x, stored %#08x", adler32.Checksum(res), sum)
		}
		if size := binary.LittleEndian.Uint32(tail[4:]); uint64(size) != uint64(len(res)) {
			return nil, fmt.Errorf("LZO stream decodes to %d bytes, stored size %d", len(res), size)
		}
	default:
		return nil, fmt.Errorf("LZO stream followed by %d bytes", len(tail))
	}
	return res, nil
}

// errLZOOverrun is a stream that decodes past cap(out).
var errLZOOverrun = errors.New("stream decodes to more than the expected size")

// lzo1xDecode decodes one LZO1X stream (as lzo1x_decompress_safe) after
// out, never past cap(out), and returns how many bytes of in it took. The instructions, by their first byte t:
//
//	t > 17 (first byte only)  t-17 literals (t-17 < 4: then as after a match)
//	0-15 after a match        a match of 2 (3 after a literal run) bytes at a
//	                          short distance, then t&3 literals
//	0-15 otherwise            a run of t+3 literals (t = 0: extended length)
//	16-31                     a match at distance 16 KiB-48 KiB; distance 0 ends
//	32-63                     a match at distance up to 16 KiB
//	64-255                    a match of 3-8 bytes at distance up to 2 KiB
//
// Matches end with 0-3 literals, counted by the low 2 bits of their last
// distance byte.
func lzo1xDecode(out, in []byte) ([]byte, int, error) {
	ip := 0
	byteAt := func() (int, error) {
		if ip >= len(in) {
			return 0, errors.New("stream truncated")
		}
		ip++
		return int(in[ip-1]), nil
	}
	// extended returns base plus the extension bytes of a length: 255 per
	// zero byte, then the first nonzero byte.
	extended := func(base int) (int, error) {
		n := base
		for {
			b, err := byteAt()
			if err != nil {
				return 0, err
			}
			if b != 0 {
				return n + b, nil
			}
			n += 255
			if n > cap(out) {
				return 0, errLZOOverrun
			}
		}
	}
	literals := func(n int) error {
		if n > len(in)-ip {
			return errors.New("literal run past the end of the stream")
		}
		if n > cap(out)-len(out) {
			return errLZOOverrun
		}
		out = append(out, in[ip:ip+n]...)
		ip += n
		return nil
	}
	match := func(dist, n int) error {
		if dist <= 0 || dist > len(out) {
			return fmt.Errorf("match distance %d before the start of the output (%d bytes)", dist, len(out))
		}
		if n > cap(out)-len(out) {
			return errLZOOverrun
		}
		for i := 0; i < n; i++ { // byte by byte: matches may overlap their output
			out = append(out, out[len(out)-dist])
		}
		return nil
	}
	if len(in) < 3 {
		return nil, 0, errors.New("stream truncated")
	}
	state := 0 // literals copied by the last instruction: 0, 1-3, or 4 (a run)
	if in[0] > 17 {
		ip = 1
		n := int(in[0]) - 17
		if err := literals(n); err != nil {
			return nil, 0, err
		}
		state = min(n, 4)
	}
	for {
		t, err := byteAt()
		if err != nil {
			return nil, 0, err
		}
		var dist, n, next int
		switch {
		case t < 16 && state == 0:
			n = t + 3
			if t == 0 {
				if n, err = extended(15 + 3); err != nil {
					return nil, 0, err
				}
			}
			if err := literals(n); err != nil {
				return nil, 0, err
			}
			state = 4
			continue
		case t < 16:
			b, err := byteAt()
			if err != nil {
				return nil, 0, err
			}
			dist, n = 1+t>>2+b<<2, 2
			if state == 4 {
				dist, n = dist+0x800, 3
			}
			next = t & 3
		case t >= 64:
			b, err := byteAt()
			if err != nil {
				return nil, 0, err
			}
			dist, n, next = 1+(t>>2)&7+b<<3, t>>5+1, t&3
		default: // 16-63
			long := t < 32
			mask, base := 31, 31
			if long {
				mask, base = 7, 7
			}
			n = t&mask + 2
			if t&mask == 0 {
				if n, err = extended(base + 2); err != nil {
					return nil, 0, err
				}
			}
			if ip+2 > len(in) {
				return nil, 0, errors.New("stream truncated")
			}
			d := int(binary.LittleEndian.Uint16(in[ip:]))
			ip += 2
			next = d & 3
			dist = 1 + d>>2
			if long {
				dist = (t&8)<<11 + d>>2
				if dist == 0 { // end of stream
					if n != 3 {
						return nil, 0, errors.New("malformed end of stream")
					}
					return out, ip, nil
				}
				dist += 0x4000
			}
		}
		if err := match(dist, n); err != nil {
			return nil, 0, err
		}
		if err := literals(next); err != nil {
			return nil, 0, err
		}
		state = next
	}
}
