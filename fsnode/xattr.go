package fsnode

import (
	"sort"

	"github.com/h5fs/h5fs/h5core"
)

// xattrPrefix is the namespace HDF5 attributes are shown in.
const xattrPrefix = "user."

// attributeTexts returns the attributes of the object at HDF5 path p as
// readable text, by name.
func (t *Tree) attributeTexts(p string) (map[string]string, error) {
	o, err := t.f.Open(p)
	if err != nil {
		return nil, err
	}
	return attributeTexts(o)
}

// attributeTexts returns the attributes of o as readable text, by name.
func attributeTexts(o *h5core.Object) (map[string]string, error) {
	attrs, err := o.Attributes()
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(attrs))
	for _, a := range attrs {
		v, err := a.Value()
		if err != nil {
			return nil, err
		}
		m[a.Name] = attrText(v)
	}
	return m, nil
}

// attrText renders an attribute value: a string as it is, anything else
// as h5core formats values (numbers, [lists], {compounds}, enum names).
func attrText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return h5core.FormatValue(v)
}

// xattrNames lists extended attribute names for attributes m,
// NUL-terminated, sorted.
func xattrNames(m map[string]string) []byte {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var b []byte
	for _, n := range names {
		b = append(append(append(b, xattrPrefix...), n...), 0)
	}
	return b
}
