package h5core

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseDatatype feeds arbitrary messages to parseDatatype and, for
// those it accepts, decodes and packs elements made of the same bytes
// against a small file holding a global heap.
func FuzzParseDatatype(f *testing.F) {
	for _, c := range validDatatypes {
		f.Add(c.msg)
	}
	for _, c := range invalidDatatypes {
		f.Add(c.msg)
	}
	bins, _ := filepath.Glob(filepath.Join("testdata", "dtypes", "*.bin"))
	for _, name := range bins {
		if b, err := os.ReadFile(name); err == nil && len(b) > 2 {
			f.Add(b[2:])
		}
	}
	heap := heapFile(map[uint16][]byte{1: []byte("heap object one"), 2: bytes.Repeat([]byte{0x40}, 64)}, 1, 2)
	f.Fuzz(func(t *testing.T, msg []byte) {
		dt, n, err := parseDatatype(msg, 0)
		if err != nil {
			if dt != nil || n != 0 {
				t.Fatalf("error %v with a result", err)
			}
			return
		}
		if n <= 0 || n > len(msg) {
			t.Fatalf("consumed %d of %d bytes", n, len(msg))
		}
		_ = dt.String()
		_ = dt.IsFixedSize()
		if dt.Size > 1<<16 {
			return
		}
		// Elements built from the message bytes, so heap ids and reference
		// encodings point at the test heap now and then.
		elem := bytes.Repeat(append([]byte{0x40, 0, 0, 0}, msg...), dt.Size/(len(msg)+4)+1)[:dt.Size]
		if got := len(dt.appendPackedLE(nil, elem)); got != dt.PackedSize() {
			t.Fatalf("%s: packed %d bytes, PackedSize %d", dt, got, dt.PackedSize())
		}
		two := append(bytes.Clone(elem), elem...)
		if got := dt.AppendPackedLE(nil, two, 2); len(got) != 2*dt.PackedSize() {
			t.Fatalf("%s: toPackedLE gave %d bytes for 2 elements of %d", dt, len(got), dt.PackedSize())
		}
		for _, e := range [][]byte{elem, make([]byte, dt.Size)} {
			if v, err := rawFile(heap).elementValue(dt, e); err == nil {
				_ = FormatValue(v)
			}
		}
	})
}
