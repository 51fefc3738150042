package h5core

import (
	"encoding/binary"
	"testing"
)

// The third-party decoders have targets of their own (FuzzDecodeChunk
// reaches them only through mutated pipeline messages): each is fed
// arbitrary chunks, client data and sizes. No input may panic, and a
// success never gives more than the chunk's size. The seeds are the
// corpus chunks written through that filter.

// FuzzDecodeBitshuffle fuzzes bitshuffle (32008: bit shuffle alone, with
// LZ4 and with zstd), the client data's element size, block size and mode
// included.
func FuzzDecodeBitshuffle(f *testing.F) {
	fuzzDecoder(f, "filters_plugins", FilterBitshuffle, decodeBitshuffle)
}

// FuzzDecodeLZO fuzzes PyTables' LZO (305), its checksummed form included.
func FuzzDecodeLZO(f *testing.F) { fuzzDecoder(f, "filters_plugins", FilterLZO, decodeLZO) }

// FuzzDecodeBzip2 fuzzes bzip2 (307): streams of blocks cut, corrupted or
// decoding to more than the chunk.
func FuzzDecodeBzip2(f *testing.F) { fuzzDecoder(f, "filters_plugins", FilterBzip2, decodeBzip2) }

// FuzzDecodeZFP fuzzes zfp (32013) in every mode, seeded with the H5Z-ZFP
// corpus (testdata/filters_zfp).
func FuzzDecodeZFP(f *testing.F) { fuzzDecoder(f, "filters_zfp", FilterZFP, decodeZFP) }

// fuzzDecoder runs the fuzz target of the decoder dec of filter id,
// seeded with the chunks of testdata/dir whose pipelines hold it (client
// data as little-endian 32-bit values).
func fuzzDecoder(f *testing.F, dir string, id uint16, dec func(cd []uint32, in, out []byte) ([]byte, error)) {
	seeds := 0
	for _, c := range loadCorpusDir(f, dir) {
		for _, flt := range c.pipeline() {
			if flt.ID == id {
				b := make([]byte, 4*len(flt.ClientData))
				for i, v := range flt.ClientData {
					binary.LittleEndian.PutUint32(b[4*i:], v)
				}
				f.Add(b, c.read(f, c.Name+".chunk.bin"), uint32(c.Size))
				seeds++
			}
		}
	}
	if seeds == 0 {
		f.Fatalf("no chunk of testdata/%s goes through filter %d", dir, id)
	}
	f.Fuzz(func(t *testing.T, cdBytes, chunk []byte, size uint32) {
		cd := make([]uint32, len(cdBytes)/4)
		for i := range cd {
			cd[i] = binary.LittleEndian.Uint32(cdBytes[4*i:])
		}
		size %= 1 << 17
		out, err := dec(cd, chunk, make([]byte, 0, size))
		if err == nil && len(out) > int(size) {
			t.Fatalf("decoded %d bytes into a chunk of %d", len(out), size)
		}
	})
}
