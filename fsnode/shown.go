package fsnode

import (
	"strings"
	"sync"

	"github.com/h5fs/h5fs/h5core"
)

// A group that hard links reach by several paths is a directory once, at
// the first path the mount lists it under, and a symbolic link to that
// directory everywhere else (as h5dump marks an object it has seen as
// HARDLINK). A diamond of hard links, whose paths double at each level,
// then shows as many directories as it has groups, and a walk of the
// mount ends; what the tree keeps grows with the file's groups, never
// with the paths a client walks.

// groupKey identifies a group across paths: its file and header address.
// The zero key is no group.
type groupKey struct {
	file *h5core.File
	addr uint64
}

// keyOf returns the key of group g.
func keyOf(g *h5core.Object) groupKey { return groupKey{g.File(), g.Addr} }

// shownGroups records the directory each group is shown as.
type shownGroups struct {
	mu    sync.Mutex
	first map[groupKey]*dir
}

// root records d as the tree's root.
func (s *shownGroups) root(d *dir) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claim(d)
}

// place records entries es, just listed in directory d (names settled,
// in name order), as d's children: an entry showing a group already
// shown elsewhere becomes a symbolic link to that directory.
func (s *shownGroups) place(d *dir, es []entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range es {
		if e.sym != nil && e.sym.soft != nil {
			e.sym.soft.from = d
		}
		if e.dir == nil {
			continue
		}
		e.dir.up, e.dir.name = d, e.name
		if first := s.claim(e.dir); first != e.dir {
			es[i] = entry{name: e.name, sym: &symlink{target: relTarget(d, first), to: first}, member: e.member, isMember: e.isMember}
		}
	}
}

// claim returns the directory group d's group is shown as, d itself if
// it is the first (or shows no group).
func (s *shownGroups) claim(d *dir) *dir {
	k := d.group
	if k.file == nil {
		return d
	}
	if s.first == nil {
		s.first = map[groupKey]*dir{}
	}
	if first, ok := s.first[k]; ok {
		return first
	}
	s.first[k] = d
	return d
}

// relTarget is the symbolic link, in directory from, to directory to:
// climbs to their common ancestor, then the names below it, all of them
// names the mount shows, so that it stays inside the tree.
func relTarget(from, to *dir) string {
	a, b := dirPath(from), dirPath(to)
	c := 0
	for c < len(a) && c < len(b) && a[c] == b[c] {
		c++
	}
	var parts []string
	for range len(a) - c {
		parts = append(parts, "..")
	}
	for _, d := range b[c:] {
		parts = append(parts, d.name)
	}
	if len(parts) == 0 {
		return "."
	}
	return strings.Join(parts, "/")
}

// dirPath lists the directories from the tree's root (excluded) down to d.
func dirPath(d *dir) []*dir {
	var p []*dir
	for ; d.up != nil; d = d.up {
		p = append(p, d)
	}
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
	return p
}
