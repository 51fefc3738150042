package h5core

// attrMessage is a decoded attribute message (0x000C) before its value is
// interpreted.
type attrMessage struct {
	name  string
	dtype *Datatype
	space *dataspace
	data  []byte
	at    uint64
}

func (f *File) parseAttribute(b []byte, at uint64) (*attrMessage, error) {
	d := f.decoder(b, at)
	version := d.u8()
	flags := d.u8()
	nameSize := int(d.u16())
	dtSize := int(d.u16())
	dsSize := int(d.u16())
	if version == 3 {
		d.u8() // name character set
	}
	pad := func(n int) int { return n }
	switch version {
	case 1:
		pad = func(n int) int { return (n + 7) &^ 7 }
	case 2, 3:
	default:
		return nil, formatErr(at, "attribute message version %d unknown", version)
	}
	if d.err != nil {
		return nil, d.err
	}
	if nameSize == 0 || pad(nameSize) > d.remaining() {
		return nil, formatErr(at, "attribute name size %d invalid", nameSize)
	}
	name := d.bytes(pad(nameSize))[:nameSize]
	for len(name) > 0 && name[len(name)-1] == 0 {
		name = name[:len(name)-1]
	}
	a := &attrMessage{name: string(name), at: at}
	dtAt := d.addr()
	dtBytes := d.bytes(pad(dtSize))
	dsAt := d.addr()
	dsBytes := d.bytes(pad(dsSize))
	if d.err != nil {
		return nil, formatErr(at, "attribute %q: datatype/dataspace sizes exceed message", a.name)
	}
	var err error
	if flags&1 != 0 {
		a.dtype, err = f.sharedDatatype(dtBytes, dtAt)
	} else {
		a.dtype, _, err = parseDatatype(dtBytes, dtAt)
	}
	if err != nil {
		return nil, err
	}
	if flags&2 != 0 {
		return nil, formatErr(at, "attribute %q: shared dataspace not supported", a.name)
	}
	if a.space, err = f.parseDataspace(dsBytes, dsAt); err != nil {
		return nil, err
	}
	a.data = d.b[d.pos:]
	return a, nil
}

// attrInfo is a decoded attribute info message (0x0015).
type attrInfo struct {
	heapAddr      uint64
	nameIndexAddr uint64
	orderAddr     uint64
}

func (f *File) parseAttrInfo(b []byte, at uint64) (*attrInfo, error) {
	d := f.decoder(b, at)
	if v := d.u8(); v != 0 {
		return nil, formatErr(at, "attribute info message version %d unknown", v)
	}
	flags := d.u8()
	if flags&1 != 0 {
		d.u16()
	}
	ai := &attrInfo{heapAddr: d.offset(), nameIndexAddr: d.offset(), orderAddr: undefAddr}
	if flags&2 != 0 {
		ai.orderAddr = d.offset()
	}
	if d.err != nil {
		return nil, d.err
	}
	return ai, nil
}
