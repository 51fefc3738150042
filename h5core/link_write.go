package h5core

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// DeleteLink removes the link name from the group at path, in every kind
// of group storage: a link message (compact) becomes a null message; a
// symbol table entry (old-style groups) leaves its symbol node; a dense
// link's records leave the name (and creation order) index, rebuilt
// beside the old one. The object linked to is not freed (as h5repack
// would): only the link goes.
func (tx *Tx) DeleteLink(path, name string) error {
	if err := tx.check(); err != nil {
		return err
	}
	f := tx.w.f
	o, err := f.Open(path)
	if err != nil {
		return err
	}
	for i := range o.oh.msgs {
		m := &o.oh.msgs[i]
		switch m.typ {
		case msgLink:
			l, err := f.parseLink(m.data, m.addr)
			if err != nil {
				return o.err(err)
			}
			if l.Name == name {
				return tx.fail(tx.nullMessage(o.oh, m))
			}
		case msgSymbolTable:
			done, err := tx.deleteSymbol(m, name)
			if err != nil || done {
				return tx.fail(err)
			}
		case msgLinkInfo:
			done, err := tx.deleteDenseLink(o.oh, m, name)
			if err != nil || done {
				return tx.fail(err)
			}
		}
	}
	return fmt.Errorf("%s: %s: link %q: %w", tx.w.name, path, name, ErrNotFound)
}

// nullMessage turns message m of oh into a null message (type 0) of the
// same size, which every reader skips.
func (tx *Tx) nullMessage(oh *objectHeader, m *message) error {
	if oh.version == 1 {
		return tx.write(m.addr-8, []byte{0, 0})
	}
	return tx.patchHeader(oh, m.addr-oh.msgHeaderLen(), []byte{msgNil})
}

// deleteSymbol removes name from an old-style group's symbol nodes,
// reporting whether it was there.
func (tx *Tx) deleteSymbol(m *message, name string) (bool, error) {
	f := tx.w.f
	d := f.decoder(m.data, m.addr)
	btree, heapAddr := d.offset(), d.offset()
	if d.err != nil {
		return false, d.err
	}
	heap, err := f.readLocalHeap(heapAddr)
	if err != nil {
		return false, err
	}
	entSize := uint64(2*f.so + 24)
	done := false
	err = f.walkBtree1(btree, btree1Group, f.sl, func(_ []byte, node uint64) error {
		if done {
			return nil
		}
		head, err := tx.read(node, 8)
		if err != nil {
			return err
		}
		n := uint64(binary.LittleEndian.Uint16(head[6:]))
		b, err := tx.read(node, 8+n*entSize)
		if err != nil {
			return err
		}
		for i := uint64(0); i < n; i++ {
			e := b[8+i*entSize:]
			off := f.decoder(e, node).offset()
			s, err := heap.stringAt(off)
			if err != nil {
				return err
			}
			if s != name {
				continue
			}
			copy(b[8+i*entSize:], b[8+(i+1)*entSize:])
			clear(b[8+(n-1)*entSize:])
			binary.LittleEndian.PutUint16(b[6:], uint16(n-1))
			done = true
			return tx.write(node, b)
		}
		return nil
	})
	return done, err
}

// deleteDenseLink removes name from a group's dense link storage: the
// name index (and the creation order index) are rebuilt without its
// records and the link info message points to the new trees.
func (tx *Tx) deleteDenseLink(oh *objectHeader, m *message, name string) (bool, error) {
	f := tx.w.f
	li, err := f.parseLinkInfo(m.data, m.addr)
	if err != nil || li.heapAddr == undefAddr || li.nameIndexAddr == undefAddr {
		return false, err
	}
	var id []byte
	newName, err := tx.rebuildWithout(li.nameIndexAddr, bt2LinkName, linkNameRecSize, func(rec []byte) (bool, error) {
		if id != nil {
			return false, nil
		}
		b, at, err := f.heapObject(li.heapAddr, rec[4:11])
		if err != nil {
			return false, err
		}
		l, err := f.parseLink(b, at)
		if err != nil || l.Name != name {
			return false, err
		}
		id = slices.Clone(rec[4:11])
		return true, nil
	})
	if err != nil || id == nil {
		return false, err
	}
	newOrder := li.orderAddr
	if li.orderAddr != undefAddr {
		newOrder, err = tx.rebuildWithout(li.orderAddr, bt2LinkOrder, 8+7, func(rec []byte) (bool, error) {
			return slices.Equal(rec[8:15], id), nil
		})
		if err != nil {
			return true, err
		}
	}
	b := slices.Clone(m.data)
	at := 2
	if b[1]&1 != 0 {
		at += 8
	}
	at += f.so // heap address
	putAddr(b[at:], newName, f.so)
	if b[1]&2 != 0 {
		putAddr(b[at+f.so:], newOrder, f.so)
	}
	return true, tx.rewriteMessage(oh, m, b)
}

// rebuildWithout writes a copy of the v2 B-tree at addr without the
// records drop selects and returns the new header's address.
func (tx *Tx) rebuildWithout(addr uint64, typ uint8, recSize int, drop func(rec []byte) (bool, error)) (uint64, error) {
	return tx.rebuildBtree2(addr, typ, recSize, bt2Params{}, func(recs [][]byte) ([][]byte, error) {
		kept := recs[:0]
		for _, rec := range recs {
			gone, err := drop(rec)
			if err != nil {
				return nil, err
			}
			if !gone {
				kept = append(kept, rec)
			}
		}
		return kept, nil
	})
}

// rebuildBtree2 writes a copy of the v2 B-tree at addr (undefAddr: an
// empty tree of parameters p) with its records, in order, changed by
// edit, and returns the new header's address.
func (tx *Tx) rebuildBtree2(addr uint64, typ uint8, recSize int, p bt2Params, edit func(recs [][]byte) ([][]byte, error)) (uint64, error) {
	f := tx.w.f
	var recs [][]byte
	if addr != undefAddr {
		t, err := f.readBtree2(addr, typ, recSize)
		if err != nil {
			return 0, err
		}
		err = f.walkBtree2(t, func(rec []byte) error {
			recs = append(recs, slices.Clone(rec))
			return nil
		})
		if err != nil {
			return 0, err
		}
		b, err := tx.read(addr+6, 10)
		if err != nil {
			return 0, err
		}
		p = bt2Params{binary.LittleEndian.Uint32(b), b[8], b[9]}
	}
	recs, err := edit(recs)
	if err != nil {
		return 0, err
	}
	return tx.buildBtree2(typ, recSize, p, recs, 0, 0)
}
