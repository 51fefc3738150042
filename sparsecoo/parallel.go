package sparsecoo

import (
	"runtime"
	"sync"
)

// minPart is the fewest elements split gives each core.
const minPart = 1 << 15

// split calls fn for the parts [lo, hi) of [0, n), one per core and at
// least minPart elements each, in parallel, and returns the first error:
// the parts of one large read done on every core.
func split(n uint64, fn func(lo, hi uint64) error) error {
	parts := min(uint64(runtime.GOMAXPROCS(0)), n/minPart)
	if parts <= 1 {
		return fn(0, n)
	}
	return parallel(int(parts), func(i int) error {
		return fn(n*uint64(i)/parts, n*uint64(i+1)/parts)
	})
}

// parallel runs fn(0..n-1) on up to GOMAXPROCS goroutines and returns the
// first error.
func parallel(n int, fn func(i int) error) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	next := 0
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}
