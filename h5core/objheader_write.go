package h5core

import (
	"encoding/binary"
	"fmt"
)

// rewriteMessage replaces the data of message m of the object header oh
// with data of the same length. A version 2 header's chunk is rewritten
// whole with its checksum recomputed.
func (tx *Tx) rewriteMessage(oh *objectHeader, m *message, data []byte) error {
	if len(data) != len(m.data) {
		return fmt.Errorf("object header at %#x: message type %#x changes size (%d to %d bytes)", oh.addr, m.typ, len(m.data), len(data))
	}
	if m.flags&msgFlagShared != 0 {
		return fmt.Errorf("object header at %#x: message type %#x is shared: %w", oh.addr, m.typ, ErrUnsupported)
	}
	return tx.patchHeader(oh, m.addr, data)
}

// patchHeader overwrites bytes of the object header oh at addr with b. A
// version 2 header's chunk holding them is rewritten whole with its
// checksum recomputed.
func (tx *Tx) patchHeader(oh *objectHeader, addr uint64, b []byte) error {
	if oh.version == 1 {
		return tx.write(addr, b)
	}
	for i, c := range oh.chunks {
		start, end := c.addr, c.addr+c.size // continuation: OCHK .. checksum
		if i == 0 {
			start, end = oh.addr, c.addr+c.size+4
		}
		if addr < start || addr+uint64(len(b)) > end-4 {
			continue
		}
		blk, err := tx.read(start, end-start)
		if err != nil {
			return err
		}
		copy(blk[addr-start:], b)
		binary.LittleEndian.PutUint32(blk[len(blk)-4:], lookup3(blk[:len(blk)-4], 0))
		return tx.write(start, blk)
	}
	return formatErr(addr, "lies in no chunk of the object header at %#x", oh.addr)
}
