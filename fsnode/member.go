package fsnode

import (
	"syscall"

	"github.com/h5fs/h5fs/h5core"
)

// A listing keeps, for each member of a group, the names it shows and a
// light way back to the member (an objOpener: its group and the link to
// it), not the parsed member: the member is opened again when one of its
// files is opened, its directory listed or its attributes asked for
// (h5core keeps recently parsed headers, so that costs little while a
// client works through the listing). A group of 300,000 members so holds
// 300,000 sets of names, not 300,000 parsed objects, datasets and views.

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

// memberFile is a file of a group's member, shown at where (file and HDF5
// path): newView makes its view from the member, opened again.
func (t *Tree) memberFile(name, where string, reopen objOpener, newView func(o *h5core.Object) (View, error)) entry {
	return entry{name: name, file: &file{path: where + " " + name, reopen: reopen, newView: func() (View, error) {
		o, err := reopen()
		if err != nil {
			return nil, err
		}
		return newView(o)
	}}}
}
