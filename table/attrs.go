package table

import (
	"fmt"
	"math/big"

	"github.com/h5fs/h5fs/h5core"
)

// attrSet is the attributes of one object by name.
type attrSet map[string]*h5core.Attribute

func readAttrs(o *h5core.Object) (attrSet, error) {
	list, err := o.Attributes()
	if err != nil {
		return nil, err
	}
	m := make(attrSet, len(list))
	for _, a := range list {
		m[a.Name] = a
	}
	return m, nil
}

// isString reports whether t is a fixed or variable-length string type.
func isString(t *h5core.Datatype) bool {
	return t.Class == h5core.ClassString || (t.Class == h5core.ClassVlen && t.VlenKind == h5core.VlenString)
}

// str returns a scalar (or one-element) string attribute's value.
func (as attrSet) str(name string) (string, bool) {
	a := as[name]
	if a == nil || !isString(a.Type) || a.NumElements() != 1 {
		return "", false
	}
	v, err := a.Value()
	if err != nil {
		return "", false
	}
	if l, ok := v.([]any); ok {
		v = l[0]
	}
	s, ok := v.(string)
	return s, ok
}

// strings returns a string array attribute's values (a scalar gives one).
func (as attrSet) strings(name string) ([]string, bool, error) {
	a := as[name]
	if a == nil {
		return nil, false, nil
	}
	if !isString(a.Type) {
		return nil, true, fmt.Errorf("attribute %s is %s, not a string array", name, a.Type)
	}
	v, err := a.Value()
	if err != nil {
		return nil, true, err
	}
	var out []string
	switch x := v.(type) {
	case nil:
	case string:
		out = []string{x}
	case []any:
		for _, e := range x {
			s, _ := e.(string)
			out = append(out, s)
		}
	}
	return out, true, nil
}

// stringAttrs returns every scalar string attribute except those named in
// skip.
func (as attrSet) stringAttrs(skip ...string) map[string]string {
	out := map[string]string{}
outer:
	for name, a := range as {
		for _, s := range skip {
			if name == s {
				continue outer
			}
		}
		if a.Shape != nil {
			continue
		}
		if s, ok := as.str(name); ok {
			out[name] = s
		}
	}
	return out
}

// integer converts an integer element value to int64 and uint64 forms;
// ok is false for non-integers. neg reports a negative value.
func integer(v any) (i int64, u uint64, neg, ok bool) {
	switch x := v.(type) {
	case int64:
		return x, uint64(x), x < 0, true
	case uint64:
		return int64(x), x, false, true
	case h5core.EnumValue:
		return x.Value, uint64(x.Value), x.Value < 0, true
	case *big.Int:
		if x.IsUint64() {
			return int64(x.Uint64()), x.Uint64(), false, true
		}
		if x.IsInt64() {
			return x.Int64(), uint64(x.Int64()), x.Int64() < 0, true
		}
	}
	return 0, 0, false, false
}

// boolAttr decodes a HEP001 boolean (§6): an enum on int8 with exactly the
// members FALSE=0 and TRUE=1. conformant is false when the attribute had
// another encoding that could still be read as a truth value.
func (as attrSet) boolAttr(name string) (val, present, conformant bool) {
	a := as[name]
	if a == nil || a.NumElements() != 1 {
		return false, a != nil, false
	}
	v, err := a.Value()
	if err != nil {
		return false, true, false
	}
	if l, ok := v.([]any); ok {
		v = l[0]
	}
	t := a.Type
	conformant = t.Class == h5core.ClassEnum && t.Base != nil && t.Base.Class == h5core.ClassFixedPoint &&
		t.Base.Size == 1 && t.Base.Signed && t.Base.ByteOrder != h5core.BigEndian && len(t.Members) == 2 &&
		enumMember(t, "FALSE") == 0 && enumMember(t, "TRUE") == 1
	if s, ok := v.(string); ok {
		return s == "TRUE" || s == "true" || s == "True" || s == "1", true, false
	}
	i, _, _, ok := integer(v)
	if !ok {
		return false, true, false
	}
	return i != 0, true, conformant
}

// enumMember returns the integer value of the enum member called name, or
// -1 << 62 when there is none.
func enumMember(t *h5core.Datatype, name string) int64 {
	for _, m := range t.Members {
		if m.Name == name {
			return t.Base.Int64(m.Value)
		}
	}
	return -1 << 62
}
