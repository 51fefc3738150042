package h5core

// Shared message encodings (spec IV.A.2, "Shared Messages").
const (
	sharedInSOHM      = 1 // version 3: stored in the shared message heap
	sharedInObjHeader = 2 // version 3: stored in another object header
)

// sohmIndex is one index of the shared object header message table.
type sohmIndex struct {
	typeFlags uint16 // which header message types the index holds (sohmTypeBit)
	heapAddr  uint64
}

// sohmTypeBit returns the bit of an index's message type flags that
// stands for a header message type: libhdf5 sets bit (message type).
func sohmTypeBit(typ uint16) uint16 {
	if typ >= 16 {
		return 0
	}
	return 1 << typ
}

// readSOHMTable reads the shared message table named by a superblock
// extension message.
func (f *File) readSOHMTable(m message) error {
	d := f.decoder(m.data, m.addr)
	d.u8() // version
	table := d.offset()
	n := int(d.u8())
	if d.err != nil {
		return d.err
	}
	entSize := 1 + 1 + 2 + 4 + 2 + 2 + 2 + 2*f.so
	b, err := f.read(table, uint64(4+n*entSize+4))
	if err != nil {
		return err
	}
	if err := verifyChecksum(b, table, "shared message table"); err != nil {
		return err
	}
	t := f.decoder(b, table)
	if !t.signature("SMTB") {
		return t.err
	}
	for i := 0; i < n; i++ {
		t.u8() // version
		t.u8() // index type
		flags := t.u16()
		t.skip(4 + 2 + 2 + 2)
		t.offset() // index address
		f.sohm = append(f.sohm, sohmIndex{typeFlags: flags, heapAddr: t.offset()})
	}
	return t.err
}

// messageData returns the bytes of a message, following the indirection
// of a shared message to the object header or shared heap that holds it.
func (f *File) messageData(m message) ([]byte, uint64, error) {
	if m.flags&msgFlagShared == 0 {
		return m.data, m.addr, nil
	}
	d := f.decoder(m.data, m.addr)
	version := d.u8()
	kind := d.u8()
	switch version {
	case 1:
		d.skip(6)
		kind = sharedInObjHeader
	case 2:
		kind = sharedInObjHeader
	case 3:
	default:
		return nil, 0, formatErr(m.addr, "shared message version %d unknown", version)
	}
	switch kind {
	case sharedInObjHeader:
		addr := d.offset()
		if d.err != nil {
			return nil, 0, d.err
		}
		oh, err := f.objectHeader(addr)
		if err != nil {
			return nil, 0, err
		}
		t := oh.find(m.typ)
		if t == nil {
			return nil, 0, formatErr(addr, "shared message target lacks a message of type %#x", m.typ)
		}
		if t.flags&msgFlagShared != 0 {
			return nil, 0, formatErr(addr, "shared message points at another shared message")
		}
		return t.data, t.addr, nil
	case sharedInSOHM:
		id := d.bytes(8)
		if d.err != nil {
			return nil, 0, d.err
		}
		for _, ix := range f.sohm {
			if ix.typeFlags&sohmTypeBit(m.typ) != 0 {
				b, err := f.fractalHeapObject(ix.heapAddr, id)
				return b, m.addr, err
			}
		}
		return nil, 0, formatErr(m.addr, "shared message of type %#x but no shared message index for it", m.typ)
	}
	return nil, 0, formatErr(m.addr, "shared message kind %d unknown", kind)
}

// sharedDatatype decodes a datatype given as a shared message encoding (as
// attribute messages carry it when their type is committed).
func (f *File) sharedDatatype(b []byte, at uint64) (*Datatype, error) {
	data, dat, err := f.messageData(message{typ: msgDatatype, flags: msgFlagShared, data: b, addr: at})
	if err != nil {
		return nil, err
	}
	t, _, err := parseDatatype(data, dat)
	return t, err
}
