package h5core

import (
	"encoding/binary"
	"fmt"
)

func init() {
	registerFilter(FilterFletcher32, "fletcher32", decodeFletcher32, encodeFletcher32)
}

// encodeFletcher32 appends the Fletcher-32 checksum of in (little-endian),
// as libhdf5 since 1.6.3 writes it.
func encodeFletcher32(_ []uint32, in []byte) ([]byte, error) {
	out := make([]byte, len(in), len(in)+4)
	copy(out, in)
	return binary.LittleEndian.AppendUint32(out, checksumFletcher32(in)), nil
}

// decodeFletcher32 checks and strips the Fletcher-32 checksum (id 3) that
// ends the chunk. Like libhdf5 it also accepts the byte-swapped checksum
// that versions before 1.6.3 wrote on little-endian machines.
func decodeFletcher32(_ []uint32, in, _ []byte) ([]byte, error) {
	if len(in) < 4 {
		return nil, fmt.Errorf("chunk of %d bytes cannot hold a checksum", len(in))
	}
	n := len(in) - 4
	stored := binary.LittleEndian.Uint32(in[n:])
	sum := checksumFletcher32(in[:n])
	swapped := sum&0x00ff00ff<<8 | sum>>8&0x00ff00ff
	if stored != sum && stored != swapped {
		return nil, fmt.Errorf("checksum mismatch (stored %#08x, computed %#08x)", stored, sum)
	}
	return in[:n], nil
}

// checksumFletcher32 is H5_checksum_fletcher32: Fletcher's checksum over
// big-endian 16-bit words with both sums starting at 0; an odd final byte
// counts as the high byte of a last word.
func checksumFletcher32(b []byte) uint32 {
	var sum1, sum2 uint32
	words := len(b) / 2
	for words > 0 {
		t := min(words, 360) // the most sums that cannot overflow
		words -= t
		blk := b[:2*t]
		b = b[2*t:]
		for i := 0; i+1 < len(blk); i += 2 {
			sum1 += uint32(blk[i])<<8 | uint32(blk[i+1])
			sum2 += sum1
		}
		sum1 = sum1&0xffff + sum1>>16
		sum2 = sum2&0xffff + sum2>>16
	}
	if len(b) == 1 {
		sum1 += uint32(b[0]) << 8
		sum2 += sum1
		sum1 = sum1&0xffff + sum1>>16
		sum2 = sum2&0xffff + sum2>>16
	}
	sum1 = sum1&0xffff + sum1>>16
	sum2 = sum2&0xffff + sum2>>16
	return sum2<<16 | sum1
}
