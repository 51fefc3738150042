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
	return tx.setAttribute(path, name, nil, raw)
}

// SetAttributeShape rewrites the value of an existing attribute with a new
// shape of the same rank whose value takes no more bytes than the old one
// (a reference list losing entries, say): the message keeps its size,
// the bytes past the new value are zeroed.
func (tx *Tx) SetAttributeShape(path, name string, dims []uint64, raw []byte) error {
	return tx.setAttribute(path, name, dims, raw)
}

func (tx *Tx) setAttribute(path, name string, dims []uint64, raw []byte) error {
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
			b := slices.Clone(m.data)
			if err := patchAttribute(b, am, dims, raw, f.sl, errf); err != nil {
				return err
			}
			return tx.fail(tx.rewriteMessage(o.oh, m, b))
		case msgAttributeInfo:
			ai, err := f.parseAttrInfo(m.data, m.addr)
			if err != nil {
				return o.err(err)
			}
			done, err := tx.setDenseAttribute(ai, name, dims, raw, errf)
			if err != nil || done {
				return err
			}
		}
	}
	return errf("no such attribute (or a shared one, which h5core does not rewrite)")
}

// patchAttribute rewrites, in b (the whole attribute message am was
// parsed from), the dataspace's dimensions to dims (unless nil) and the
// value to raw, zeroing what follows it.
func patchAttribute(b []byte, am *attrMessage, dims []uint64, raw []byte, sl int, errf func(string, ...any) error) error {
	space := *am.space
	if dims != nil {
		if space.kind != spaceSimple || len(dims) != len(space.dims) {
			return errf("new shape %v: the attribute has rank %d", dims, len(space.dims))
		}
		space.dims = dims
	}
	n, ok := space.numElements()
	size := uint64(am.dtype.Size)
	if !ok || n*size > uint64(len(am.data)) {
		return errf("a value of shape %v (%d bytes) does not fit the %d bytes of the message", space.dims, n*size, len(am.data))
	}
	if uint64(len(raw)) != n*size {
		return errf("new value of %d bytes, the attribute holds %d elements of %d bytes", len(raw), n, size)
	}
	if dims != nil {
		version := b[0]
		nameSize, dtSize := int(binary.LittleEndian.Uint16(b[2:])), int(binary.LittleEndian.Uint16(b[4:]))
		at := 8
		pad := func(n int) int { return n }
		switch version {
		case 1:
			pad = func(n int) int { return (n + 7) &^ 7 }
		case 3:
			at = 9
		}
		at += pad(nameSize) + pad(dtSize)
		if b[at] == 2 {
			at += 4
		} else {
			at += 8
		}
		for i, d := range dims {
			putAddr(b[at+i*sl:], d, sl)
		}
	}
	val := b[len(b)-len(am.data):]
	clear(val)
	copy(val, raw)
	return nil
}

// setDenseAttribute rewrites an attribute kept in dense storage; it
// reports false when the object's dense storage has no such attribute.
func (tx *Tx) setDenseAttribute(ai *attrInfo, name string, dims []uint64, raw []byte, errf func(string, ...any) error) (bool, error) {
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
	msg := slices.Clone(obj)
	if err := patchAttribute(msg, am, dims, raw, f.sl, errf); err != nil {
		return true, err
	}
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
		copy(blk[off-loc.off:], msg)
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
		return true, tx.fail(tx.write(at, msg))
	}
	return true, errf("a tiny fractal heap object: %v for writing", ErrUnsupported)
}
