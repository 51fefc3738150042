package fsnode

import (
	"os"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
)

// Files that change underneath a read-only mount (another process
// appending to a table, libhdf5 SWMR writers): each tree is made from one
// state of its HDF5 file, told apart by size, mtime and inode. When the
// file is found changed, at the open of a view or directory or a look at
// the file's own directory, the tree is dropped and the kernel told to
// forget the directory's entries; an open of a view of the old tree fails
// with ESTALE, on which the kernel walks the path again (LOOKUP_REVAL) and
// opens the view of the new tree. Views already open keep reading the
// state they were opened with: their nodes, page cache and sizes are the
// old tree's. A reader so never sees bytes of two states in one view.
//
// A writer may be caught in the middle of a change (a checksum that does
// not match, a block not yet written): making a tree is tried again while
// the file keeps changing under the attempt (maxTornRetries), and a view
// or directory of a tree that fails to read once the file has changed
// answers ESTALE, so that the kernel retries through the next state.

// staleGrace is how long a new tree is not reported out of date by an
// open: a file written without pause would otherwise fail the kernel's
// one retry too.
const staleGrace = 200 * time.Millisecond

// fileState is what tells two states of a file apart.
type fileState struct {
	size  int64
	mtime int64 // nanoseconds
	ino   uint64
	// settled: the mtime was at least mtimeTick old. The kernel takes
	// mtimes from a clock that advances by ticks, so a write in the tick
	// of the last one (a SWMR writer updating headers in place) leaves
	// size and mtime as they were; a state seen within the tick of its
	// mtime so differs from the same state seen later, and a tree made
	// from it is made again once the tick has passed.
	settled bool
}

// mtimeTick bounds the tick of the clock the kernel stamps mtimes with
// (a jiffy: 4 ms at HZ=250, 10 ms at HZ=100).
const mtimeTick = 20 * time.Millisecond

// statFile returns the state of the named file.
func statFile(name string) (fileState, error) {
	st, err := os.Stat(name)
	if err != nil {
		return fileState{}, err
	}
	s := fileState{size: st.Size(), mtime: st.ModTime().UnixNano(), settled: time.Since(st.ModTime()) >= mtimeTick}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ino = sys.Ino
	}
	return s, nil
}

// stale reports whether tree t, made from the file in state st, is out of
// date, and if t is the member's current tree drops it. It serves opens,
// during which the kernel holds no directory locked.
func (m *member) stale(t *Tree, st fileState) bool {
	now, err := statFile(m.name)
	if err != nil || now == st {
		return false
	}
	m.mu.Lock()
	current, young := m.tree == t, time.Since(m.builtAt) < staleGrace
	m.mu.Unlock()
	if current && young {
		return false
	}
	m.drop(t, true)
	return true
}

// changed reports whether the file has changed since tree t was made from
// it in state st, however young t is, and if so drops t. It serves a read
// of t that failed: the writer may have torn the state the read met.
func (m *member) changed(t *Tree, st fileState) bool {
	if now, err := statFile(m.name); err != nil || now == st {
		return false
	}
	m.drop(t, false)
	return true
}

// maxTornRetries bounds the attempts to make a tree from a file that a
// writer changed while it was read (libhdf5 SWMR readers likewise retry
// a metadata read whose checksum fails).
const maxTornRetries = 5

// dropIfChanged drops the member's tree if the file has changed since it
// was made (and it is not brand new); wait as for drop.
func (m *member) dropIfChanged(wait bool) {
	m.mu.Lock()
	t, st, young := m.tree, m.state, time.Since(m.builtAt) < staleGrace
	m.mu.Unlock()
	if t == nil || young {
		return
	}
	if now, err := statFile(m.name); err == nil && now != st {
		m.drop(t, wait)
	}
}

// stale reports whether the tree's HDF5 file has changed since the tree
// was made (never, for a tree made without a way to tell).
func (t *Tree) stale() bool {
	return t.opt.stale != nil && t.opt.stale()
}

// torn reports whether a read of the tree that failed may have met a
// state of the file torn by a writer: the file has changed since the tree
// was made. The tree is then dropped, and the ESTALE the caller returns
// has the kernel walk the path again, through a tree of the new state.
func (t *Tree) torn() bool {
	return t.opt.changed != nil && t.opt.changed()
}

// treeOf returns the tree a node of the mount belongs to, or nil.
func treeOf(in *gofs.Inode) *Tree {
	switch n := in.Operations().(type) {
	case *dirNode:
		return n.t
	case *fileNode:
		return n.t
	case *linkNode:
		return n.t
	}
	return nil
}
