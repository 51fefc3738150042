package h5core

import (
	"bytes"
	"testing"
)

// TestFillRepeat: p holds the repeated element as if it started at byte
// off of an array of such elements, for every offset into the element
// and lengths shorter and longer than one element.
func TestFillRepeat(t *testing.T) {
	fill := []byte{1, 2, 3, 4, 5, 6, 7}
	for _, n := range []int{0, 1, 3, 7, 8, 20, 1000} {
		for off := range int64(2 * len(fill)) {
			p := make([]byte, n)
			fillRepeat(p, fill, off)
			want := make([]byte, n)
			for i := range want {
				want[i] = fill[(off+int64(i))%int64(len(fill))]
			}
			if !bytes.Equal(p, want) {
				t.Fatalf("%d bytes at %d: %v, want %v", n, off, p, want)
			}
		}
	}
	p := []byte{9, 9}
	fillRepeat(p, nil, 0)
	if !bytes.Equal(p, []byte{9, 9}) {
		t.Errorf("an empty fill changed p: %v", p)
	}
}
