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
	d := &dir{obj: g}
	d.list = func() ([]entry, error) {
		links, err := g.Links()
		if err != nil {
			return nil, err
		}
		es := []entry{t.metaEntry(d, g)}
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
	switch o.Kind() {
	case h5core.KindGroup:
		if l.Type == h5core.LinkSoft {
			return []entry{{name: name, target: relTarget(g.Path, l.Target)}}
		}
		return []entry{{name: name, dir: t.groupDir(o)}}
	case h5core.KindDataset:
		return t.datasetEntries(name, where, o)
	}
	return nil
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
