package h5core

import "fmt"

// Header message types (spec section IV.A.2).
const (
	msgNil                = 0x0000
	msgDataspace          = 0x0001
	msgLinkInfo           = 0x0002
	msgDatatype           = 0x0003
	msgFillValueOld       = 0x0004
	msgFillValue          = 0x0005
	msgLink               = 0x0006
	msgExternalFiles      = 0x0007
	msgLayout             = 0x0008
	msgBogus              = 0x0009
	msgGroupInfo          = 0x000A
	msgPipeline           = 0x000B
	msgAttribute          = 0x000C
	msgComment            = 0x000D
	msgModTimeOld         = 0x000E
	msgSharedMessageTable = 0x000F
	msgContinuation       = 0x0010
	msgSymbolTable        = 0x0011
	msgModTime            = 0x0012
	msgBtreeK             = 0x0013
	msgDriverInfo         = 0x0014
	msgAttributeInfo      = 0x0015
	msgRefCount           = 0x0016
	msgFileSpaceInfo      = 0x0017
	msgSectionPipeline    = 0x0019
)

// Header message flags.
const (
	msgFlagConstant = 1 << 0
	msgFlagShared   = 1 << 1
)

// Bounds on hostile object headers.
const (
	maxHeaderChunks   = 1 << 12
	maxHeaderMessages = 1 << 16
)

// message is one raw header message.
type message struct {
	typ   uint16
	flags uint8
	data  []byte
	addr  uint64 // file address of data
}

// objectHeader is a decoded object header: its messages in order.
type objectHeader struct {
	addr    uint64
	version uint8
	v2flags uint8
	msgs    []message
	chunks  []headerChunk // the message chunks in the order read (for writers)
}

// objectHeader reads (and caches) the object header at addr.
func (f *File) objectHeader(addr uint64) (*objectHeader, error) {
	f.mu.Lock()
	oh := f.headers[addr]
	f.mu.Unlock()
	if oh != nil {
		return oh, nil
	}
	oh, err := f.readObjectHeader(addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if len(f.headers) > 1<<16 {
		clear(f.headers)
	}
	f.headers[addr] = oh
	f.mu.Unlock()
	return oh, nil
}

type headerChunk struct{ addr, size uint64 }

func (f *File) readObjectHeader(addr uint64) (*objectHeader, error) {
	prefix, err := f.readUpTo(addr, 4)
	if err != nil {
		return nil, err
	}
	oh := &objectHeader{addr: addr}
	var pending []headerChunk
	if string(prefix) == "OHDR" {
		oh.version = 2
		first, err := f.readV2Prefix(addr, oh)
		if err != nil {
			return nil, err
		}
		pending = append(pending, first)
	} else {
		oh.version = 1
		d, err := f.decoderAt(addr, 16)
		if err != nil {
			return nil, err
		}
		if v := d.u8(); v != 1 {
			return nil, formatErr(addr, "object header version %d, expected 1 (or an OHDR signature)", v)
		}
		d.u8()
		d.u16() // number of messages
		d.u32() // reference count
		size := uint64(d.u32())
		pending = append(pending, headerChunk{addr + 16, size})
	}
	seen := map[uint64]bool{}
	for i := 0; len(pending) > 0; i++ {
		if i >= maxHeaderChunks {
			return nil, formatErr(addr, "object header has more than %d continuation chunks", maxHeaderChunks)
		}
		c := pending[0]
		pending = pending[1:]
		if seen[c.addr] {
			return nil, formatErr(c.addr, "object header continuation loops back to %#x", c.addr)
		}
		seen[c.addr] = true
		oh.chunks = append(oh.chunks, c)
		more, err := f.readHeaderChunk(oh, c, i == 0)
		if err != nil {
			return nil, err
		}
		pending = append(pending, more...)
		if len(oh.msgs) > maxHeaderMessages {
			return nil, formatErr(addr, "object header has more than %d messages", maxHeaderMessages)
		}
	}
	return oh, nil
}

// readV2Prefix decodes the fixed part of a version 2 object header and
// returns the first chunk's message area.
func (f *File) readV2Prefix(addr uint64, oh *objectHeader) (headerChunk, error) {
	b, err := f.readUpTo(addr, 4+1+1+16+4+8)
	if err != nil {
		return headerChunk{}, err
	}
	d := f.decoder(b, addr)
	d.skip(4)
	if v := d.u8(); v != 2 {
		return headerChunk{}, formatErr(addr+4, "object header version %d, expected 2", v)
	}
	flags := d.u8()
	if flags&(1<<5) != 0 {
		d.skip(16) // access, modification, change, birth times
	}
	if flags&(1<<4) != 0 {
		d.skip(4) // max compact / min dense attributes
	}
	size := d.uN(1 << (flags & 3))
	if d.err != nil {
		return headerChunk{}, d.err
	}
	oh.v2flags = flags
	return headerChunk{addr + uint64(d.pos), size}, nil
}

// readHeaderChunk decodes the messages of one header chunk and returns the
// continuation chunks it names.
func (f *File) readHeaderChunk(oh *objectHeader, c headerChunk, first bool) ([]headerChunk, error) {
	var start uint64 = c.addr
	var body []byte
	if oh.version == 2 {
		if first {
			// checksum covers the prefix too
			prefixLen := c.addr - oh.addr
			blk, err := f.read(oh.addr, prefixLen+c.size+4)
			if err != nil {
				return nil, err
			}
			if err := verifyChecksum(blk, oh.addr, "object header"); err != nil {
				return nil, err
			}
			body = blk[prefixLen : prefixLen+c.size]
		} else {
			blk, err := f.read(c.addr, c.size)
			if err != nil {
				return nil, err
			}
			if c.size < 8 || string(blk[:4]) != "OCHK" {
				return nil, formatErr(c.addr, "object header continuation block lacks its OCHK signature")
			}
			if err := verifyChecksum(blk, c.addr, "object header continuation block"); err != nil {
				return nil, err
			}
			body = blk[4 : len(blk)-4]
			start += 4
		}
	} else {
		blk, err := f.read(c.addr, c.size)
		if err != nil {
			return nil, err
		}
		body = blk
	}
	d := f.decoder(body, start)
	var conts []headerChunk
	hdrLen := int(oh.msgHeaderLen())
	for d.remaining() >= hdrLen {
		var m message
		var size int
		if oh.version == 2 {
			m.typ = uint16(d.u8())
			size = int(d.u16())
			m.flags = d.u8()
			if oh.v2flags&(1<<2) != 0 {
				d.u16() // creation order
			}
		} else {
			m.typ = d.u16()
			size = int(d.u16())
			m.flags = d.u8()
			d.skip(3)
		}
		m.addr = d.addr()
		m.data = d.bytes(size)
		if d.err != nil {
			return nil, fmt.Errorf("object header at %#x: message type %#x: %w", oh.addr, m.typ, d.err)
		}
		if oh.version == 1 {
			d.align(8)
			d.err = nil // trailing alignment may run past a short final chunk
		}
		if m.typ == msgContinuation {
			cd := f.decoder(m.data, m.addr)
			a, n := cd.offset(), cd.length()
			if cd.err != nil {
				return nil, cd.err
			}
			conts = append(conts, headerChunk{a, n})
			continue
		}
		if m.typ == msgNil {
			continue
		}
		oh.msgs = append(oh.msgs, m)
	}
	return conts, nil
}

// msgHeaderLen is the size of a message's header (type, size, flags):
// 8 bytes in version 1, 4 or (with creation order) 6 in version 2.
func (oh *objectHeader) msgHeaderLen() uint64 {
	switch {
	case oh.version == 1:
		return 8
	case oh.v2flags&(1<<2) != 0:
		return 6
	}
	return 4
}

// find returns the first message of type typ, or nil.
func (oh *objectHeader) find(typ uint16) *message {
	for i := range oh.msgs {
		if oh.msgs[i].typ == typ {
			return &oh.msgs[i]
		}
	}
	return nil
}
