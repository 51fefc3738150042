package h5core

// Record sizes of the name indexes of dense storage.
const (
	linkNameRecSize = 4 + 7         // hash, heap ID
	attrNameRecSize = 8 + 1 + 4 + 4 // heap ID, message flags, creation order, hash
)

// denseLinks lists a group's links kept in dense storage: link messages
// in a fractal heap, found through the v2 B-tree that indexes their names
// (record type 5).
func (f *File) denseLinks(li *linkInfo) ([]Link, error) {
	if li.nameIndexAddr == undefAddr {
		return nil, nil
	}
	t, err := f.readBtree2(li.nameIndexAddr, bt2LinkName, linkNameRecSize)
	if err != nil {
		return nil, err
	}
	var links []Link
	err = f.walkBtree2(t, func(rec []byte) error {
		b, at, err := f.heapObject(li.heapAddr, rec[4:11])
		if err != nil {
			return err
		}
		l, err := f.parseLink(b, at)
		if err != nil {
			return err
		}
		links = append(links, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return links, nil
}

// denseAttributes lists an object's attribute messages kept in dense
// storage, found through the v2 B-tree that indexes their names (record
// type 8). A record flagged shared names a message in the file's shared
// message heap rather than in the object's attribute heap.
func (f *File) denseAttributes(ai *attrInfo) ([]*attrMessage, error) {
	if ai.nameIndexAddr == undefAddr {
		return nil, nil
	}
	t, err := f.readBtree2(ai.nameIndexAddr, bt2AttrName, attrNameRecSize)
	if err != nil {
		return nil, err
	}
	var msgs []*attrMessage
	err = f.walkBtree2(t, func(rec []byte) error {
		id, flags := rec[:8], rec[8]
		var b []byte
		var at uint64
		var err error
		if flags&msgFlagShared != 0 {
			enc := append([]byte{3, sharedInSOHM}, id...)
			b, at, err = f.messageData(message{typ: msgAttribute, flags: msgFlagShared, data: enc, addr: t.addr})
		} else {
			b, at, err = f.heapObject(ai.heapAddr, id)
		}
		if err != nil {
			return err
		}
		m, err := f.parseAttribute(b, at)
		if err != nil {
			return err
		}
		msgs = append(msgs, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return msgs, nil
}
