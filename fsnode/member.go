package fsnode

import (
	"fmt"
	"sort"
	"sync"
	"syscall"

	"github.com/h5fs/h5fs/h5core"
)

// A listing keeps, for each member of a group, the names it shows and a
// light way back to the member (its group and the link to it), not the
// parsed member: the member is opened again when one of its files is
// opened, its directory listed or its attributes asked for (h5core keeps
// recently parsed headers, so that costs little while a client works
// through the listing). A dataset member's files (memberFiles) are made
// when the kernel looks them up and dropped when it forgets them; the
// listing keeps only what their first stat showed. A group of 300,000
// members so holds 300,000 sets of names, not 300,000 parsed objects,
// datasets, files and views.

// objOpener opens an object again.
type objOpener func() (*h5core.Object, error)

// reopenLink returns the objOpener of the object link l of group g points
// at.
func (t *Tree) reopenLink(g *h5core.Object, l h5core.Link) objOpener {
	return func() (*h5core.Object, error) { return t.openLink(g, l) }
}

// nodeObject returns the object whose attributes a node shows: attrs, or
// what reopen opens (nil for neither). A member that cannot be opened
// again is EIO, with a log line.
func (t *Tree) nodeObject(attrs *h5core.Object, reopen objOpener) (*h5core.Object, syscall.Errno) {
	if attrs != nil || reopen == nil {
		return attrs, 0
	}
	o, err := reopen()
	if err != nil {
		t.opt.Log.Printf("h5fs: %v", err)
		return nil, syscall.EIO
	}
	return o, 0
}

// memberFiles is what a listing keeps of the files of one dataset member,
// the target of the link called name in group g: the way back to it and
// what the first stat of each of its files showed.
type memberFiles struct {
	g    *h5core.Object
	name string

	mu    sync.Mutex
	sizes [numMemberViews]shownSize
}

// shownSize is what stat showed of a dataset member's file.
type shownSize struct {
	size         int64
	known, exact bool
}

// save records what stat showed of view mv.
func (m *memberFiles) save(mv memberView, st statSize) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sizes[mv] = shownSize{st.size, st.known, st.exact}
}

// openMember opens member m again: its link is found by name among the
// group's links (which h5core keeps, sorted by name).
func (t *Tree) openMember(m *memberFiles) (*h5core.Object, error) {
	links, err := m.g.Links()
	if err != nil {
		return nil, err
	}
	i := sort.Search(len(links), func(i int) bool { return links[i].Name >= m.name })
	if i == len(links) || links[i].Name != m.name {
		return nil, fmt.Errorf("%s: %s: link no longer found", t.f.Name(), m.g.Child(m.name))
	}
	return t.openLink(m.g, links[i])
}

// fileOf returns the file of entry e: its own, or for a dataset member's
// entry a new one, knowing what stat showed of it before.
func (t *Tree) fileOf(e entry) *file {
	if e.file != nil || e.mf == nil {
		return e.file
	}
	return t.memberFile(e, func() (*h5core.Object, error) { return t.openMember(e.mf) })
}

// memberFile is file e.mv of dataset member e.mf, which open opens.
func (t *Tree) memberFile(e entry, open objOpener) *file {
	m := e.mf
	f := &file{
		path:   t.f.Name() + ":" + m.g.Child(m.name) + " " + e.name,
		reopen: open,
		newView: func() (View, error) {
			o, err := open()
			if err != nil {
				return nil, err
			}
			return t.memberView(o, e.mv)
		},
		m:  m,
		mv: e.mv,
	}
	m.mu.Lock()
	s := m.sizes[e.mv]
	m.mu.Unlock()
	f.stat = statSize{known: s.known, size: s.size, exact: s.exact}
	return f
}
