package h5core

import (
	"encoding/binary"
	"fmt"
)

// The writer of global heap collections, the mirror of globalheap.go.
// Variable-length elements written by a transaction point at objects of
// new collections at the end of the file, laid out as libhdf5 lays them
// out (H5HG): a collection of at least gheapFirstRead bytes, or of its
// first object and header when that is larger; objects numbered from 1,
// each an 8-byte aligned header and data, in insertion order; the free
// space left as object 0 (without a header when fewer bytes remain than
// a header needs). A collection that is the last thing allocated grows,
// as libhdf5's does at the end of the file, by its own size or by what
// the object lacks, up to gheapMaxSize. Collections already in the file
// are never changed: libhdf5 rewrites them when it deletes objects, and a
// collection written by an earlier barrier stays as the disk has it.

// gheapMaxSize bounds the growth of a collection in place (libhdf5's
// H5HG_MAXSIZE); a larger object still gets a collection of its size.
const gheapMaxSize = 65536

// gheapMaxIndex is the largest object index (16 bits).
const gheapMaxIndex = 0xffff

// heapWriter is the collection a transaction is filling.
type heapWriter struct {
	addr  uint64
	buf   []byte // the whole collection
	free  int    // start of the free space
	next  uint16 // index of the next object
	dirty int    // bytes from here on are not on the disk yet
}

// NewVlen stores each of seqs as a new object in a global heap
// collection at the end of the file and returns the variable-length
// elements of type t (a vlen string or sequence) that point at them:
// for each, the 4-byte item count and the heap id (collection address,
// object index). A string's items are its bytes; a sequence's must be
// whole elements of its base type. Empty sequences get an object of no
// bytes, as libhdf5 stores them. The objects reach the disk now (they are
// past the end of file); the elements are the caller's to write.
func (tx *Tx) NewVlen(t *Datatype, seqs [][]byte) ([]byte, error) {
	if err := tx.check(); err != nil {
		return nil, err
	}
	f := tx.w.f
	size := 4 + f.so + 4
	if t.Class != ClassVlen || t.Size != size || t.Base == nil || t.Base.Size <= 0 {
		return nil, fmt.Errorf("%s: %s is not a variable-length type of %d-byte elements", tx.w.name, t, size)
	}
	out := make([]byte, 0, len(seqs)*size)
	for i, s := range seqs {
		if len(s)%t.Base.Size != 0 || uint64(len(s)/t.Base.Size) > 0xffffffff {
			return nil, fmt.Errorf("%s: variable-length value %d of %d bytes is not a count of %d-byte items that fits 32 bits", tx.w.name, i, len(s), t.Base.Size)
		}
	}
	for _, s := range seqs {
		addr, index, err := tx.heapInsert(s)
		if err != nil {
			return nil, tx.fail(err)
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(len(s)/t.Base.Size))
		out = appendUintN(out, addr, f.so)
		out = binary.LittleEndian.AppendUint32(out, index)
	}
	if tx.heap != nil {
		if err := tx.writeHeapSpan(tx.heap); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// heapInsert adds one object to the open collection, growing it or
// starting a new one when it does not fit, and returns its heap id.
func (tx *Tx) heapInsert(data []byte) (uint64, uint32, error) {
	f := tx.w.f
	hdr, objHdr := align8(8+f.sl), align8(8+f.sl)
	need := objHdr + align8(len(data))
	h := tx.heap
	if h != nil && (h.addr < tx.sbEOA || h.next == 0) {
		h = nil // written by a barrier (or full): left as the disk has it
	}
	if h != nil && len(h.buf)-h.free < need && h.addr+uint64(len(h.buf)) == tx.eoa {
		grow := max(len(h.buf), need-(len(h.buf)-h.free))
		if len(h.buf)+grow <= gheapMaxSize {
			tx.alloc(uint64(grow))
			h.buf = append(h.buf, make([]byte, grow)...)
			h.dirty = 0 // the collection's size changes
		}
	}
	if h == nil || len(h.buf)-h.free < need {
		if h != nil {
			if err := tx.writeHeapSpan(h); err != nil {
				return 0, 0, err
			}
		}
		n := max(gheapFirstRead, hdr+need)
		h = &heapWriter{addr: tx.alloc(uint64(n)), buf: make([]byte, n), free: hdr, next: 1}
		copy(h.buf, "GCOL")
		h.buf[4] = 1 // version
		tx.heap = h
	}
	putAddr(h.buf[8:], uint64(len(h.buf)), f.sl)
	index := h.next
	p := h.buf[h.free:]
	binary.LittleEndian.PutUint16(p, index)
	clear(p[2:8]) // reference count, reserved
	putAddr(p[8:], uint64(len(data)), f.sl)
	copy(p[objHdr:], data)
	clear(p[objHdr+len(data) : need])
	h.free += need
	if rest := len(h.buf) - h.free; rest >= objHdr {
		p := h.buf[h.free:]
		clear(p[:8])
		putAddr(p[8:], uint64(rest), f.sl)
	}
	h.dirty = min(h.dirty, h.free-need)
	if h.next == gheapMaxIndex {
		h.next = 0 // full: the next object starts a new collection
	} else {
		h.next++
	}
	return h.addr, uint32(index), nil
}

// writeHeapSpan writes what of collection h is not on the disk yet.
func (tx *Tx) writeHeapSpan(h *heapWriter) error {
	if h.dirty >= len(h.buf) {
		return nil
	}
	if err := tx.write(h.addr+uint64(h.dirty), h.buf[h.dirty:]); err != nil {
		return err
	}
	h.dirty = len(h.buf)
	return nil
}
