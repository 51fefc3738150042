package fsnode

import (
	"fmt"
	"strings"
	"sync"

	"github.com/h5fs/h5fs/h5core"
)

// Every symbolic link the mount serves is computed here, from the mount's
// own path components: a run of "../" no longer than the link's real
// directory depth below the tree's root, then escaped names, none of which
// can be "", "." or ".." or hold a '/'. Resolved, such a target stays
// inside the tree (and so inside the mount), whatever the HDF5 file says.
// Links that cannot be written that way (external links) are not shown
// as symbolic links at all.

// upTarget is the symbolic link, in a directory at depth depth, to its
// ancestor at depth anc (0 is the tree's root).
func upTarget(depth, anc int) string {
	if anc < 0 || anc > depth {
		anc = depth // never climb above the tree's root
	}
	if depth == anc {
		return "."
	}
	return strings.TrimSuffix(strings.Repeat("../", depth-anc), "/")
}

// softTarget is the symbolic link, in a directory at depth depth, for
// the HDF5 soft link target of the group shown by that directory: an
// absolute target starts at the tree's root, a relative one at the
// directory itself, and each name of the target is escaped as the mount
// shows it.
func softTarget(depth int, target string) string {
	var parts []string
	if strings.HasPrefix(target, "/") {
		for range depth {
			parts = append(parts, "..")
		}
	}
	for _, p := range strings.Split(target, "/") {
		if p != "" && p != "." {
			parts = append(parts, EscapeName(p))
		}
	}
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

// softLink is a soft link to a group, shown as a symbolic link to the
// directory the target path names in the mount: each name of the path is
// looked up among the members of the directories on the way, so that the
// link leads to the names the mount shows (a member respelled because its
// name was taken included). When the path cannot be followed that way
// (through a further soft link), the link is softTarget's.
type softLink struct {
	path  string // the HDF5 soft link's target
	depth int    // the depth of the directory holding the link
	from  *dir   // that directory, once its names are settled

	once sync.Once
	text string
}

// linkTarget returns the target of symbolic link entry e.
func (t *Tree) linkTarget(e entry) string {
	if e.sym == nil {
		return ""
	}
	s := e.sym.soft
	if s == nil {
		return e.sym.target
	}
	s.once.Do(func() { s.text = t.softText(s) })
	return s.text
}

// softText computes the target of soft link s.
func (t *Tree) softText(s *softLink) string {
	d := s.from
	if strings.HasPrefix(s.path, "/") {
		d = t.root
	}
	for _, name := range strings.Split(s.path, "/") {
		if d == nil {
			break
		}
		if name != "" && name != "." {
			d = t.memberDir(d, name)
		}
	}
	if d == nil || s.from == nil {
		return softTarget(s.depth, s.path)
	}
	t.shown.mu.Lock()
	defer t.shown.mu.Unlock()
	return relTarget(s.from, d)
}

// memberDir returns the directory that shows member name of directory d
// (or that a symbolic link for it leads to, when the group is shown
// elsewhere), nil if there is none.
func (t *Tree) memberDir(d *dir, name string) *dir {
	es, err := t.children(d)
	if err != nil {
		return nil
	}
	for _, e := range es {
		if e.isMember && e.member == name {
			if e.dir != nil {
				return e.dir
			}
			if e.sym != nil && e.sym.to != nil {
				return e.sym.to
			}
		}
	}
	return nil
}

// maxLinkTraversals is how many soft links one lookup may follow, as in
// libhdf5 (H5L_NUM_LINKS): the budget is shared by every soft link met on
// the way, so that soft links naming soft links cannot multiply the work.
const maxLinkTraversals = 16

// follow opens the object soft link l of group g points at, following at
// most maxLinkTraversals soft links in all. Names are looked up link by
// link from g (or from the root for an absolute target), never by
// re-reading a path string, so that groups whose names hold '/' resolve
// as libhdf5 resolves them.
func (t *Tree) follow(g *h5core.Object, l h5core.Link) (*h5core.Object, error) {
	left := maxLinkTraversals
	o, err := t.resolve(g, l, &left)
	if err != nil {
		return nil, err
	}
	o.Path = g.Child(l.Name)
	return o, nil
}

// resolve opens the target of link l of group g, charging soft links to
// *left.
func (t *Tree) resolve(g *h5core.Object, l h5core.Link, left *int) (*h5core.Object, error) {
	switch l.Type {
	case h5core.LinkHard:
		return g.OpenLink(l)
	case h5core.LinkSoft:
	default:
		return g.OpenLink(l) // not followed: the error says so
	}
	if *left <= 0 {
		return nil, fmt.Errorf("soft link %q to %q: more than %d soft links in one lookup", l.Name, l.Target, maxLinkTraversals)
	}
	*left--
	o := g
	if strings.HasPrefix(l.Target, "/") {
		root, err := t.f.Root()
		if err != nil {
			return nil, err
		}
		o = root
	}
	for _, name := range strings.Split(l.Target, "/") {
		if name == "" || name == "." {
			continue
		}
		next, err := o.Link(name)
		if err != nil {
			return nil, fmt.Errorf("soft link %q to %q: %w", l.Name, l.Target, err)
		}
		if o, err = t.resolve(o, next, left); err != nil {
			return nil, err
		}
	}
	return o, nil
}
