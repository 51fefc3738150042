package h5core

// v1 B-tree node types.
const (
	btree1Group = 0
	btree1Chunk = 1
)

// Bounds on hostile v1 B-trees.
const (
	maxBtreeDepth   = 64
	maxBtreeEntries = 1 << 16
)

// btree1Node is one decoded v1 B-tree node: keys[i] precedes children[i];
// there is one more key than children.
type btree1Node struct {
	level    uint8
	keys     [][]byte
	children []uint64
}

// readBtree1Node reads a node of the given type; keySize is the size of
// one key.
func (f *File) readBtree1Node(addr uint64, typ uint8, keySize int) (*btree1Node, error) {
	d, err := f.decoderAt(addr, uint64(8+2*f.so))
	if err != nil {
		return nil, err
	}
	if !d.signature("TREE") {
		return nil, d.err
	}
	if t := d.u8(); t != typ {
		return nil, formatErr(addr, "v1 B-tree node type %d, expected %d", t, typ)
	}
	n := &btree1Node{level: d.u8()}
	entries := int(d.u16())
	if entries > maxBtreeEntries {
		return nil, formatErr(addr, "v1 B-tree node with %d entries", entries)
	}
	hdr := uint64(8 + 2*f.so)
	body := uint64(entries)*uint64(keySize+f.so) + uint64(keySize)
	d, err = f.decoderAt(addr+hdr, body)
	if err != nil {
		return nil, err
	}
	for i := 0; i < entries; i++ {
		n.keys = append(n.keys, d.bytes(keySize))
		n.children = append(n.children, d.offset())
	}
	n.keys = append(n.keys, d.bytes(keySize))
	return n, d.err
}

// walkBtree1 visits every leaf entry of the v1 B-tree at addr: fn gets the
// key before the child and the child address.
func (f *File) walkBtree1(addr uint64, typ uint8, keySize int, fn func(key []byte, child uint64) error) error {
	seen := map[uint64]bool{}
	var walk func(addr uint64, depth int, wantLevel int) error
	walk = func(addr uint64, depth int, wantLevel int) error {
		if depth > maxBtreeDepth {
			return formatErr(addr, "v1 B-tree deeper than %d levels", maxBtreeDepth)
		}
		if seen[addr] {
			return formatErr(addr, "v1 B-tree node visited twice (loop)")
		}
		seen[addr] = true
		n, err := f.readBtree1Node(addr, typ, keySize)
		if err != nil {
			return err
		}
		if wantLevel >= 0 && int(n.level) != wantLevel {
			return formatErr(addr, "v1 B-tree node at level %d, expected %d", n.level, wantLevel)
		}
		for i, c := range n.children {
			if n.level == 0 {
				if err := fn(n.keys[i], c); err != nil {
					return err
				}
				continue
			}
			if err := walk(c, depth+1, int(n.level)-1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(addr, 0, -1)
}
