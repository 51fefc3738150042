package h5core

import "math/bits"

// v2 B-tree record types (spec III.A.2) that h5core reads.
const (
	bt2HugeIndirect         = 1  // fractal heap huge objects, indirectly accessed
	bt2HugeIndirectFiltered = 2  // the same, filtered
	bt2LinkName             = 5  // dense link storage, name index
	bt2LinkOrder            = 6  // dense link storage, creation order index
	bt2AttrName             = 8  // dense attribute storage, name index
	bt2Chunk                = 10 // chunk index, unfiltered chunks
	bt2ChunkFiltered        = 11 // chunk index, filtered chunks
)

// Bounds on hostile v2 B-trees.
const (
	maxBtree2Depth = 32
	bt2Prefix      = 4 + 1 + 1 // signature, version, type
	bt2Overhead    = bt2Prefix + 4
)

// btree2 is a decoded v2 B-tree header ("BTHD") with the per-depth node
// geometry libhdf5 derives from it (H5B2__hdr_init).
type btree2 struct {
	addr     uint64
	typ      uint8
	nodeSize uint64
	recSize  int
	depth    int
	root     uint64
	rootRecs uint64
	total    uint64

	// maxRecs[d] is the most records a node at depth d (0 = leaf) holds;
	// totalWidth[d] the width of the "total records" field of a pointer to
	// a node at depth d (0 for leaves, which need none).
	maxRecs    []uint64
	totalWidth []int
	nrecWidth  int // width of every "number of records" field
}

// readBtree2 reads the v2 B-tree header at addr and checks that it holds
// records of type typ, each recSize bytes long.
func (f *File) readBtree2(addr uint64, typ uint8, recSize int) (*btree2, error) {
	size := uint64(bt2Overhead + 4 + 2 + 2 + 1 + 1 + f.so + 2 + f.sl)
	b, err := f.read(addr, size)
	if err != nil {
		return nil, err
	}
	if err := verifyChecksum(b, addr, "v2 B-tree header"); err != nil {
		return nil, err
	}
	d := f.decoder(b, addr)
	if !d.signature("BTHD") {
		return nil, d.err
	}
	if v := d.u8(); v > 1 {
		return nil, formatErr(addr, "v2 B-tree header version %d unknown", v)
	}
	t := &btree2{addr: addr, typ: d.u8()}
	t.nodeSize = uint64(d.u32())
	t.recSize = int(d.u16())
	t.depth = int(d.u16())
	d.u8() // split percent
	d.u8() // merge percent
	t.root = d.offset()
	t.rootRecs = uint64(d.u16())
	t.total = d.length()
	if d.err != nil {
		return nil, d.err
	}
	if t.typ != typ {
		return nil, formatErr(addr, "v2 B-tree of record type %d, expected %d", t.typ, typ)
	}
	if t.recSize != recSize {
		return nil, formatErr(addr, "v2 B-tree records of %d bytes, expected %d for type %d", t.recSize, recSize, typ)
	}
	if err := t.geometry(f.so); err != nil {
		return nil, err
	}
	if t.rootRecs > t.maxRecs[t.depth] {
		return nil, formatErr(addr, "v2 B-tree root holds %d records, a node fits %d", t.rootRecs, t.maxRecs[t.depth])
	}
	return t, nil
}

// geometry computes the record capacity of nodes at each depth and the
// widths of the child pointer fields, as libhdf5 does: the "number of
// records" width follows from the leaf capacity (the largest), the "total
// records" width from the cumulative capacity below each depth.
func (t *btree2) geometry(so int) error {
	if t.depth > maxBtree2Depth {
		return formatErr(t.addr, "v2 B-tree depth %d exceeds %d", t.depth, maxBtree2Depth)
	}
	if t.recSize == 0 || t.nodeSize < uint64(bt2Overhead+t.recSize) {
		return formatErr(t.addr, "v2 B-tree node size %d cannot hold a record of %d bytes", t.nodeSize, t.recSize)
	}
	leaf := (t.nodeSize - bt2Overhead) / uint64(t.recSize)
	t.maxRecs = []uint64{leaf}
	t.totalWidth = []int{0}
	t.nrecWidth = bytesFor(leaf)
	cum := leaf
	for u := 1; u <= t.depth; u++ {
		ptr := uint64(so + t.nrecWidth + t.totalWidth[u-1])
		if t.nodeSize < bt2Overhead+ptr {
			return formatErr(t.addr, "v2 B-tree node size %d too small for depth %d", t.nodeSize, t.depth)
		}
		n := (t.nodeSize - bt2Overhead - ptr) / (uint64(t.recSize) + ptr)
		if n == 0 {
			return formatErr(t.addr, "v2 B-tree internal nodes of %d bytes hold no record", t.nodeSize)
		}
		t.maxRecs = append(t.maxRecs, n)
		cum = satAdd(satMul(n+1, cum), n)
		t.totalWidth = append(t.totalWidth, bytesFor(cum))
	}
	return nil
}

// satMul and satAdd are uint64 arithmetic that saturates instead of
// wrapping; capacities of hostile trees may overflow.
func satMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return ^uint64(0)
	}
	return lo
}

func satAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return ^uint64(0)
	}
	return s
}

// bt2Child is a child pointer of an internal node.
type bt2Child struct {
	addr uint64
	nrec uint64
}

// readBtree2Node reads the node at addr, at the given depth, holding nrec
// records. It returns the records and, for internal nodes, the nrec+1
// child pointers.
func (f *File) readBtree2Node(t *btree2, addr uint64, depth int, nrec uint64) ([][]byte, []bt2Child, error) {
	if nrec > t.maxRecs[depth] {
		return nil, nil, formatErr(addr, "v2 B-tree node with %d records, at most %d fit", nrec, t.maxRecs[depth])
	}
	sig, what := "BTLF", "v2 B-tree leaf node"
	size := uint64(bt2Overhead) + nrec*uint64(t.recSize)
	ptrSize := 0
	if depth > 0 {
		sig, what = "BTIN", "v2 B-tree internal node"
		ptrSize = f.so + t.nrecWidth + t.totalWidth[depth-1]
		size += (nrec + 1) * uint64(ptrSize)
	}
	if size > t.nodeSize {
		return nil, nil, formatErr(addr, "%s of %d bytes exceeds the node size %d", what, size, t.nodeSize)
	}
	b, err := f.read(addr, size)
	if err != nil {
		return nil, nil, err
	}
	if err := verifyChecksum(b, addr, what); err != nil {
		return nil, nil, err
	}
	d := f.decoder(b, addr)
	if !d.signature(sig) {
		return nil, nil, d.err
	}
	if v := d.u8(); v != 0 {
		return nil, nil, formatErr(addr, "%s version %d unknown", what, v)
	}
	if typ := d.u8(); typ != t.typ {
		return nil, nil, formatErr(addr, "%s of record type %d in a B-tree of type %d", what, typ, t.typ)
	}
	recs := make([][]byte, nrec)
	for i := range recs {
		recs[i] = d.bytes(t.recSize)
	}
	var kids []bt2Child
	if depth > 0 {
		kids = make([]bt2Child, nrec+1)
		for i := range kids {
			kids[i] = bt2Child{addr: d.offset(), nrec: d.uN(t.nrecWidth)}
			d.uN(t.totalWidth[depth-1]) // total records below the child
		}
	}
	return recs, kids, d.err
}

// walkBtree2 calls fn with every record of the tree in key order. The
// record slices are only valid during the call.
func (f *File) walkBtree2(t *btree2, fn func(rec []byte) error) error {
	if t.root == undefAddr || t.total == 0 {
		return nil
	}
	seen := map[uint64]bool{}
	var count uint64
	var walk func(addr uint64, depth int, nrec uint64) error
	walk = func(addr uint64, depth int, nrec uint64) error {
		if seen[addr] {
			return formatErr(addr, "v2 B-tree node visited twice (loop)")
		}
		seen[addr] = true
		recs, kids, err := f.readBtree2Node(t, addr, depth, nrec)
		if err != nil {
			return err
		}
		for i := 0; i <= len(recs); i++ {
			if depth > 0 {
				if err := walk(kids[i].addr, depth-1, kids[i].nrec); err != nil {
					return err
				}
			}
			if i == len(recs) {
				break
			}
			if count++; count > t.total {
				return formatErr(t.addr, "v2 B-tree holds more than the %d records its header counts", t.total)
			}
			if err := fn(recs[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(t.root, t.depth, t.rootRecs)
}

// findBtree2 descends the tree to the record for which cmp returns 0; cmp
// returns <0 when the wanted record sorts before rec and >0 after it. It
// returns nil when there is no such record.
func (f *File) findBtree2(t *btree2, cmp func(rec []byte) int) ([]byte, error) {
	if t.root == undefAddr || t.total == 0 {
		return nil, nil
	}
	addr, nrec := t.root, t.rootRecs
	for depth := t.depth; ; depth-- {
		recs, kids, err := f.readBtree2Node(t, addr, depth, nrec)
		if err != nil {
			return nil, err
		}
		i := 0
		for ; i < len(recs); i++ {
			c := cmp(recs[i])
			if c == 0 {
				return recs[i], nil
			}
			if c < 0 {
				break
			}
		}
		if depth == 0 {
			return nil, nil
		}
		addr, nrec = kids[i].addr, kids[i].nrec
	}
}
