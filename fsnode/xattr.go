package fsnode

import (
	"strings"
	"sync"
	"syscall"

	"github.com/h5fs/h5fs/h5core"
)

// xattrPrefix is the namespace HDF5 attributes are shown in.
const xattrPrefix = "user."

// Limits of the extended attributes (the kernel's own: XATTR_SIZE_MAX and
// XATTR_LIST_MAX). A longer value, or a longer list of names, is refused
// with E2BIG and a log line; .meta.json holds every value in full.
const (
	maxXattrValue = 64 << 10
	maxXattrList  = 64 << 10
)

// Budget of the attribute cache: the parsed attributes and rendered
// values of recently asked objects, dropped all at once beyond either.
const (
	maxCachedAttrObjects = 64
	maxCachedAttrBytes   = 32 << 20
)

// xattrCache keeps, for the objects last asked, their attributes by
// extended attribute name and each value rendered once, on demand, so
// that getfattr -d costs one parse of the object's attributes and one
// rendering of each, not a rendering of all of them per attribute.
type xattrCache struct {
	mu    sync.Mutex
	objs  map[uint64]*objectXattrs
	bytes int
}

// objectXattrs are one object's attributes as extended attributes.
type objectXattrs struct {
	names    []byte // the listxattr reply
	byName   map[string]*h5core.Attribute
	rendered map[string][]byte
	tooLong  map[string]int // text lengths of values over maxXattrValue
	refused  map[string]bool
}

// listRefusal is the key of objectXattrs.refused for the list of names,
// which no escaped attribute name can be.
const listRefusal = "\x00"

// firstRefusal reports whether refusal key (an attribute's name, or
// listRefusal) of x is met for the first time: each is logged once, not
// at every getfattr.
func (c *xattrCache) firstRefusal(x *objectXattrs, key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if x.refused[key] {
		return false
	}
	if x.refused == nil {
		x.refused = map[string]bool{}
	}
	x.refused[key] = true
	return true
}

// xattrsOf returns the extended attributes of object o.
func (t *Tree) xattrsOf(o *h5core.Object) (*objectXattrs, error) {
	c := &t.xattrs
	c.mu.Lock()
	x := c.objs[o.Addr]
	c.mu.Unlock()
	if x != nil {
		return x, nil
	}
	var attrs []*h5core.Attribute
	err := guard(func() (err error) { attrs, err = o.Attributes(); return err })
	if err != nil {
		return nil, err
	}
	x = &objectXattrs{byName: make(map[string]*h5core.Attribute, len(attrs)), rendered: map[string][]byte{}, tooLong: map[string]int{}}
	size := 0
	for _, a := range attrs { // sorted by name
		n := EscapeName(a.Name)
		x.byName[n] = a
		x.names = append(append(append(x.names, xattrPrefix...), n...), 0)
		size += len(a.Raw()) + len(n)
	}
	c.add(o.Addr, x, size)
	return x, nil
}

// add caches x for the object at addr, which costs size bytes.
func (c *xattrCache) add(addr uint64, x *objectXattrs, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.objs == nil || len(c.objs) >= maxCachedAttrObjects || c.bytes+size > maxCachedAttrBytes {
		c.objs, c.bytes = map[uint64]*objectXattrs{}, 0
	}
	c.objs[addr] = x
	c.bytes += size
}

// value returns the text of the attribute shown as extended attribute
// name (nil, ENODATA if there is none), rendering it on first use, or
// its length if that is over maxXattrValue.
func (c *xattrCache) value(x *objectXattrs, name string) ([]byte, int, error) {
	c.mu.Lock()
	v, ok := x.rendered[name]
	n, long := x.tooLong[name]
	c.mu.Unlock()
	switch {
	case ok:
		return v, len(v), nil
	case long:
		return nil, n, nil
	}
	a := x.byName[name]
	if a == nil {
		return nil, 0, syscall.ENODATA
	}
	var val any
	if err := guard(func() (err error) { val, err = a.Value(); return err }); err != nil {
		return nil, 0, err
	}
	v = []byte(attrText(val))
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(v) > maxXattrValue {
		x.tooLong[name] = len(v)
		return nil, len(v), nil
	}
	if c.bytes+len(v) <= maxCachedAttrBytes {
		x.rendered[name] = v
		c.bytes += len(v)
	}
	return v, len(v), nil
}

// getxattr serves user.<attribute> of object o (nil: none). Other
// namespaces (security., system.) are not supported: saying so, rather
// than "no such attribute", lets ls -l stop asking for SELinux labels and
// ACLs after the first file, instead of a round trip each per file.
func (t *Tree) getxattr(o *h5core.Object, attr string, dest []byte) (uint32, syscall.Errno) {
	name, ok := strings.CutPrefix(attr, xattrPrefix)
	if !ok {
		return 0, syscall.EOPNOTSUPP
	}
	if o == nil {
		return 0, syscall.ENODATA
	}
	x, err := t.xattrsOf(o)
	if err != nil {
		t.opt.Log.Printf("h5fs: %s:%s: attributes: %v", t.f.Name(), o.Path, err)
		return 0, syscall.EIO
	}
	v, n, err := t.xattrs.value(x, name)
	switch {
	case err == syscall.ENODATA:
		return 0, syscall.ENODATA
	case err != nil:
		t.opt.Log.Printf("h5fs: %s:%s: attribute %q: %v", t.f.Name(), o.Path, name, err)
		return 0, syscall.EIO
	case n > maxXattrValue:
		if !t.xattrs.firstRefusal(x, name) {
			return 0, syscall.E2BIG
		}
		t.opt.Log.Printf("h5fs: %s:%s: attribute %q: %d bytes as text, over the %d bytes of an extended attribute (see .meta.json)",
			t.f.Name(), o.Path, name, n, maxXattrValue)
		return 0, syscall.E2BIG
	}
	return copyXattr(dest, v)
}

// listxattr lists the extended attributes of object o (nil: none): its
// attributes' names, escaped as link names are.
func (t *Tree) listxattr(o *h5core.Object, dest []byte) (uint32, syscall.Errno) {
	if o == nil {
		return 0, 0
	}
	x, err := t.xattrsOf(o)
	if err != nil {
		t.opt.Log.Printf("h5fs: %s:%s: attributes: %v", t.f.Name(), o.Path, err)
		return 0, syscall.EIO
	}
	if len(x.names) > maxXattrList {
		if !t.xattrs.firstRefusal(x, listRefusal) {
			return 0, syscall.E2BIG
		}
		t.opt.Log.Printf("h5fs: %s:%s: %d attributes: their names take %d bytes, over the %d of an extended attribute list (see .meta.json)",
			t.f.Name(), o.Path, len(x.byName), len(x.names), maxXattrList)
		return 0, syscall.E2BIG
	}
	return copyXattr(dest, x.names)
}

// copyXattr copies an extended attribute value out, or reports its size
// when dest is empty (a size query) or too small.
func copyXattr(dest, v []byte) (uint32, syscall.Errno) {
	if len(dest) == 0 {
		return uint32(len(v)), 0
	}
	if len(dest) < len(v) {
		return uint32(len(v)), syscall.ERANGE
	}
	return uint32(copy(dest, v)), 0
}

// attrText renders an attribute value: a string as it is, anything else
// as h5core formats values (numbers, [lists], {compounds}, enum names).
func attrText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return h5core.FormatValue(v)
}
