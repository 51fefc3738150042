package h5core

import "testing"

// TestChunkCacheLoads checks which gets of a small cache load their chunk
// again: a chunk larger than the whole budget stays cached (alone) until
// the next chunk arrives, so a scan through it decodes it once.
func TestChunkCacheLoads(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes map[uint64]int // decoded size of each chunk
		gets  []uint64       // chunks asked for, in order
		loads []uint64       // chunks loaded, in order
	}{
		{"fits", map[uint64]int{1: 4, 2: 4}, []uint64{1, 2, 1, 2}, []uint64{1, 2}},
		{"evicts least recent", map[uint64]int{1: 6, 2: 6, 3: 6}, []uint64{1, 2, 3, 1}, []uint64{1, 2, 3, 1}},
		{"oversized kept alone", map[uint64]int{1: 100, 2: 4}, []uint64{1, 1, 1, 2, 2, 1}, []uint64{1, 2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChunkCache(2*cacheEntryCost + 12) // two chunks of up to 6 bytes
			var loads []uint64
			for _, k := range tc.gets {
				b, err := c.get(chunkKey{chunk: k}, func() ([]byte, error) {
					loads = append(loads, k)
					return make([]byte, tc.sizes[k]), nil
				})
				if err != nil || len(b) != tc.sizes[k] {
					t.Fatalf("get %d: %d bytes, %v", k, len(b), err)
				}
			}
			if len(loads) != len(tc.loads) {
				t.Fatalf("loads %v, want %v", loads, tc.loads)
			}
			for i := range loads {
				if loads[i] != tc.loads[i] {
					t.Fatalf("loads %v, want %v", loads, tc.loads)
				}
			}
		})
	}
}
