package h5core

import "bytes"

// hdf5Signature starts every superblock.
var hdf5Signature = []byte("\x89HDF\r\n\x1a\n")

// superblock holds the fields of superblock versions 0-3 that a reader
// needs.
type superblock struct {
	version     uint8
	baseAddr    uint64
	extAddr     uint64 // superblock extension object header (v2+), or undef
	eofAddr     uint64
	rootAddr    uint64 // root group object header
	groupLeafK  uint16
	groupInnerK uint16
	chunkInnerK uint16
}

// maxUserBlock bounds the search for the signature (user blocks are powers
// of two from 512 bytes).
const maxUserBlock = 1 << 40

// readSuperblock finds the signature at 0, 512, 1024, ... and decodes it.
func (f *File) readSuperblock() error {
	var at int64 = -1
	sig := make([]byte, 8)
	for off := int64(0); off+8 <= f.Size() && off <= maxUserBlock; {
		if _, err := f.r.ReadAt(sig, off); err != nil {
			return &FormatError{File: f.name, Offset: off, What: "read signature: " + err.Error()}
		}
		if bytes.Equal(sig, hdf5Signature) {
			at = off
			break
		}
		if off == 0 {
			off = 512
		} else {
			off *= 2
		}
	}
	if at < 0 {
		return &FormatError{File: f.name, Offset: -1, What: "not an HDF5 file (no superblock signature)"}
	}
	f.base = uint64(at)
	hdr, err := f.readUpTo(0, 256)
	if err != nil {
		return err
	}
	d := newDecoder(hdr, 0, 8, 8)
	d.skip(8)
	sb := &f.sb
	sb.version = d.u8()
	switch sb.version {
	case 0, 1:
		d.u8() // free-space version
		d.u8() // root group symbol table entry version
		d.u8()
		d.u8() // shared header message format version
		f.so, f.sl = int(d.u8()), int(d.u8())
		d.u8()
		sb.groupLeafK = d.u16()
		sb.groupInnerK = d.u16()
		d.u32() // file consistency flags
		sb.chunkInnerK = 32
		if sb.version == 1 {
			sb.chunkInnerK = d.u16()
			d.u16()
		}
		if err := checkSizes(f.so, f.sl); err != nil {
			return err
		}
		d.so, d.sl = f.so, f.sl
		sb.baseAddr = d.offset()
		d.offset() // free-space info address
		sb.eofAddr = d.offset()
		d.offset() // driver info block
		// root group symbol table entry
		d.offset() // link name offset
		sb.rootAddr = d.offset()
		d.u32() // cache type
		d.u32()
		d.skip(16) // scratch pad
		sb.extAddr = undefAddr
	case 2, 3:
		f.so, f.sl = int(d.u8()), int(d.u8())
		if err := checkSizes(f.so, f.sl); err != nil {
			return err
		}
		d.so, d.sl = f.so, f.sl
		d.u8() // file consistency flags
		sb.baseAddr = d.offset()
		sb.extAddr = d.offset()
		sb.eofAddr = d.offset()
		sb.rootAddr = d.offset()
		end := d.pos
		d.u32()
		if d.err == nil {
			if err := verifyChecksum(hdr[:end+4], 0, "superblock"); err != nil {
				return err
			}
		}
		sb.groupLeafK, sb.groupInnerK, sb.chunkInnerK = 4, 16, 32
	default:
		return formatErr(8, "unsupported superblock version %d", sb.version)
	}
	if d.err != nil {
		return d.err
	}
	if sb.rootAddr == undefAddr {
		return formatErr(0, "superblock has no root group address")
	}
	if sb.extAddr != undefAddr {
		if err := f.readSuperblockExtension(); err != nil {
			return err
		}
	}
	return nil
}

func checkSizes(so, sl int) error {
	ok := func(n int) bool { return n == 2 || n == 4 || n == 8 }
	if !ok(so) || !ok(sl) {
		return formatErr(13, "invalid size of offsets %d / lengths %d", so, sl)
	}
	return nil
}

// readSuperblockExtension reads the messages h5core uses from the
// superblock extension (the shared object header message table).
func (f *File) readSuperblockExtension() error {
	oh, err := f.objectHeader(f.sb.extAddr)
	if err != nil {
		return err
	}
	for _, m := range oh.msgs {
		if m.typ == msgSharedMessageTable {
			return f.readSOHMTable(m)
		}
	}
	return nil
}
