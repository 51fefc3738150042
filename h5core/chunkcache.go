package h5core

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// chunkKey identifies a decoded chunk: its dataset's object header and
// its linear chunk number.
type chunkKey struct {
	dataset uint64
	chunk   uint64
}

// cachedChunk is a decoded chunk, or one being decoded: waiters block on
// done.
type cachedChunk struct {
	key  chunkKey
	done chan struct{}
	data []byte
	err  error
	elem *list.Element
}

// cacheEntryCost is what a cached chunk costs beyond its bytes (entry,
// channel, list element, map slot): counted against the budget, so that a
// million tiny chunks cannot hold hundreds of megabytes of bookkeeping.
const cacheEntryCost = 256

// chunkCache is an LRU cache of decoded chunks with a byte budget. Loads
// of the same chunk by concurrent readers are done once.
type chunkCache struct {
	mu     sync.Mutex
	budget int64
	used   int64
	lru    *list.List // front = most recent; holds loaded chunks only
	m      map[chunkKey]*cachedChunk
	loads  atomic.Int64 // chunks loaded (decoded) so far
}

func newChunkCache(budget int64) *chunkCache {
	return &chunkCache{budget: budget, lru: list.New(), m: map[chunkKey]*cachedChunk{}}
}

// get returns the chunk for key, calling load if it is not cached. The
// returned slice must not be modified.
func (c *chunkCache) get(key chunkKey, load func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if e, ok := c.m[key]; ok {
		if e.elem != nil {
			c.lru.MoveToFront(e.elem)
		}
		c.mu.Unlock()
		<-e.done
		return e.data, e.err
	}
	e := &cachedChunk{key: key, done: make(chan struct{})}
	c.m[key] = e
	c.mu.Unlock()

	c.loads.Add(1)
	e.data, e.err = load()
	close(e.done)

	c.mu.Lock()
	defer c.mu.Unlock()
	if e.err != nil {
		delete(c.m, key)
		return e.data, e.err
	}
	// A chunk larger than the whole budget is still kept, alone, so that
	// the reads of one scan through it decode it once.
	e.elem = c.lru.PushFront(e)
	c.used += int64(len(e.data)) + cacheEntryCost
	for c.used > c.budget && c.lru.Len() > 1 {
		last := c.lru.Back()
		old := last.Value.(*cachedChunk)
		c.lru.Remove(last)
		delete(c.m, old.key)
		c.used -= int64(len(old.data)) + cacheEntryCost
	}
	return e.data, e.err
}

// has reports whether key is cached or being loaded.
func (c *chunkCache) has(key chunkKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[key]
	return ok
}
