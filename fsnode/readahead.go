package fsnode

import "sync"

// A walk of the tree (ls -lR, find, du) lists a directory, then each of
// its subdirectories in turn, waiting for the mount at every step. When a
// directory is listed, one goroutine per tree goes on to list and size
// its first readAheadDirs subdirectories in the background, so that the
// walk finds each done, or under way, when it gets there. Listing another
// directory with subdirectories replaces what is left to read ahead (the
// walk has moved on); a big directory's (over bigDir entries) are not
// read ahead, nor anything once the file has changed, nor anything on a
// read-write mount (whose commits may reuse the space of a state no
// reader holds).

// readAheadDirs is the most subdirectories of one listing read ahead.
const readAheadDirs = 128

// readAhead is a tree's queue of directories to list in the background.
type readAhead struct {
	mu      sync.Mutex
	pending []*dir
	running bool
}

// readAhead queues the subdirectories among entries es of directory d,
// just listed.
func (t *Tree) readAhead(d *dir, es []entry) {
	if big(d) || t.w != nil {
		return
	}
	var dirs []*dir
	for _, e := range es {
		if e.dir != nil && len(dirs) < readAheadDirs {
			dirs = append(dirs, e.dir)
		}
	}
	if len(dirs) == 0 {
		return
	}
	r := &t.ahead
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = dirs
	if !r.running {
		r.running = true
		go t.readAheadLoop()
	}
}

// readAheadLoop lists and sizes the queued directories until none is
// left.
func (t *Tree) readAheadLoop() {
	r := &t.ahead
	for {
		r.mu.Lock()
		if len(r.pending) > 0 && t.stale() {
			r.pending = nil // a new tree shows the file now
		}
		if len(r.pending) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		d := r.pending[0]
		r.pending = r.pending[1:]
		r.mu.Unlock()
		es, err := t.children(d)
		if err != nil {
			continue
		}
		for _, e := range es {
			if f := t.fileOf(e); f != nil && !hidden(e.name) {
				_, _, _ = t.statSize(f)
			}
		}
	}
}
