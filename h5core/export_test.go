package h5core

import "fmt"

// BtreeDepth returns the depth of the B-tree chunk index (v1 or v2) of
// the dataset at path: the level of a v1 tree's root node, the depth in
// a v2 tree's header (0: the root is a leaf).
func BtreeDepth(f *File, path string) (int, error) {
	o, err := f.Open(path)
	if err != nil {
		return 0, err
	}
	ds, err := o.Dataset()
	if err != nil {
		return 0, err
	}
	l := ds.layout
	switch l.index {
	case IndexBtreeV1:
		b, err := f.read(l.addr, 6) // "TREE", node type, level
		if err != nil {
			return 0, err
		}
		return int(b[5]), nil
	case IndexBtreeV2:
		b, err := f.read(l.addr, 14) // "BTHD", version, type, node size, record size, depth
		if err != nil {
			return 0, err
		}
		return int(b[12]) | int(b[13])<<8, nil
	}
	return 0, fmt.Errorf("%s: %s chunk index is not a B-tree", path, l.index)
}
