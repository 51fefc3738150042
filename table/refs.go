package table

import (
	"fmt"

	"github.com/h5fs/h5fs/h5core"
)

// refTargets decodes an object-reference attribute (scalar or 1-D) into
// the addresses of the objects it references; a null reference gives 0
// and a reference into another file ^0. revised is false when the
// attribute uses the deprecated H5T_STD_REF_OBJ type (§5).
func refTargets(a *h5core.Attribute) (addrs []uint64, revised bool, err error) {
	if a.Type.Class != h5core.ClassReference {
		return nil, false, fmt.Errorf("attribute %s is %s, not an object reference", a.Name, a.Type)
	}
	revised = a.Type.RefType.Revised()
	v, err := a.Value()
	if err != nil {
		return nil, revised, err
	}
	list, ok := v.([]any)
	if !ok && v != nil {
		list = []any{v}
	}
	for _, e := range list {
		switch r := e.(type) {
		case h5core.ObjectRef:
			addrs = append(addrs, uint64(r))
		case h5core.Reference:
			switch {
			case r.Type == 0:
				addrs = append(addrs, 0)
			case r.File != "" || r.Type != h5core.RefObject2:
				addrs = append(addrs, ^uint64(0))
			default:
				addrs = append(addrs, r.Object)
			}
		default:
			return nil, revised, fmt.Errorf("attribute %s holds %T, not an object reference", a.Name, e)
		}
	}
	return addrs, revised, nil
}

// refAttr reads an object-reference attribute of the object at path,
// recording §5 findings: the deprecated H5T_STD_REF_OBJ type is accepted
// with a warning (an error in strict mode).
func (t *Table) refAttr(fs *findings, path string, as attrSet, name string) ([]uint64, bool) {
	a := as[name]
	if a == nil {
		return nil, false
	}
	addrs, revised, err := refTargets(a)
	if err != nil {
		fs.errorf(path, "§5", "%s: %v", name, err)
		return nil, false
	}
	if !revised {
		msg := "%s uses the deprecated H5T_STD_REF_OBJ reference type, not H5T_STD_REF"
		if t.mode == Strict {
			fs.errorf(path, "§5", msg, name)
		} else {
			fs.warnf(path, "§5", msg, name)
		}
	}
	return addrs, true
}
