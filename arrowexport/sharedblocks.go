package arrowexport

import "sync"

// sharedBlocks holds the stored bytes of row ranges that several columns
// decode: the first column to ask reads a range, the others wait for that
// read, and the range is dropped when every column has taken it, so a
// wide dataset is read once per range and nothing is kept afterwards. At
// most max ranges are held (the oldest goes first), which bounds the
// memory even if some takers never come.
type sharedBlocks struct {
	mu  sync.Mutex
	max int
	seq uint64
	m   map[int64]*sharedBlock // by first row
}

type sharedBlock struct {
	n    int64  // rows
	left int    // takers still to come
	seq  uint64 // order of creation
	done chan struct{}
	b    []byte
	err  error
}

// take returns the bytes of rows [start, start+n), reading them with read
// unless they are held, and counts one of their takers takers.
func (s *sharedBlocks) take(start, n int64, takers int, read func() ([]byte, error)) ([]byte, error) {
	s.mu.Lock()
	e := s.m[start]
	if e == nil || e.n != n {
		e = s.add(start, &sharedBlock{n: n, left: takers, done: make(chan struct{})})
		s.mu.Unlock()
		e.b, e.err = read()
		close(e.done)
		s.mu.Lock()
	}
	e.left--
	if (e.left <= 0 || e.err != nil) && s.m[start] == e {
		delete(s.m, start)
	}
	s.mu.Unlock()
	<-e.done
	return e.b, e.err
}

// add holds e for the range at start, dropping the oldest range held if
// there are max; s.mu is held.
func (s *sharedBlocks) add(start int64, e *sharedBlock) *sharedBlock {
	if s.m == nil {
		s.m = map[int64]*sharedBlock{}
	}
	if len(s.m) >= max(s.max, 1) {
		oldest := int64(-1)
		for k, x := range s.m {
			if oldest < 0 || x.seq < s.m[oldest].seq {
				oldest = k
			}
		}
		delete(s.m, oldest)
	}
	s.seq++
	e.seq = s.seq
	s.m[start] = e
	return e
}

// drop forgets the range that starts at row start: a taker failed, so
// the others will not come.
func (s *sharedBlocks) drop(start int64) {
	s.mu.Lock()
	delete(s.m, start)
	s.mu.Unlock()
}
