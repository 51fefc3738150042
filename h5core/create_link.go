package h5core

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
)

// Inserting links into groups, the inverse of Object.links and the
// counterpart of DeleteLink: symbol-table groups get a rebuilt B-tree of
// symbol nodes and the name in their local heap; compact groups a link
// message in a null message's space of their object header (or in a new
// continuation chunk it points to); dense groups the link message as a
// huge object of their fractal heap and rebuilt name (and creation
// order) indexes.

// insertLinkCheck returns an error, before anything is written, when a
// link cannot be inserted into the group parent.
func (tx *Tx) insertLinkCheck(parent *Object) error {
	for _, m := range parent.oh.msgs {
		switch m.typ {
		case msgSymbolTable:
			return nil
		case msgLinkInfo:
			li, err := tx.w.f.parseLinkInfo(m.data, m.addr)
			if err != nil {
				return parent.err(err)
			}
			if li.heapAddr != undefAddr {
				return tx.denseLinkCheck(li)
			}
			if parent.oh.version != 2 {
				return fmt.Errorf("%s: link messages in a version 1 object header: %w", parent.Path, ErrUnsupported)
			}
			return nil
		}
	}
	return fmt.Errorf("%s: a group with neither symbol table nor link info: %w", parent.Path, ErrUnsupported)
}

// insertLink links name to the object header at addr in the group parent
// (insertLinkCheck has accepted it).
func (tx *Tx) insertLink(parent *Object, name string, addr uint64) error {
	for i := range parent.oh.msgs {
		m := &parent.oh.msgs[i]
		switch m.typ {
		case msgSymbolTable:
			return tx.insertSymbol(parent, m, name, addr)
		case msgLinkInfo:
			li, err := tx.w.f.parseLinkInfo(m.data, m.addr)
			if err != nil {
				return err
			}
			if li.heapAddr != undefAddr {
				return tx.insertDenseLink(parent.oh, m, li, name, addr)
			}
			return tx.insertCompactLink(parent, m, name, addr)
		}
	}
	return fmt.Errorf("%s: %s: not a group", tx.w.name, parent.Path)
}

// symbolEntry is a symbol table entry as stored, with its name.
type symbolEntry struct {
	name string
	raw  []byte
}

// insertSymbol adds name to an old-style group: the name goes into a new,
// larger copy of the local heap's data segment (the heap header then
// points to it), and the group's B-tree and symbol nodes are rebuilt
// with the new entry in name order; the symbol table message (and, for
// the root group, the superblock's cached copy) points to the new tree.
func (tx *Tx) insertSymbol(parent *Object, m *message, name string, addr uint64) error {
	f := tx.w.f
	d := f.decoder(m.data, m.addr)
	btree, heapAddr := d.offset(), d.offset()
	if d.err != nil {
		return d.err
	}
	heap, err := f.readLocalHeap(heapAddr)
	if err != nil {
		return err
	}
	entSize := 2*f.so + 24
	var ents []symbolEntry
	err = f.walkBtree1(btree, btree1Group, f.sl, func(_ []byte, node uint64) error {
		head, err := tx.read(node, 8)
		if err != nil {
			return err
		}
		n := int(binary.LittleEndian.Uint16(head[6:]))
		b, err := tx.read(node+8, uint64(n*entSize))
		if err != nil {
			return err
		}
		for i := range n {
			e := b[i*entSize : (i+1)*entSize]
			s, err := heap.stringAt(f.decoder(e, node).offset())
			if err != nil {
				return err
			}
			ents = append(ents, symbolEntry{s, e})
		}
		return nil
	})
	if err != nil {
		return parent.err(err)
	}

	// The name, NUL-terminated and padded to 8 bytes, at the end of a new
	// data segment.
	off := uint64(len(heap.data))
	data := append(slices.Clone(heap.data), name...)
	data = append(data, make([]byte, 8-len(data)%8)...)
	dataAddr := tx.alloc(uint64(len(data)))
	if err := tx.write(dataAddr, data); err != nil {
		return err
	}
	hdr, err := tx.read(heapAddr, uint64(8+2*f.sl+f.so))
	if err != nil {
		return err
	}
	putAddr(hdr[8:], uint64(len(data)), f.sl)
	putAddr(hdr[8+2*f.sl:], dataAddr, f.so)
	if err := tx.write(heapAddr, hdr); err != nil {
		return err
	}
	// The heap header before the tree naming the new offset: a crash may
	// keep the old tree with the new segment (the old one with the name
	// appended), never the new tree with the old segment (libhdf5:
	// "unable to offset into local heap data block").
	tx.orderPoint()

	e := make([]byte, entSize)
	putAddr(e, off, f.so)
	putAddr(e[f.so:], addr, f.so)
	ents = append(ents, symbolEntry{name, e})
	slices.SortFunc(ents, func(a, b symbolEntry) int { return bytes.Compare([]byte(a.name), []byte(b.name)) })

	// Symbol nodes of up to 2K entries (K the superblock's group leaf K),
	// allocated at full size as libhdf5 reads them; B-tree keys are heap
	// offsets of names: before a node, its predecessor's last name.
	perNode := 2 * int(f.sb.groupLeafK)
	nodeSize := 8 + perNode*entSize
	key := func(e symbolEntry) []byte {
		k := make([]byte, f.sl)
		putAddr(k, f.decoder(e.raw, 0).offset(), f.sl)
		return k
	}
	var leaves []btree1Entry
	for i := 0; i < len(ents); i += perNode {
		part := ents[i:min(i+perNode, len(ents))]
		b := make([]byte, nodeSize)
		copy(b, "SNOD")
		b[4] = 1
		binary.LittleEndian.PutUint16(b[6:], uint16(len(part)))
		for j, e := range part {
			copy(b[8+j*entSize:], e.raw)
		}
		at := tx.alloc(uint64(nodeSize))
		if err := tx.write(at, b); err != nil {
			return err
		}
		left := make([]byte, f.sl) // the empty name at heap offset 0
		if i > 0 {
			left = key(ents[i-1])
		}
		leaves = append(leaves, btree1Entry{left, at})
	}
	fanout := 2 * int(f.sb.groupInnerK)
	treeSize := 8 + 2*f.so + fanout*f.so + (fanout+1)*f.sl
	root, err := tx.buildBtree1(btree1Group, treeSize, fanout, leaves, key(ents[len(ents)-1]))
	if err != nil {
		return err
	}
	msg := slices.Clone(m.data)
	putAddr(msg, root, f.so)
	if err := tx.rewriteMessage(parent.oh, m, msg); err != nil {
		return err
	}
	return tx.updateRootCache(parent.Addr, root, heapAddr)
}

// updateRootCache rewrites the symbol table addresses a version 0 or 1
// superblock caches in its root group entry (cache type 1), when the
// group at addr is the root.
func (tx *Tx) updateRootCache(addr, btree, heap uint64) error {
	f := tx.w.f
	if addr != f.sb.rootAddr || f.sb.version > 1 {
		return nil
	}
	so := uint64(f.so)
	ent := 24 + 4*so // after the four addresses
	if f.sb.version == 1 {
		ent += 4
	}
	b, err := tx.read(ent+2*so, 8+2*so)
	if err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(b) != 1 {
		return nil
	}
	putAddr(b[8:], btree, f.so)
	putAddr(b[8+so:], heap, f.so)
	return tx.write(ent+2*so, b)
}

// insertCompactLink adds a link message for name to a compact group's
// (version 2) object header: into a null message's space when one is
// large enough, else into a new continuation chunk at the end of file
// that a null message's space (or the place of a message moved there)
// points to. With creation order tracked,
// the link takes the next creation index and the link info message
// counts it.
func (tx *Tx) insertCompactLink(parent *Object, li *message, name string, addr uint64) error {
	f, oh := tx.w.f, parent.oh
	order, err := tx.nextCreationOrder(oh, li)
	if err != nil {
		return err
	}
	link := encodeHardLink(name, addr, f.so, order)
	nils, err := tx.nullMessages(oh)
	if err != nil {
		return parent.err(err)
	}
	for _, n := range nils {
		if n.size >= uint64(len(link)) {
			return tx.patchHeader(oh, n.addr, oh.fillNull(n.size, msgLink, link))
		}
	}
	// A continuation chunk at the end of file: OCHK, the link message
	// (after moved, a message whose place the continuation takes when no
	// null message has room for it), the checksum.
	cont := make([]byte, f.so+f.sl)
	hl := oh.msgHeaderLen()
	spot, moved := nullSpace{}, []byte(nil)
	for _, n := range nils {
		if n.size >= uint64(len(cont)) {
			spot = n
			break
		}
	}
	if spot.addr == 0 {
		for _, m := range oh.msgs {
			if len(m.data) >= len(cont) {
				raw, err := tx.read(m.addr-hl, hl+uint64(len(m.data)))
				if err != nil {
					return err
				}
				spot, moved = nullSpace{m.addr - hl, uint64(len(m.data))}, raw
				break
			}
		}
	}
	if spot.addr == 0 {
		return fmt.Errorf("%s: %s: no room in the group's object header for a continuation: %w", tx.w.name, parent.Path, ErrUnsupported)
	}
	chunk := append([]byte("OCHK"), moved...)
	chunk = append(chunk, oh.fillNull(uint64(len(link)), msgLink, link)...)
	chunk = binary.LittleEndian.AppendUint32(chunk, lookup3(chunk, 0))
	at := tx.alloc(uint64(len(chunk)))
	if err := tx.write(at, chunk); err != nil {
		return err
	}
	putAddr(cont, at, f.so)
	putAddr(cont[f.so:], uint64(len(chunk)), f.sl)
	return tx.patchHeader(oh, spot.addr, oh.fillNull(spot.size, msgContinuation, cont))
}

// nextCreationOrder returns the creation order of a new link of a group
// whose link info message is li, and counts it there; -1 when the group
// does not track creation order.
func (tx *Tx) nextCreationOrder(oh *objectHeader, li *message) (int64, error) {
	if len(li.data) < 10 || li.data[1]&1 == 0 {
		return -1, nil
	}
	next := binary.LittleEndian.Uint64(li.data[2:])
	b := slices.Clone(li.data)
	binary.LittleEndian.PutUint64(b[2:], next+1)
	return int64(next), tx.rewriteMessage(oh, li, b)
}

// nullSpace is a null message of an object header: the address of its
// header and the size of its data.
type nullSpace struct{ addr, size uint64 }

// nullMessages lists the null messages of a version 2 header (the reader
// drops them).
func (tx *Tx) nullMessages(oh *objectHeader) ([]nullSpace, error) {
	hl := oh.msgHeaderLen()
	var out []nullSpace
	for i, c := range oh.chunks {
		start, end := c.addr, c.addr+c.size
		if i > 0 {
			start, end = c.addr+4, c.addr+c.size-4
		}
		b, err := tx.read(start, end-start)
		if err != nil {
			return nil, err
		}
		for p := uint64(0); p+hl <= uint64(len(b)); {
			size := uint64(binary.LittleEndian.Uint16(b[p+1:]))
			if b[p] == msgNil {
				out = append(out, nullSpace{start + p, size})
			}
			p += hl + size
		}
	}
	return out, nil
}

// fillNull returns the bytes of a null message's space of data size n
// (header included) holding message typ with data, followed by a null
// message for the rest, or, when the rest is too short for one, with
// data padded by zeros to fill it.
func (oh *objectHeader) fillNull(n uint64, typ uint16, data []byte) []byte {
	hl := oh.msgHeaderLen()
	out := make([]byte, hl+n)
	size := uint64(len(data))
	if n-size < hl {
		size = n
	}
	out[0] = byte(typ)
	binary.LittleEndian.PutUint16(out[1:], uint16(size))
	copy(out[hl:], data)
	if rest := n - size; rest >= hl {
		at := hl + size
		out[at] = msgNil
		binary.LittleEndian.PutUint16(out[at+1:], uint16(rest-hl))
	}
	return out
}

// Default parameters of a fractal heap's v2 B-tree of huge objects
// (H5HF_HUGE_BT2_* in H5HFhuge.c).
var newHugeBtree = bt2Params{nodeSize: 512, splitPct: 100, mergePcnt: 40}

// heapHeaderSize is the size of an unfiltered fractal heap header
// without its checksum.
func (f *File) heapHeaderSize() int { return 4 + 1 + 2 + 2 + 1 + 4 + 12*f.sl + 3*f.so + 2 + 2 + 2 + 2 }

// denseLinkCheck refuses dense link storage insertDenseLink cannot
// extend: a filtered heap, or heap IDs of another length than the name
// index records hold.
func (tx *Tx) denseLinkCheck(li *linkInfo) error {
	hdr, err := tx.read(li.heapAddr, 9)
	if err != nil {
		return err
	}
	idLen, filterLen := binary.LittleEndian.Uint16(hdr[5:]), binary.LittleEndian.Uint16(hdr[7:])
	if filterLen != 0 || int(idLen) != linkNameRecSize-4 {
		return fmt.Errorf("dense links in a fractal heap with %d-byte IDs and %d bytes of filters: %w", idLen, filterLen, ErrUnsupported)
	}
	return nil
}

// insertDenseLink adds a link to a group's dense storage: the link
// message is stored at the end of file as a huge object of the group's
// fractal heap (the heap's huge object count, size and next ID, and its
// B-tree of huge objects when IDs do not hold the address, updated), and
// its heap ID goes into the name index (by name hash) and the creation
// order index, both rebuilt beside the old ones; the link info message
// then points to them (and counts the creation order).
func (tx *Tx) insertDenseLink(oh *objectHeader, m *message, li *linkInfo, name string, addr uint64) error {
	f := tx.w.f
	so, sl := f.so, f.sl
	if err := tx.denseLinkCheck(li); err != nil {
		return err
	}
	info, err := tx.read(m.addr, uint64(len(m.data)))
	if err != nil {
		return err
	}
	order := int64(-1)
	if li.tracked {
		order = int64(binary.LittleEndian.Uint64(info[2:]))
		binary.LittleEndian.PutUint64(info[2:], uint64(order+1))
	}
	link := encodeHardLink(name, addr, so, order)
	objAddr := tx.alloc(uint64(len(link)))
	if err := tx.write(objAddr, link); err != nil {
		return err
	}

	n := f.heapHeaderSize()
	hdr, err := tx.read(li.heapAddr, uint64(n+4))
	if err != nil {
		return err
	}
	idLen := int(binary.LittleEndian.Uint16(hdr[5:]))
	field := func(at int, w int) uint64 { return f.decoder(hdr[at:at+w], li.heapAddr).uN(w) }
	nextID := field(14, sl) + 1
	putAddr(hdr[14:], nextID, sl)
	id := []byte{0x10} // version 0, huge object
	if idLen-1 >= so+sl {
		id = appendUintN(appendUintN(id, objAddr, so), uint64(len(link)), sl)
		id = append(id, make([]byte, idLen-len(id))...)
	} else {
		id = appendUintN(id, nextID, idLen-1)
		rec := appendUintN(appendUintN(appendUintN(nil, objAddr, so), uint64(len(link)), sl), nextID, sl)
		huge, err := tx.rebuildBtree2(field(14+sl, so), bt2HugeIndirect, so+2*sl, newHugeBtree, func(recs [][]byte) ([][]byte, error) {
			return append(recs, rec), nil // the largest ID yet
		})
		if err != nil {
			return err
		}
		putAddr(hdr[14+sl:], huge, so)
	}
	hugeSize, hugeCount := 14+2*so+6*sl, 14+2*so+7*sl
	putAddr(hdr[hugeSize:], field(hugeSize, sl)+uint64(len(link)), sl)
	putAddr(hdr[hugeCount:], field(hugeCount, sl)+1, sl)
	binary.LittleEndian.PutUint32(hdr[n:], lookup3(hdr[:n], 0))
	if err := tx.write(li.heapAddr, hdr); err != nil {
		return err
	}
	// The heap header (its tree of huge objects) before the link info
	// message that points to indexes naming the new object: libhdf5
	// following the new index through the old heap header crashes.
	tx.orderPoint()

	hash := lookup3([]byte(name), 0)
	nameRec := append(binary.LittleEndian.AppendUint32(nil, hash), id...)
	newName, err := tx.rebuildBtree2(li.nameIndexAddr, bt2LinkName, linkNameRecSize, newBtree2, func(recs [][]byte) ([][]byte, error) {
		i := 0
		for ; i < len(recs); i++ { // records sort by hash, then by name
			h := binary.LittleEndian.Uint32(recs[i])
			if h < hash {
				continue
			}
			if h > hash {
				break
			}
			b, at, err := f.heapObject(li.heapAddr, recs[i][4:])
			if err != nil {
				return nil, err
			}
			l, err := f.parseLink(b, at)
			if err != nil {
				return nil, err
			}
			if l.Name > name {
				break
			}
		}
		return slices.Insert(recs, i, nameRec), nil
	})
	if err != nil {
		return err
	}
	at := 2
	if info[1]&1 != 0 {
		at += 8
	}
	at += so // heap address
	putAddr(info[at:], newName, so)
	if info[1]&2 != 0 && li.orderAddr != undefAddr && order >= 0 {
		orderRec := append(binary.LittleEndian.AppendUint64(nil, uint64(order)), id...)
		newOrder, err := tx.rebuildBtree2(li.orderAddr, bt2LinkOrder, 8+len(id), newBtree2, func(recs [][]byte) ([][]byte, error) {
			return append(recs, orderRec), nil // the largest creation order yet
		})
		if err != nil {
			return err
		}
		putAddr(info[at+so:], newOrder, so)
	}
	return tx.rewriteMessage(oh, m, info)
}
