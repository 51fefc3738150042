package fsnode

import (
	"path"
	"strings"

	"github.com/h5fs/h5fs/h5core"
)

// metaName is the hidden file in every directory that describes its object.
const metaName = ".meta.json"

// groupDir is the directory of an ordinary group.
func (t *Tree) groupDir(g *h5core.Object) *dir {
	d := &dir{attrs: g.Path}
	d.list = func() ([]entry, error) {
		links, err := g.Links()
		if err != nil {
			return nil, err
		}
		es := []entry{t.metaEntry(g, nil)}
		for _, l := range links {
			es = append(es, t.linkEntries(g, l)...)
		}
		return es, nil
	}
	return d
}

// linkEntries returns what one link of group g shows: a directory for a
// group, files for a dataset, a symbolic link for a soft link to a group
// (so that cycles are never walked), nothing for a committed datatype.
func (t *Tree) linkEntries(g *h5core.Object, l h5core.Link) []entry {
	name := EscapeName(l.Name)
	where := t.f.Name() + ":" + g.Child(l.Name)
	if l.Type != h5core.LinkHard && l.Type != h5core.LinkSoft {
		return []entry{{name: name, target: l.File + ":" + l.Target}}
	}
	o, err := g.OpenLink(l)
	if err != nil {
		return []entry{{name: name, file: errorFile(where, err)}}
	}
	if l.Type == h5core.LinkSoft && o.Kind() == h5core.KindGroup {
		return []entry{{name: name, target: relTarget(g.Path, l.Target)}}
	}
	if tb := t.tables[o.Path]; tb != nil {
		return append(t.wholeTableEntries(name, tb), entry{name: name, dir: t.tableDir(o, tb)})
	}
	if err := t.failed[o.Path]; err != nil {
		return t.failedEntries(name, where, o, err)
	}
	switch o.Kind() {
	case h5core.KindGroup:
		return []entry{{name: name, dir: t.groupDir(o)}}
	case h5core.KindDataset:
		return t.datasetEntries(name, where, o)
	}
	return nil
}

// failedEntries shows a bad table (or an object Discover could not read):
// the files it would have, each failing with err.
func (t *Tree) failedEntries(name, where string, o *h5core.Object, err error) []entry {
	bad := func(n string) entry { return entry{name: n, file: errorFile(where+" "+n, err)} }
	if o.Kind() != h5core.KindGroup {
		return []entry{bad(name + ".raw"), bad(name + ".csv"), bad(name + ".npy")}
	}
	d := &dir{attrs: o.Path}
	d.list = func() ([]entry, error) {
		es := []entry{t.metaEntry(o, nil)}
		links, lerr := o.Links()
		if lerr != nil {
			return nil, lerr
		}
		for _, l := range links {
			c, cerr := o.OpenLink(l)
			if cerr != nil || c.Kind() != h5core.KindDataset {
				es = append(es, t.linkEntries(o, l)...)
				continue
			}
			n := EscapeName(l.Name)
			es = append(es, bad(n+".csv"), bad(n+".arrow"), bad(n+".raw"))
		}
		return es, nil
	}
	return []entry{{name: name, dir: d}, bad(name + ".csv"), bad(name + ".arrow"), bad(name + ".parquet")}
}

// relTarget returns the symbolic link target, relative to the directory of
// group dirPath, of the soft link target (absolute, or relative to dirPath).
func relTarget(dirPath, target string) string {
	if !strings.HasPrefix(target, "/") {
		target = dirPath + "/" + target
	}
	var parts []string
	for _, p := range strings.Split(target, "/") {
		if p != "" && p != "." {
			parts = append(parts, EscapeName(p))
		}
	}
	up := strings.Count(path.Clean("/"+dirPath), "/")
	if dirPath == "/" || dirPath == "" {
		up = 0
	}
	rel := strings.Repeat("../", up) + strings.Join(parts, "/")
	if rel == "" {
		return "."
	}
	return strings.TrimSuffix(rel, "/")
}
