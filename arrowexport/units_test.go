package arrowexport

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// TestUnitCacheReuse scans a file of units from several goroutines at once,
// forward in large pieces as the kernel does and at random, with a cache
// that keeps few units and recycles their buffers: every read must see its
// unit's bytes, never those of a unit rendered later into a reused buffer.
func TestUnitCacheReuse(t *testing.T) {
	const units = 40
	starts := []int64{0}
	for i := range units {
		starts = append(starts, starts[i]+int64(1000+37*i))
	}
	size := starts[units]
	want := make([]byte, size)
	for i := range units {
		for o := starts[i]; o < starts[i+1]; o++ {
			want[o] = byte(i*7 + int(o-starts[i])%5)
		}
	}
	var c unitCache
	c.textMode(2, 4)
	var renders atomic.Int64
	render := func(i int) ([]byte, error) {
		renders.Add(1)
		b := c.buffer(int(starts[i+1] - starts[i]))
		return append(b, want[starts[i]:starts[i+1]]...), nil
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			read := func(off, n int64) bool {
				p := make([]byte, n)
				if err := c.readUnits(p, off, starts, render); err != nil {
					errs <- err.Error()
					return false
				}
				if !bytes.Equal(p, want[off:off+n]) {
					errs <- "read differs"
					return false
				}
				return true
			}
			if g%4 == 3 { // random reads
				for range 100 {
					n := rng.Int64N(3000) + 1
					if !read(rng.Int64N(size-n+1), n) {
						return
					}
				}
				return
			}
			for range 3 {
				for off := int64(0); off < size; {
					n := min(2500+rng.Int64N(2000), size-off)
					if !read(off, n) {
						return
					}
					off += n
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) > 4 || len(c.spare) > 4 {
		t.Errorf("%d units and %d spare buffers kept, want at most 4 each", len(c.entries), len(c.spare))
	}
	if renders.Load() < units {
		t.Errorf("%d renders of %d units", renders.Load(), units)
	}
}
