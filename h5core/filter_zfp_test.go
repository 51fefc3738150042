package h5core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestDecodeZFPCorpus decodes the chunks H5Z-ZFP wrote (gen_filters_zfp.py:
// fixed rate, precision, accuracy, expert and reversible modes; float32,
// float64, int32 and int64; 1-3-D fields with partial blocks; tiny, huge
// and subnormal floats) and compares them byte for byte with what libhdf5
// read back through the plugin, which for the lossy modes is libzfp's own
// decoding. Cut and mis-sized chunks fail cleanly.
func TestDecodeZFPCorpus(t *testing.T) {
	cases := loadCorpusDir(t, "filters_zfp")
	if len(cases) < 60 {
		t.Fatalf("only %d zfp cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			chunk := c.read(t, c.Name+".chunk.bin")
			got, err := decodeChunk(c.pipeline(), c.Mask, chunk, c.Size)
			if err != nil {
				t.Fatal(err)
			}
			if want := c.read(t, c.Expect); !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("decoded %d bytes differ from the expected %d at byte %d", len(got), len(want), i)
			}
			for _, cut := range []int{0, len(chunk) / 2, len(chunk) - 1} {
				if _, err := decodeChunk(c.pipeline(), c.Mask, chunk[:cut], c.Size); err == nil {
					t.Errorf("cut to %d bytes: no error", cut)
				}
			}
			for _, size := range []int{0, c.Size - 1, c.Size + 1} {
				if _, err := decodeChunk(c.pipeline(), c.Mask, chunk, size); err == nil {
					t.Errorf("decoded to %d bytes instead of %d: no error", size, c.Size)
				}
			}
		})
	}
}

// TestZFPHeaderErrors checks the client data h5core refuses: no header,
// another codec version, 4-D fields (unsupported, named) and an
// impossible mode.
func TestZFPHeaderErrors(t *testing.T) {
	// a 1-D float64 field of 8 values in reversible mode, as H5Z-ZFP
	// stores it: version word, then "zfp", codec 5, meta and mode bits
	good := []uint32{0x10005110, 0x0570667a, 0x73, 0x88000000}
	if _, err := parseZFPParams(good); err != nil {
		t.Fatalf("good header: %v", err)
	}
	for _, tc := range []struct {
		name        string
		cd          []uint32
		want        string
		unsupported bool
	}{
		{"short", good[:3], "too short", false},
		{"magic", []uint32{0x10005110, 0x0570667b, 0x73, 0x88000000}, "no zfp header", false},
		{"codec4", []uint32{0x10005110, 0x0470667a, 0x73, 0x88000000}, "codec version 4", true},
		{"4d", []uint32{0x10005110, 0x0570667a, 0x7f, 0x88000000}, "4-D", true},
		// long mode with minbits 101 > maxbits 1
		{"minbits", []uint32{0x10005110, 0x0570667a, 0x73, 0xfff00000, 0x64, 0}, "exceeds", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseZFPParams(tc.cd)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
			if errors.Is(err, ErrUnsupported) != tc.unsupported {
				t.Fatalf("%v: unsupported is %v, want %v", err, errors.Is(err, ErrUnsupported), tc.unsupported)
			}
		})
	}
}

// FuzzDecodeZFP decodes arbitrary chunks with arbitrary client data (as
// little-endian 32-bit values): no input may panic, and a success gives
// no more than the chunk's size. The seeds are the H5Z-ZFP corpus.
func FuzzDecodeZFP(f *testing.F) {
	for _, c := range loadCorpusDir(f, "filters_zfp") {
		cd := c.pipeline()[0].ClientData
		b := make([]byte, 4*len(cd))
		for i, v := range cd {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		f.Add(b, c.read(f, c.Name+".chunk.bin"), uint32(c.Size))
	}
	f.Fuzz(func(t *testing.T, cdBytes, chunk []byte, size uint32) {
		cd := make([]uint32, len(cdBytes)/4)
		for i := range cd {
			cd[i] = binary.LittleEndian.Uint32(cdBytes[4*i:])
		}
		size %= 1 << 17
		out, err := decodeZFP(cd, chunk, make([]byte, 0, size))
		if err == nil && len(out) > int(size) {
			t.Fatalf("decoded %d bytes into a chunk of %d", len(out), size)
		}
	})
}
