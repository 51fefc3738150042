package h5core

import "encoding/binary"

// newBtree1Writer returns the writer of a v1 B-tree chunk index.
func (tx *Tx) newBtree1Writer(d *dsWriter) (chunkIndexWriter, error) {
	f := tx.w.f
	w := &tableWriter{d: d}
	t := f.newBtree1ChunkIndex(d.ds.layout, d.ds.geom).(*chunkTable)
	if err := w.load(t); err != nil {
		return nil, err
	}
	w.build = func(locs []chunkLoc) (uint64, error) { return tx.buildBtree1Chunks(d.ds.geom, locs) }
	return w, nil
}

// buildBtree1Chunks writes a v1 B-tree (node type 1) holding locs,
// sorted, at the end of file and returns the root's address. Nodes are
// allocated at full size (2K entries, K from the superblock) as libhdf5
// expects, and filled; a node's last key is its right bound: for a
// leaf, the last chunk's scaled coordinates plus one in every dimension,
// as libhdf5 writes it.
func (tx *Tx) buildBtree1Chunks(g *chunkGeom, locs []chunkLoc) (uint64, error) {
	if len(locs) == 0 {
		return undefAddr, nil
	}
	f := tx.w.f
	so := f.so
	rank := len(g.chunk)
	keySize := 8 + 8*(rank+1)
	fanout := 2 * int(f.sb.chunkInnerK)
	nodeSize := 8 + 2*so + fanout*so + (fanout+1)*keySize
	key := func(loc chunkLoc, right bool) []byte {
		k := make([]byte, keySize)
		if !right {
			binary.LittleEndian.PutUint32(k, uint32(loc.size))
			binary.LittleEndian.PutUint32(k[4:], loc.mask)
		}
		for i, s := range loc.scaled {
			if right {
				s++
			}
			binary.LittleEndian.PutUint64(k[8+8*i:], s*g.chunk[i])
		}
		if right {
			binary.LittleEndian.PutUint64(k[8+8*rank:], g.elemSize)
		}
		return k
	}
	leaves := make([]btree1Entry, len(locs))
	for i, l := range locs {
		leaves[i] = btree1Entry{key(l, false), l.addr}
	}
	return tx.buildBtree1(btree1Chunk, nodeSize, fanout, leaves, key(locs[len(locs)-1], true))
}

// btree1Entry is one child of a v1 B-tree node being built: the key
// before it and its address.
type btree1Entry struct {
	left  []byte
	child uint64
}

// buildBtree1 writes a v1 B-tree of node type typ over leaves (sorted)
// at the end of file and returns the root's address: nodes of nodeSize
// bytes (libhdf5 allocates them at full size) holding up to fanout
// children, last the right key of the last leaf entry.
func (tx *Tx) buildBtree1(typ uint8, nodeSize, fanout int, leaves []btree1Entry, last []byte) (uint64, error) {
	so := tx.w.f.so
	level := leaves
	for depth := 0; ; depth++ {
		n := (len(level) + fanout - 1) / fanout
		addrs := make([]uint64, n)
		for i := range addrs {
			addrs[i] = tx.alloc(uint64(nodeSize))
		}
		up := make([]btree1Entry, n)
		for i := range n {
			part := level[i*fanout : min((i+1)*fanout, len(level))]
			b := make([]byte, nodeSize)
			copy(b, "TREE")
			b[4], b[5] = typ, byte(depth)
			binary.LittleEndian.PutUint16(b[6:], uint16(len(part)))
			left, right := undefAddr, undefAddr
			if i > 0 {
				left = addrs[i-1]
			}
			if i+1 < n {
				right = addrs[i+1]
			}
			putAddr(b[8:], left, so)
			putAddr(b[8+so:], right, so)
			pos := 8 + 2*so
			for _, e := range part {
				pos += copy(b[pos:], e.left)
				putAddr(b[pos:], e.child, so)
				pos += so
			}
			if i+1 < n {
				copy(b[pos:], level[(i+1)*fanout].left)
			} else {
				copy(b[pos:], last)
			}
			if err := tx.write(addrs[i], b); err != nil {
				return 0, err
			}
			up[i] = btree1Entry{part[0].left, addrs[i]}
		}
		if n == 1 {
			return addrs[0], nil
		}
		level = up
	}
}
