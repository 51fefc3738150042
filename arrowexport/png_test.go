package arrowexport

import (
	"bytes"
	"testing"

	"github.com/h5fs/h5fs/h5core"
)

// TestPNGSizeCache encodes a dataset's picture with a sizing cache, then
// opens the picture again as a later mount would: its size is exact
// before anything is read, and the bytes are the same.
func TestPNGSizeCache(t *testing.T) {
	f, err := h5core.Open("testdata/datasets.h5")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := f.Open("/f8_2d")
	if err != nil {
		t.Fatal(err)
	}
	cache, err := NewCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Cache: cache, Key: FileID{Path: "/x.h5", Size: 1}.Key("@1")}
	read := func(v *PNGView) []byte {
		if err := v.Finalize(); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, v.Size())
		if n, err := v.ReadAt(b, 0); n != len(b) {
			t.Fatalf("read %d of %d bytes: %v", n, len(b), err)
		}
		return b
	}
	first, err := NewPNGView(o, opts)
	if err != nil {
		t.Fatal(err)
	}
	if first.Exact() {
		t.Fatal("a picture never encoded has an exact size")
	}
	want := read(first)
	again, err := NewPNGView(o, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Exact() || again.Size() != int64(len(want)) {
		t.Fatalf("second open: size %d (exact %v), want %d", again.Size(), again.Exact(), len(want))
	}
	if got := read(again); !bytes.Equal(got, want) {
		t.Fatal("second open: other bytes")
	}
}
