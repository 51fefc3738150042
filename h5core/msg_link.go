package h5core

import "encoding/binary"

// LinkType says what a link points at.
type LinkType uint8

// Link types of the link message.
const (
	LinkHard     LinkType = 0
	LinkSoft     LinkType = 1
	LinkExternal LinkType = 64
)

func (t LinkType) String() string {
	switch t {
	case LinkHard:
		return "hard"
	case LinkSoft:
		return "soft"
	case LinkExternal:
		return "external"
	}
	return "user-defined"
}

// Link is one named entry of a group.
type Link struct {
	Name       string
	Type       LinkType
	Addr       uint64 // object header address of a hard link's target
	Target     string // soft link path, or external link object path
	File       string // external link file name
	CreationID int64  // creation order, -1 when not tracked
	UTF8       bool   // name character set is UTF-8
}

// parseLink decodes a link message (0x0006).
func (f *File) parseLink(b []byte, at uint64) (Link, error) {
	d := f.decoder(b, at)
	l := Link{CreationID: -1}
	if v := d.u8(); v != 1 {
		return l, formatErr(at, "link message version %d unknown", v)
	}
	flags := d.u8()
	if flags&(1<<3) != 0 {
		l.Type = LinkType(d.u8())
	}
	if flags&(1<<2) != 0 {
		l.CreationID = int64(d.u64())
	}
	if flags&(1<<4) != 0 {
		l.UTF8 = d.u8() == 1
	}
	n := d.uN(1 << (flags & 3))
	if n == 0 || n > uint64(d.remaining()) {
		return l, formatErr(at, "link name length %d invalid (%d bytes left)", n, d.remaining())
	}
	l.Name = string(d.bytes(int(n)))
	switch l.Type {
	case LinkHard:
		l.Addr = d.offset()
	case LinkSoft:
		m := int(d.u16())
		l.Target = string(d.bytes(m))
	case LinkExternal:
		m := int(d.u16())
		v := f.decoder(d.bytes(m), at)
		v.u8() // version and flags
		l.File = v.cstring()
		l.Target = v.cstring()
		if v.err != nil {
			return l, formatErr(at, "external link %q: malformed target", l.Name)
		}
	default:
		m := int(d.u16())
		d.skip(m)
	}
	if d.err != nil {
		return l, d.err
	}
	return l, nil
}

// linkInfo is a decoded link info message (0x0002).
type linkInfo struct {
	heapAddr      uint64 // fractal heap of dense links, or undef
	nameIndexAddr uint64 // v2 B-tree name index
	orderAddr     uint64 // v2 B-tree creation order index, or undef
	tracked       bool   // creation order tracked
}

func (f *File) parseLinkInfo(b []byte, at uint64) (*linkInfo, error) {
	d := f.decoder(b, at)
	if v := d.u8(); v != 0 {
		return nil, formatErr(at, "link info message version %d unknown", v)
	}
	flags := d.u8()
	li := &linkInfo{orderAddr: undefAddr, tracked: flags&1 != 0}
	if flags&1 != 0 {
		d.u64()
	}
	li.heapAddr = d.offset()
	li.nameIndexAddr = d.offset()
	if flags&2 != 0 {
		li.orderAddr = d.offset()
	}
	if d.err != nil {
		return nil, d.err
	}
	return li, nil
}

// encodeHardLink encodes a link message (version 1) for a hard link name
// to the object header at addr (so-byte address), the inverse of
// parseLink; order is its creation order, or -1 when not tracked.
func encodeHardLink(name string, addr uint64, so int, order int64) []byte {
	b := []byte{1, 0}
	if len(name) > 255 {
		b[1] |= 1
	}
	if order >= 0 {
		b[1] |= 1 << 2
		b = binary.LittleEndian.AppendUint64(b, uint64(order))
	}
	b = appendUintN(b, uint64(len(name)), 1<<(b[1]&3))
	b = append(b, name...)
	return appendUintN(b, addr, so)
}
