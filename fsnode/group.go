package fsnode

import (
	"fmt"

	"github.com/h5fs/h5fs/h5core"
)

// metaName is the hidden file in every directory that describes its object.
const metaName = ".meta.json"

// ancestry lists the groups above a directory (and its own), so that a
// hard link back up the tree shows as a symbolic link, not as an endless
// directory. depth is the directory's depth below the tree's root (0 for
// the root), which symbolic links climb. inTable is set from a table
// down: objects inside a table are not looked at as tables themselves.
type ancestry struct {
	file    *h5core.File // the file holding the group (external links lead to others)
	addr    uint64
	depth   int
	inTable bool
	up      *ancestry
}

// within returns the ancestry below object o, which is a table if isTable.
func (a *ancestry) within(o *h5core.Object, isTable bool) *ancestry {
	me := &ancestry{file: o.File(), addr: o.Addr, inTable: isTable, up: a}
	if a != nil {
		me.depth = a.depth + 1
		me.inTable = isTable || a.inTable
	}
	return me
}

// find returns the depth of the ancestor that is object o.
func (a *ancestry) find(o *h5core.Object) (int, bool) {
	for ; a != nil; a = a.up {
		if a.file == o.File() && a.addr == o.Addr {
			return a.depth, true
		}
	}
	return 0, false
}

// openLink opens the object link l of group g points at: hard links
// directly, soft links within one lookup's traversal budget (follow).
func (t *Tree) openLink(g *h5core.Object, l h5core.Link) (*h5core.Object, error) {
	if l.Type == h5core.LinkSoft {
		return t.follow(g, l)
	}
	return g.OpenLink(l)
}

// groupDir is the directory of group g below ancestors up, keeping g
// (the tree's root).
func (t *Tree) groupDir(g *h5core.Object, up *ancestry) *dir {
	return &dir{attrs: g, group: keyOf(g), list: t.groupList(func() (*h5core.Object, error) { return g, nil }, up)}
}

// memberGroupDir is the directory of member group g below ancestors up:
// it keeps reopen, the way back to g, not g (see member.go).
func (t *Tree) memberGroupDir(g *h5core.Object, reopen objOpener, up *ancestry) *dir {
	return &dir{reopen: reopen, group: keyOf(g), list: t.groupList(reopen, up)}
}

// groupList lists the group that open opens, below ancestors up.
func (t *Tree) groupList(open objOpener, up *ancestry) func() ([]entry, error) {
	return func() ([]entry, error) {
		g, err := open()
		if err != nil {
			return nil, err
		}
		me := up.within(g, false)
		links, err := g.Links()
		if err != nil {
			return nil, err
		}
		es := []entry{t.metaEntry(g, nil, nil)}
		for _, l := range links {
			es = append(es, t.linkEntries(g, l, me)...)
		}
		return es, nil
	}
}

// linkEntries returns what one link of group g (with ancestry me) shows:
// a directory for a group, files for a dataset, nothing for a committed
// datatype, and a symbolic link for a soft link to a group or a hard link
// to a group above (so that cycles are never walked). An external link
// shows as what it points to in the other file (read through h5core), or
// as a symbolic link when the tree's ExternalLink option places its target
// in the mount.
func (t *Tree) linkEntries(g *h5core.Object, l h5core.Link, me *ancestry) []entry {
	return named(t.showLink(g, l, me), l.Name)
}

// showLink returns linkEntries' entries, named after the link.
func (t *Tree) showLink(g *h5core.Object, l h5core.Link, me *ancestry) []entry {
	name := EscapeName(l.Name)
	where := t.f.Name() + ":" + g.Child(l.Name)
	switch l.Type {
	case h5core.LinkHard, h5core.LinkSoft:
	case h5core.LinkExternal:
		if target, ok := t.externalTarget(me.depth, l); ok {
			return []entry{{name: name, sym: &symlink{target: target}}}
		}
		// its target lies outside the mount: shown as what it points to
	default:
		err := fmt.Errorf("%s link to %q in %q: %w", l.Type, l.Target, l.File, h5core.ErrLinkNotFollowed)
		return []entry{{name: name, file: errorFile(where, err)}}
	}
	o, err := t.openLink(g, l)
	if err != nil {
		return []entry{{name: name, file: errorFile(where, err)}}
	}
	if o.Kind() == h5core.KindGroup {
		if l.Type == h5core.LinkSoft {
			return []entry{{name: name, sym: &symlink{soft: &softLink{path: l.Target, depth: me.depth}}}}
		}
		if anc, loop := me.find(o); loop {
			return []entry{{name: name, sym: &symlink{target: upTarget(me.depth, anc)}}}
		}
	}
	if !me.inTable {
		tb, bad, _ := t.probe(o)
		if tb != nil {
			whole := t.wholeTableEntries(name, o, tb)
			t.track(tb, "up/", name, whole)
			return append(whole, entry{name: name, dir: t.tableDir(o, tb, me)})
		}
		if bad != nil {
			return t.failedEntries(name, where, o, bad, me)
		}
	}
	if e, ok := t.sparseEntry(name, o); ok {
		return []entry{e}
	}
	switch o.Kind() {
	case h5core.KindGroup:
		return []entry{{name: name, dir: t.memberGroupDir(o, t.reopenLink(g, l), me)}}
	case h5core.KindDataset:
		return t.datasetEntries(name, where, o, g, l)
	}
	return nil
}

// failedEntries shows a bad table (or an object whose attributes cannot
// be read): the files it would have, each failing with err.
func (t *Tree) failedEntries(name, where string, o *h5core.Object, err error, up *ancestry) []entry {
	bad := func(n string) entry { return entry{name: n, file: errorFile(where+" "+n, err)} }
	if o.Kind() != h5core.KindGroup {
		return []entry{bad(name + ".raw"), bad(name + ".csv"), bad(name + ".npy")}
	}
	return []entry{{name: name, dir: t.failedDir(o, err, up)}, bad(name + ".csv"), bad(name + ".arrow"), bad(name + ".parquet")}
}

// failedDir is the directory of bad table group o below ancestors up: its
// datasets' column files fail with err, its other links show as usual.
func (t *Tree) failedDir(o *h5core.Object, err error, up *ancestry) *dir {
	d := &dir{attrs: o, group: keyOf(o)}
	me := up.within(o, true)
	d.list = func() ([]entry, error) {
		es := []entry{t.metaEntry(o, nil, err)}
		links, lerr := o.Links()
		if lerr != nil {
			return nil, lerr
		}
		for _, l := range links {
			c, cerr := t.openLink(o, l)
			if cerr != nil || c.Kind() != h5core.KindDataset {
				es = append(es, t.linkEntries(o, l, me)...)
				continue
			}
			n := EscapeName(l.Name)
			where := t.f.Name() + ":" + c.Path + " "
			var cs []entry
			for _, ext := range []string{".csv", ".arrow", ".raw"} {
				cs = append(cs, entry{name: n + ext, file: errorFile(where+n+ext, err)})
			}
			es = append(es, named(cs, l.Name)...)
		}
		return es, nil
	}
	return d
}
