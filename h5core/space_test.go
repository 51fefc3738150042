package h5core

import (
	"slices"
	"testing"
)

// TestFreeSpace checks the free list: coalescing, first fit, growing at
// the end of file, space freed twice left unused, and generations held
// by readers keeping their space.
func TestFreeSpace(t *testing.T) {
	type take struct {
		n, eoa, want uint64
		ok           bool
	}
	cases := []struct {
		name  string
		add   []extent
		takes []take
		left  []extent
	}{
		{"coalesce", []extent{{10, 20}, {30, 40}, {20, 30}}, nil, []extent{{10, 40}}},
		{"first fit", []extent{{10, 14}, {20, 30}, {40, 60}}, []take{{8, 100, 20, true}, {5, 100, 40, true}, {3, 100, 10, true}},
			[]extent{{13, 14}, {28, 30}, {45, 60}}},
		{"exact fit drops the extent", []extent{{10, 14}}, []take{{4, 100, 10, true}}, nil},
		{"nothing fits", []extent{{10, 14}}, []take{{5, 100, 0, false}}, []extent{{10, 14}}},
		{"the extent at the end of file grows", []extent{{10, 14}, {90, 100}}, []take{{30, 100, 90, true}}, []extent{{10, 14}}},
		{"double free ignored", []extent{{10, 20}, {15, 25}, {5, 12}}, nil, []extent{{10, 20}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s freeSpace
			for _, e := range c.add {
				s.add(e)
			}
			for _, tk := range c.takes {
				a, ok := s.take(tk.n, tk.eoa)
				if ok != tk.ok || a != tk.want {
					t.Errorf("take(%d, %d) = %d, %v, want %d, %v", tk.n, tk.eoa, a, ok, tk.want, tk.ok)
				}
			}
			if !slices.Equal(s.free, c.left) {
				t.Errorf("free %v, want %v", s.free, c.left)
			}
		})
	}
}

// TestHold checks that space freed after a held generation is not reused
// until the hold is released, and that a generation whose space was
// reused cannot be held.
func TestHold(t *testing.T) {
	w := &RW{name: "x.h5"}
	s := &w.space
	s.commit([]extent{{100, 200}}) // generation 1 frees what generation 0 used
	release, err := w.Hold(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.take(50, 1000); ok {
		t.Fatal("space of a held generation reused")
	}
	release()
	release() // a second call does nothing
	if a, ok := s.take(50, 1000); !ok || a != 100 {
		t.Fatalf("after the release: take = %d, %v, want 100, true", a, ok)
	}
	if _, err := w.Hold(0); err == nil {
		t.Fatal("held generation 0 after its space was reused")
	}
	if rel, err := w.Hold(w.Generation()); err != nil {
		t.Fatal(err)
	} else {
		rel()
	}
}

// TestGiveBack checks that space a rolled-back transaction took returns
// to the free list up to the end of file it began with: the growth past
// it was truncated, and end-of-file allocation hands it out again.
func TestGiveBack(t *testing.T) {
	var s freeSpace
	s.add(extent{10, 14})
	s.add(extent{90, 100})
	a, ok := s.take(30, 100) // grows the file to 120
	if !ok || a != 90 {
		t.Fatalf("take = %d, %v, want 90, true", a, ok)
	}
	s.giveBack([]extent{{90, 120}}, 100)
	if want := []extent{{10, 14}, {90, 100}}; !slices.Equal(s.free, want) {
		t.Errorf("free %v, want %v", s.free, want)
	}
	// the slack of a growth (Tx.grow) is free space past the end of file
	// the transaction began with: forgotten too, or cut at it
	s.add(extent{120, 160})
	s.add(extent{100, 110})
	s.giveBack(nil, 105)
	if want := []extent{{10, 14}, {90, 105}}; !slices.Equal(s.free, want) {
		t.Errorf("after a rolled-back growth: free %v, want %v", s.free, want)
	}
}
