package h5core

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ObjectKind says what an object header describes.
type ObjectKind int

// Object kinds.
const (
	KindGroup ObjectKind = iota
	KindDataset
	KindDatatype
)

func (k ObjectKind) String() string {
	return [...]string{"group", "dataset", "datatype"}[k]
}

// Object is a group, dataset or committed datatype of a file.
type Object struct {
	f    *File
	Path string // the path the object was opened by
	Addr uint64 // object header address
	oh   *objectHeader
}

// File returns the file the object belongs to.
func (o *Object) File() *File { return o.f }

// Kind classifies the object by the messages of its header.
func (o *Object) Kind() ObjectKind {
	switch {
	case o.oh.find(msgLayout) != nil:
		return KindDataset
	case o.oh.find(msgDatatype) != nil && o.oh.find(msgDataspace) == nil:
		return KindDatatype
	}
	return KindGroup
}

// err annotates err with the object's path and file.
func (o *Object) err(err error) error { return withPath(err, o.f.name, o.Path) }

// Root returns the root group.
func (f *File) Root() (*Object, error) {
	return f.object("/", f.sb.rootAddr)
}

func (f *File) object(path string, addr uint64) (*Object, error) {
	oh, err := f.objectHeader(addr)
	if err != nil {
		return nil, withPath(err, f.name, path)
	}
	return &Object{f: f, Path: path, Addr: addr, oh: oh}, nil
}

// maxSoftLinkHops bounds the soft and external links one lookup follows.
const maxSoftLinkHops = 16

// Open returns the object at an absolute path, following hard links, soft
// links and external links (into other files, found as libhdf5 finds them:
// see externalFile). The object's Path is the path it was opened by, in
// this file's namespace; its File is the file that holds it.
func (f *File) Open(path string) (*Object, error) {
	return f.open(path, 0)
}

// open resolves path from f's root, charging soft and external links to
// hops.
func (f *File) open(path string, hops int) (*Object, error) {
	o, err := f.Root()
	if err != nil {
		return nil, err
	}
	cur := ""   // the path walked, in f's namespace
	where := "" // the path of o within o's own file
	for _, name := range strings.Split(path, "/") {
		if name == "" || name == "." {
			continue
		}
		l, err := o.Link(name)
		if err != nil {
			return nil, err
		}
		cur += "/" + name
		where += "/" + name
		switch l.Type {
		case LinkHard:
			if o, err = o.f.object(cur, l.Addr); err != nil {
				return nil, err
			}
		case LinkSoft, LinkExternal:
			if hops >= maxSoftLinkHops {
				return nil, fmt.Errorf("%s: %s: more than %d soft or external links", f.name, cur, maxSoftLinkHops)
			}
			in, t := o.f, l.Target
			if l.Type == LinkExternal {
				if in, err = o.f.externalFile(l.File); err != nil {
					return nil, fmt.Errorf("%s: %s: external link to %q in %q: %w", f.name, cur, l.Target, l.File, err)
				}
			} else if !strings.HasPrefix(t, "/") {
				t = strings.TrimSuffix(strings.TrimSuffix(where, "/"+name), "/") + "/" + t
			}
			if o, err = in.open(t, hops+1); err != nil {
				return nil, err
			}
			o.Path = cur
			where = t
		default:
			return nil, fmt.Errorf("%s: %s: %s link to %s:%s: %w", f.name, cur, l.Type, l.File, l.Target, ErrLinkNotFollowed)
		}
	}
	if cur == "" {
		o.Path = "/"
	}
	return o, nil
}

// ErrLinkNotFollowed is returned (wrapped) for user-defined links, which
// h5core does not follow.
var ErrLinkNotFollowed = errors.New("link not followed")

// ErrNotFound is returned (wrapped) when a link name does not exist.
var ErrNotFound = errors.New("not found")

// Link returns the link called name in this group.
func (o *Object) Link(name string) (Link, error) {
	links, err := o.Links()
	if err != nil {
		return Link{}, err
	}
	i := sort.Search(len(links), func(i int) bool { return links[i].Name >= name })
	if i < len(links) && links[i].Name == name {
		return links[i], nil
	}
	return Link{}, fmt.Errorf("%s: %s: link %q: %w", o.f.name, o.Path, name, ErrNotFound)
}

// Child returns the path of a link below this object.
func (o *Object) Child(name string) string {
	if o.Path == "/" {
		return "/" + name
	}
	return o.Path + "/" + name
}

// OpenLink opens the object a hard, soft or external link of this group
// points at (see File.Open).
func (o *Object) OpenLink(l Link) (*Object, error) {
	switch l.Type {
	case LinkHard:
		return o.f.object(o.Child(l.Name), l.Addr)
	case LinkSoft:
		return o.f.Open(o.Child(l.Name))
	case LinkExternal:
		ef, err := o.f.externalFile(l.File)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: external link to %q in %q: %w", o.f.name, o.Child(l.Name), l.Target, l.File, err)
		}
		t, err := ef.open(l.Target, 1)
		if err != nil {
			return nil, err
		}
		t.Path = o.Child(l.Name)
		return t, nil
	}
	return nil, fmt.Errorf("%s: %s: %s link: %w", o.f.name, o.Child(l.Name), l.Type, ErrLinkNotFollowed)
}

// Links returns the links of a group sorted by name. Objects that are not
// groups have none. The result is cached per file and must not be
// modified.
func (o *Object) Links() ([]Link, error) {
	f := o.f
	f.mu.Lock()
	links, ok := f.links[o.Addr]
	f.mu.Unlock()
	if ok {
		return links, nil
	}
	links, err := o.links()
	if err != nil {
		return nil, o.err(err)
	}
	sort.Slice(links, func(i, j int) bool { return links[i].Name < links[j].Name })
	f.mu.Lock()
	if len(f.links) >= maxCachedGroups {
		clear(f.links)
	}
	f.links[o.Addr] = links
	f.mu.Unlock()
	return links, nil
}

// maxCachedGroups bounds the per-file cache of group link lists.
const maxCachedGroups = 4096

func (o *Object) links() ([]Link, error) {
	var links []Link
	for _, m := range o.oh.msgs {
		switch m.typ {
		case msgSymbolTable:
			return o.f.symbolTableLinks(m.data, m.addr)
		case msgLink:
			l, err := o.f.parseLink(m.data, m.addr)
			if err != nil {
				return nil, err
			}
			links = append(links, l)
		case msgLinkInfo:
			li, err := o.f.parseLinkInfo(m.data, m.addr)
			if err != nil {
				return nil, err
			}
			if li.heapAddr != undefAddr {
				dense, err := o.f.denseLinks(li)
				if err != nil {
					return nil, err
				}
				links = append(links, dense...)
			}
		}
	}
	return links, nil
}

// symbolTableLinks lists an old-style group: v1 B-tree of symbol nodes
// with names in a local heap.
func (f *File) symbolTableLinks(b []byte, at uint64) ([]Link, error) {
	d := f.decoder(b, at)
	btree, heapAddr := d.offset(), d.offset()
	if d.err != nil {
		return nil, d.err
	}
	heap, err := f.readLocalHeap(heapAddr)
	if err != nil {
		return nil, err
	}
	var links []Link
	keySize := f.sl
	err = f.walkBtree1(btree, btree1Group, keySize, func(_ []byte, child uint64) error {
		ents, err := f.readSymbolNode(child, heap)
		links = append(links, ents...)
		if len(links) > maxBtreeEntries*16 {
			return formatErr(btree, "symbol table with more than %d entries", maxBtreeEntries*16)
		}
		return err
	})
	return links, err
}

// readSymbolNode decodes a symbol table node ("SNOD").
func (f *File) readSymbolNode(addr uint64, heap *localHeap) ([]Link, error) {
	d, err := f.decoderAt(addr, 8)
	if err != nil {
		return nil, err
	}
	if !d.signature("SNOD") {
		return nil, d.err
	}
	if v := d.u8(); v != 1 {
		return nil, formatErr(addr, "symbol table node version %d unknown", v)
	}
	d.u8()
	n := int(d.u16())
	entSize := 2*f.so + 24
	d, err = f.decoderAt(addr+8, uint64(n*entSize))
	if err != nil {
		return nil, err
	}
	links := make([]Link, 0, n)
	for i := 0; i < n; i++ {
		nameOff := d.offset()
		objAddr := d.offset()
		cache := d.u32()
		d.u32()
		scratch := d.bytes(16)
		if d.err != nil {
			return nil, d.err
		}
		name, err := heap.stringAt(nameOff)
		if err != nil {
			return nil, err
		}
		l := Link{Name: name, Addr: objAddr, CreationID: -1}
		if cache == 2 {
			off := uint64(scratch[0]) | uint64(scratch[1])<<8 | uint64(scratch[2])<<16 | uint64(scratch[3])<<24
			t, err := heap.stringAt(off)
			if err != nil {
				return nil, err
			}
			l.Type, l.Target = LinkSoft, t
		}
		links = append(links, l)
	}
	return links, nil
}
