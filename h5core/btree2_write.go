package h5core

import "encoding/binary"

// newBtree2Writer returns the writer of a v2 B-tree chunk index: records
// are read whole and the tree rebuilt beside the old one (new header and
// nodes), the layout message then pointing to the new header.
func (tx *Tx) newBtree2Writer(d *dsWriter) (chunkIndexWriter, error) {
	f := tx.w.f
	l, g := d.ds.layout, d.ds.geom
	w := &tableWriter{d: d}
	t, err := f.newBtree2ChunkIndex(l, g)
	if err != nil {
		return nil, err
	}
	if err := w.load(t.(*chunkTable)); err != nil {
		return nil, err
	}
	p := l.bt2
	if l.addr != undefAddr { // the parameters the existing tree was made with
		b, err := tx.read(l.addr+6, 4+2+2+1+1)
		if err != nil {
			return nil, err
		}
		p = bt2Params{binary.LittleEndian.Uint32(b), b[8], b[9]}
	}
	if p.nodeSize == 0 { // structured-chunk layouts may store 0 (format doc §3.1)
		p.nodeSize = 2048
	}
	w.build = func(locs []chunkLoc) (uint64, error) { return tx.buildBtree2Chunks(l, g, p, locs) }
	return w, nil
}

// buildBtree2Chunks writes a v2 B-tree of chunk records (type 10, or 11
// when filtered) holding locs, sorted, and returns its header's address.
func (tx *Tx) buildBtree2Chunks(l *layout, g *chunkGeom, p bt2Params, locs []chunkLoc) (uint64, error) {
	f := tx.w.f
	so := f.so
	rank := len(g.chunk)
	typ, sizeWidth := uint8(bt2Chunk), 0
	recSize := so + 8*rank
	if g.filtered {
		typ, sizeWidth = bt2ChunkFiltered, f.filteredSizeWidth(l, g)
		recSize += sizeWidth + 4
	}
	var stcRec func(b []byte, loc chunkLoc)
	if l.stc != nil {
		typ, recSize, stcRec = stcBtreeRecords(l.stc, g.filtered, so, rank)
	}
	recs := make([][]byte, len(locs))
	for i, loc := range locs {
		b := make([]byte, recSize)
		recs[i] = b
		if stcRec != nil {
			stcRec(b, loc)
			continue
		}
		putAddr(b, loc.addr, so)
		at := so
		if g.filtered {
			putAddr(b[at:], loc.size, sizeWidth)
			binary.LittleEndian.PutUint32(b[at+sizeWidth:], loc.mask)
			at += sizeWidth + 4
		}
		for i, s := range loc.scaled {
			binary.LittleEndian.PutUint64(b[at+8*i:], s)
		}
	}
	hv, nv := btree2Versions(l)
	return tx.buildBtree2(typ, recSize, p, recs, hv, nv)
}

// buildBtree2 writes a v2 B-tree of the given record type holding recs
// (encoded, in key order) with the given header and node versions, and
// returns its header's address. The tree has
// the least depth that holds them, records spread evenly; every node is
// allocated at the full node size, as libhdf5 reads it.
func (tx *Tx) buildBtree2(typ uint8, recSize int, p bt2Params, recs [][]byte, hv, nv uint8) (uint64, error) {
	f := tx.w.f
	so, sl := f.so, f.sl
	t := &btree2{nodeSize: uint64(p.nodeSize), recSize: recSize, typ: typ}
	n := uint64(len(recs))
	// capacity[d]: records a subtree of depth d holds.
	var capacity []uint64
	for t.depth = 0; ; t.depth++ {
		if err := t.geometry(so); err != nil {
			return 0, err
		}
		c := t.maxRecs[0]
		capacity = []uint64{c}
		for d := 1; d <= t.depth; d++ {
			c = satAdd(satMul(t.maxRecs[d]+1, c), t.maxRecs[d])
			capacity = append(capacity, c)
		}
		if c >= n {
			break
		}
	}
	var build func(locs [][]byte, depth int) (uint64, error)
	build = func(locs [][]byte, depth int) (uint64, error) {
		b := make([]byte, t.nodeSize)
		sig := "BTLF"
		if depth > 0 {
			sig = "BTIN"
		}
		copy(b, sig)
		b[4], b[5] = nv, typ
		pos := bt2Prefix
		if depth == 0 {
			for _, loc := range locs {
				pos += copy(b[pos:], loc)
			}
		} else {
			m := uint64(len(locs))
			below := capacity[depth-1]
			k := (m + 1 + below) / (below + 1) // children
			per, extra := (m-(k-1))/k, (m-(k-1))%k
			type child struct{ addr, nrec, total uint64 }
			kids := make([]child, 0, k)
			var seps [][]byte
			i := uint64(0)
			for c := uint64(0); c < k; c++ {
				cnt := per
				if c < extra {
					cnt++
				}
				a, err := build(locs[i:i+cnt], depth-1)
				if err != nil {
					return 0, err
				}
				nrec := cnt
				if depth-1 > 0 {
					nrec = (cnt+1+capacity[depth-2])/(capacity[depth-2]+1) - 1
				}
				kids = append(kids, child{a, nrec, cnt})
				i += cnt
				if c+1 < k {
					seps = append(seps, locs[i])
					i++
				}
			}
			for _, s := range seps {
				pos += copy(b[pos:], s)
			}
			for _, c := range kids {
				putAddr(b[pos:], c.addr, so)
				pos += so
				putAddr(b[pos:], c.nrec, t.nrecWidth)
				pos += t.nrecWidth
				if w := t.totalWidth[depth-1]; w > 0 {
					putAddr(b[pos:], c.total, w)
					pos += w
				}
			}
		}
		binary.LittleEndian.PutUint32(b[pos:], lookup3(b[:pos], 0))
		addr := tx.alloc(t.nodeSize)
		return addr, tx.write(addr, b)
	}
	root := undefAddr
	if n > 0 {
		var err error
		if root, err = build(recs, t.depth); err != nil {
			return 0, err
		}
	}
	rootRecs := n
	if t.depth > 0 {
		rootRecs = (n+1+capacity[t.depth-1])/(capacity[t.depth-1]+1) - 1
	}
	hdr := make([]byte, bt2Overhead+4+2+2+1+1+so+2+sl)
	copy(hdr, "BTHD")
	hdr[4], hdr[5] = hv, typ
	binary.LittleEndian.PutUint32(hdr[6:], p.nodeSize)
	binary.LittleEndian.PutUint16(hdr[10:], uint16(recSize))
	binary.LittleEndian.PutUint16(hdr[12:], uint16(t.depth))
	hdr[14], hdr[15] = p.splitPct, p.mergePcnt
	putAddr(hdr[16:], root, so)
	binary.LittleEndian.PutUint16(hdr[16+so:], uint16(rootRecs))
	putAddr(hdr[18+so:], n, sl)
	addr := tx.alloc(uint64(len(hdr)))
	return addr, tx.writeBlock(addr, hdr)
}
