package arrowexport

import (
	"sort"
	"sync"
)

// unitCache keeps the last few rendered units (record batches, row groups,
// CSV blocks) of a view, so that the many small reads of a sequential scan
// render each unit once. Concurrent readers of one unit wait for a single
// rendering.
type unitCache struct {
	mu      sync.Mutex
	max     int
	entries []*unitEntry // most recently used last
	last    int          // the unit the previous read ended in
	noAhead bool         // never render ahead (see NewParquetView)
}

type unitEntry struct {
	i    int
	done chan struct{}
	b    []byte
	err  error
}

// get returns unit i, rendering it with render if it is not cached.
func (c *unitCache) get(i int, render func(int) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	for k, e := range c.entries {
		if e.i == i {
			c.entries = append(append(c.entries[:k:k], c.entries[k+1:]...), e)
			c.mu.Unlock()
			<-e.done
			return e.b, e.err
		}
	}
	e := &unitEntry{i: i, done: make(chan struct{})}
	if c.max == 0 {
		c.max = 3
	}
	if len(c.entries) >= c.max {
		c.entries = c.entries[1:]
	}
	c.entries = append(c.entries, e)
	c.mu.Unlock()

	e.b, e.err = render(i)
	close(e.done)
	if e.err != nil {
		c.mu.Lock()
		for k, x := range c.entries {
			if x == e {
				c.entries = append(c.entries[:k:k], c.entries[k+1:]...)
				break
			}
		}
		c.mu.Unlock()
	}
	return e.b, e.err
}

// readUnits copies the bytes at off of a file made of units laid end to
// end, where unit k spans [starts[k], starts[k+1]) and starts has one entry
// more than there are units. It fills all of p, which must lie inside the
// units. When reads go forward unit by unit, the next unit is rendered
// ahead on another goroutine.
func (c *unitCache) readUnits(p []byte, off int64, starts []int64, render func(int) ([]byte, error)) error {
	k := sort.Search(len(starts)-1, func(k int) bool { return starts[k+1] > off })
	for len(p) > 0 {
		b, err := c.get(k, render)
		if err != nil {
			return err
		}
		n := copy(p, b[off-starts[k]:])
		p, off = p[n:], off+int64(n)
		if len(p) > 0 {
			k++
		}
	}
	c.mu.Lock()
	sequential := k == c.last || k == c.last+1
	c.last = k
	ahead := sequential && !c.noAhead && k+1 < len(starts)-1 && !c.has(k+1)
	c.mu.Unlock()
	if ahead {
		// a unit that fails is dropped from the cache and fails again when read
		go c.get(k+1, render)
	}
	return nil
}

// has reports whether unit i is cached or being rendered; mu is held.
func (c *unitCache) has(i int) bool {
	for _, e := range c.entries {
		if e.i == i {
			return true
		}
	}
	return false
}
