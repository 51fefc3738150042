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
	max     int          // units kept; 0 means ahead+2
	ahead   int          // units rendered ahead of a forward scan; 0 means 1
	entries []*unitEntry // most recently used last
	last    int          // the furthest unit of the current forward scan
	reuse   bool         // units are rendered into buffers from buffer
	spare   [][]byte     // buffers of evicted units no one reads any more
	noAhead bool         // never render ahead (see NewParquetView)
}

type unitEntry struct {
	i    int
	done chan struct{}
	b    []byte
	err  error
	refs int  // holders between acquire and release; guarded by mu
	gone bool // evicted; guarded by mu
}

// acquire returns unit i, rendering it with render if it is not cached.
// The caller releases it when done with its bytes.
func (c *unitCache) acquire(i int, render func(int) ([]byte, error)) (*unitEntry, error) {
	c.mu.Lock()
	for k, e := range c.entries {
		if e.i == i {
			c.entries = append(append(c.entries[:k:k], c.entries[k+1:]...), e)
			e.refs++
			c.mu.Unlock()
			<-e.done
			if e.err != nil {
				c.release(e)
				return nil, e.err
			}
			return e, nil
		}
	}
	e := &unitEntry{i: i, done: make(chan struct{}), refs: 1}
	if c.max == 0 {
		c.max = max(c.ahead, 1) + 2
	}
	if len(c.entries) >= c.max {
		c.evict(c.entries[0])
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
		e.refs--
		c.mu.Unlock()
		return nil, e.err
	}
	return e, nil
}

// release ends a hold on e taken by acquire.
func (c *unitCache) release(e *unitEntry) {
	c.mu.Lock()
	e.refs--
	if e.gone && e.refs == 0 {
		c.recycle(e)
	}
	c.mu.Unlock()
}

// evict marks e, which leaves the cache, for recycling once no one holds
// it; mu is held.
func (c *unitCache) evict(e *unitEntry) {
	e.gone = true
	if e.refs == 0 {
		c.recycle(e)
	}
}

// recycle keeps the buffer of an evicted, unheld unit for the next
// rendering, when units are rendered into buffers from buffer; mu is held.
func (c *unitCache) recycle(e *unitEntry) {
	if c.reuse && e.b != nil && len(c.spare) < max(c.ahead, 1)+2 {
		c.spare = append(c.spare, e.b[:0])
	}
	e.b = nil
}

// buffer returns an empty buffer of capacity n or more to render a unit
// into: a recycled one when there is one large enough, else a new one with
// room for units a little larger.
func (c *unitCache) buffer(n int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, b := range c.spare {
		if cap(b) >= n {
			c.spare = append(c.spare[:k], c.spare[k+1:]...)
			return b
		}
	}
	if len(c.spare) > 0 { // too small for units of this size: let it go
		c.spare = c.spare[1:]
	}
	return make([]byte, 0, n+n/8)
}

// readUnits copies the bytes at off of a file made of units laid end to
// end, where unit k spans [starts[k], starts[k+1]) and starts has one entry
// more than there are units. It fills all of p, which must lie inside the
// units. When reads go forward, the units that follow (one unless
// textMode says more) are rendered ahead, each on a goroutine of its own.
func (c *unitCache) readUnits(p []byte, off int64, starts []int64, render func(int) ([]byte, error)) error {
	k := sort.Search(len(starts)-1, func(k int) bool { return starts[k+1] > off })
	for len(p) > 0 {
		e, err := c.acquire(k, render)
		if err != nil {
			return err
		}
		n := copy(p, e.b[off-starts[k]:])
		c.release(e)
		p, off = p[n:], off+int64(n)
		if len(p) > 0 {
			k++
		}
	}
	c.mu.Lock()
	// The kernel issues the reads of a sequential scan concurrently, so
	// they arrive a little out of order: a read ending near the furthest
	// unit read so far still goes forward.
	ahead, near := max(c.ahead, 1), max(c.max/2, 1)
	sequential := k >= c.last-near && k <= c.last+near
	if sequential {
		c.last = max(c.last, k)
	} else {
		c.last = k
	}
	var next []int
	for j := c.last + 1; sequential && !c.noAhead && j <= c.last+ahead && j < len(starts)-1; j++ {
		if !c.has(j) {
			next = append(next, j)
		}
	}
	c.mu.Unlock()
	for _, j := range next {
		go func() {
			// a unit that fails is dropped from the cache and fails again
			// when read
			if e, err := c.acquire(j, render); err == nil {
				c.release(e)
			}
		}()
	}
	return nil
}

// textMode sets the cache up for a text view: how many units a forward
// scan renders ahead, how many rendered units are kept (at least ahead+2:
// those ahead, the one being read and the one before), and that units are
// rendered into buffers from buffer, which evicted units give back.
func (c *unitCache) textMode(ahead, keep int) {
	c.mu.Lock()
	c.ahead, c.max, c.reuse = ahead, max(keep, ahead+2), true
	c.mu.Unlock()
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
