package h5core

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// SetAttribute rewrites the value of the existing attribute name of the
// object at path: raw holds its elements in the file's format (as
// Attribute.Raw returns them), as many bytes as the value has. Compact
// attributes (in the object header) and dense ones (in the object's
// fractal heap) are rewritten in place, their blocks' checksums
// recomputed.
func (tx *Tx) SetAttribute(path, name string, raw []byte) error {
	if err := tx.check(); err != nil {
		return err
	}
	f := tx.w.f
	o, err := f.Open(path)
	if err != nil {
		return err
	}
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: attribute %q: %s", tx.w.name, path, name, fmt.Sprintf(format, args...))
	}
	for i := range o.oh.msgs {
		m := &o.oh.msgs[i]
		switch m.typ {
		case msgAttribute:
			if m.flags&msgFlagShared != 0 {
				continue
			}
			am, err := f.parseAttribute(m.data, m.addr)
			if err != nil {
				return o.err(err)
			}
			if am.name != name {
				continue
			}
			at, err := attrValueAt(am, raw, errf)
			if err != nil {
				return err
			}
			b := slices.Clone(m.data)
			copy(b[len(m.data)-len(am.data)+at:], raw)
			return tx.fail(tx.rewriteMessage(o.oh, m, b))
		case msgAttributeInfo:
			ai, err := f.parseAttrInfo(m.data, m.addr)
			if err != nil {
				return o.err(err)
			}
			done, err := tx.setDenseAttribute(ai, name, raw, errf)
			if err != nil || done {
				return err
			}
		}
	}
	return errf("no such attribute (or a shared one, which h5core does not rewrite)")
}

// attrValueAt checks raw against the attribute's value size and returns
// the value's offset in am.data (0).
func attrValueAt(am *attrMessage, raw []byte, errf func(string, ...any) error) (int, error) {
	n, ok := am.space.numElements()
	size := uint64(am.dtype.Size)
	if !ok || n*size > uint64(len(am.data)) {
		return 0, errf("value does not fit its message")
	}
	if uint64(len(raw)) != n*size {
		return 0, errf("new value of %d bytes, the attribute holds %d elements of %d bytes", len(raw), n, size)
	}
	return 0, nil
}

// setDenseAttribute rewrites an attribute kept in dense storage; it
// reports false when the object's dense storage has no such attribute.
func (tx *Tx) setDenseAttribute(ai *attrInfo, name string, raw []byte, errf func(string, ...any) error) (bool, error) {
	f := tx.w.f
	if ai.nameIndexAddr == undefAddr || ai.heapAddr == undefAddr {
		return false, nil
	}
	t, err := f.readBtree2(ai.nameIndexAddr, bt2AttrName, attrNameRecSize)
	if err != nil {
		return false, err
	}
	var id []byte
	var am *attrMessage
	var obj []byte
	err = f.walkBtree2(t, func(rec []byte) error {
		if id != nil || rec[8]&msgFlagShared != 0 {
			return nil
		}
		b, at, err := f.heapObject(ai.heapAddr, rec[:8])
		if err != nil {
			return err
		}
		m, err := f.parseAttribute(b, at)
		if err != nil {
			return err
		}
		if m.name == name {
			id, am, obj = slices.Clone(rec[:8]), m, b
		}
		return nil
	})
	if err != nil || id == nil {
		return false, err
	}
	at, err := attrValueAt(am, raw, errf)
	if err != nil {
		return true, err
	}
	rel := uint64(len(obj)-len(am.data)) + uint64(at) // value offset in the heap object
	h, err := f.fractalHeap(ai.heapAddr)
	if err != nil {
		return true, err
	}
	if h.filters != nil {
		return true, errf("in a filtered fractal heap: %v for writing", ErrUnsupported)
	}
	switch id[0] & 0x30 {
	case heapIDManaged:
		d := f.decoder(id, h.addr)
		d.skip(1)
		off := d.uN(h.offSize)
		loc, err := f.locateDirect(h, off)
		if err != nil {
			return true, err
		}
		blk, err := tx.read(loc.addr, loc.size)
		if err != nil {
			return true, err
		}
		copy(blk[off-loc.off+rel:], raw)
		if h.checksummed {
			sum := blk[h.blockPrefix-4 : h.blockPrefix]
			clear(sum)
			binary.LittleEndian.PutUint32(sum, lookup3(blk, 0))
		}
		return true, tx.fail(tx.write(loc.addr, blk))
	case heapIDHuge:
		_, at, err := f.heapHuge(h, id)
		if err != nil {
			return true, err
		}
		return true, tx.fail(tx.write(at+rel, raw))
	}
	return true, errf("a tiny fractal heap object: %v for writing", ErrUnsupported)
}
