package h5core

import (
	"errors"
	"strings"
	"testing"
)

// TestZFPHeaderErrors checks the client data h5core refuses: no header,
// another codec version (unsupported, named) and an impossible mode; and
// that a 4-D header gives 12-bit sizes.
func TestZFPHeaderErrors(t *testing.T) {
	// a 1-D float64 field of 8 values in reversible mode, as H5Z-ZFP
	// stores it: version word, then "zfp", codec 5, meta and mode bits
	good := []uint32{0x10005110, 0x0570667a, 0x73, 0x88000000}
	if _, err := parseZFPParams(good); err != nil {
		t.Fatalf("good header: %v", err)
	}
	// the same as a 4-D field of 8x1x1x1 values (dims-1 = 3 above the type)
	if p, err := parseZFPParams([]uint32{0x10005110, 0x0570667a, 0x7f, 0x88000000}); err != nil || p.dims != 4 || p.n != [zfpMaxDims]uint64{8, 1, 1, 1} {
		t.Fatalf("4-D header: %+v, %v", p, err)
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
