package fsnode

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/h5fs/h5fs/table"
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
// one retry too. The grace runs from the tree's making and from each
// walk that reached it while it was young: the kernel's retry, a walk
// and an open, would otherwise fail when the grace ends in between.
const staleGrace = 200 * time.Millisecond

// young reports whether the member's tree is in its grace; m.mu is held.
func (m *member) young() bool {
	return time.Since(m.builtAt) < staleGrace || time.Since(m.handedAt) < staleGrace
}

// handed notes that a walk reached tree t (a lookup in the file's
// directory), which extends its grace if it is young.
func (m *member) handed(t *Tree) {
	m.mu.Lock()
	if m.tree == t && time.Since(m.builtAt) < staleGrace {
		m.handedAt = time.Now()
	}
	m.mu.Unlock()
}

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
	current, young := m.tree == t, m.young()
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
	if !m.moved(st) {
		return false
	}
	m.drop(t, false)
	time.Sleep(tornPause)
	return true
}

// tornPause is how long a read that met a torn state waits before its
// ESTALE: the kernel walks again at once, and would otherwise meet the
// same change of the writer again, and fail (its retry is the only one).
const tornPause = 20 * time.Millisecond

// moved reports whether the file may have changed since state st: it
// has, or st was seen within the clock tick of its mtime (a write in the
// same tick shows no change).
func (m *member) moved(st fileState) bool {
	now, err := statFile(m.name)
	return err == nil && (now != st || !st.settled)
}

// maxTornRetries bounds the attempts to make a tree from a file that a
// writer changed while it was read (libhdf5 SWMR readers likewise retry
// a metadata read whose checksum fails).
const maxTornRetries = 5

// dropIfChanged drops the member's tree if the file has changed since it
// was made (and it is not brand new); wait as for drop.
func (m *member) dropIfChanged(wait bool) {
	m.mu.Lock()
	t, st, young := m.tree, m.state, m.young()
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

// tornTable reports whether a table probed while the file changes met
// a torn state: it was refused (a column shorter than NROWS: a SWMR
// writer's flush may publish NROWS before a column's extent), or some of
// its parts could not be read (a column's header, say, that the writer
// was rewriting: the table without that column is no table of one
// state). It is then neither shown nor logged; the caller's error has the
// tree made again or the kernel walk the path again. In a file that does
// not change, such tables are defects, shown with their findings.
func (t *Tree) tornTable(tb *table.Table, findings []table.Finding) bool {
	torn := tb == nil && table.HasErrors(findings)
	if tb != nil {
		for _, f := range tb.Findings {
			torn = torn || f.Severity == table.SevError && f.Rule == "HDF5"
		}
	}
	return torn && t.moving()
}

// moving reports whether the tree's file may have changed since the tree
// was made: a failure to read it then is not logged, being most likely a
// torn state, which the caller's ESTALE has the kernel walk past.
func (t *Tree) moving() bool {
	return t.opt.moved != nil && t.opt.moved()
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

// A file replaced by another (an editor's save writes a new file and
// renames it over the old one; so do rsync and many exporters) has a new
// inode: it is a change like any other, seen at the next open. The open
// views of the old state keep reading the old file through the
// descriptor of its tree, which, unlike that of a file changed in place,
// is not closed when the tree is dropped but left to the descriptor pool
// (which closes it when descriptors are needed, as for a file not in
// use). A descriptor closed meanwhile is never opened again on the new
// file, whose bytes are not those the old tree describes: such a read
// fails.

// replaced reports whether the file at name is no longer the one of
// state st: another file, or none.
func replaced(name string, st fileState) bool {
	now, err := statFile(name)
	return st.ino != 0 && (err != nil || now.ino != st.ino)
}

// openSame opens the named file if it is still the file of inode ino
// (any file for ino 0).
func openSame(name string, ino uint64) (*os.File, error) {
	fh, err := os.Open(name)
	if err != nil || ino == 0 {
		return fh, err
	}
	if st, err := fh.Stat(); err == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Ino != ino {
			fh.Close()
			return nil, fmt.Errorf("%s: replaced by another file since it was opened", name)
		}
	}
	return fh, nil
}
