package h5core

// globalHeap is one parsed global heap collection ("GCOL").
type globalHeap struct {
	data []byte            // the whole collection as read from the file
	objs map[uint16][2]int // object index -> start and end of its data in data
}

const (
	gheapFirstRead  = 4096     // the minimum collection size libhdf5 writes
	gheapCacheBytes = 32 << 20 // budget of the per-file collection cache
	gheapCacheMax   = 1024     // and its number of entries
)

// align8 rounds n up to a multiple of 8, the heap's alignment.
func align8(n int) int { return (n + 7) &^ 7 }

// globalHeapObject returns the data of object index of the global heap
// collection at addr. The result aliases the cached collection: callers
// must not modify it.
func (f *File) globalHeapObject(addr uint64, index uint32) ([]byte, error) {
	if index == 0 || index > 0xffff {
		return nil, f.errf(addr, "global heap object index %d (want 1..65535)", index)
	}
	h, err := f.globalHeapAt(addr)
	if err != nil {
		return nil, err
	}
	se, ok := h.objs[uint16(index)]
	if !ok {
		return nil, f.errf(addr, "global heap collection has no object %d", index)
	}
	return h.data[se[0]:se[1]:se[1]], nil
}

// globalHeapAt returns the collection at addr, from the cache or the file.
func (f *File) globalHeapAt(addr uint64) (*globalHeap, error) {
	f.mu.Lock()
	h := f.gheaps[addr]
	f.mu.Unlock()
	if h != nil {
		return h, nil
	}
	h, err := f.readGlobalHeap(addr)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.cacheGlobalHeap(addr, h)
	f.mu.Unlock()
	return h, nil
}

// cacheGlobalHeap adds h to f.gheaps, evicting entries to stay within the
// cache budget. f.mu must be held.
func (f *File) cacheGlobalHeap(addr uint64, h *globalHeap) {
	if len(h.data) > gheapCacheBytes {
		return
	}
	total := len(h.data)
	for _, c := range f.gheaps {
		total += len(c.data)
	}
	for a, c := range f.gheaps {
		if total <= gheapCacheBytes && len(f.gheaps) < gheapCacheMax {
			break
		}
		delete(f.gheaps, a)
		total -= len(c.data)
	}
	f.gheaps[addr] = h
}

// readGlobalHeap reads and indexes the collection at addr. The collection
// size is checked against the file's size before it is read.
func (f *File) readGlobalHeap(addr uint64) (*globalHeap, error) {
	b, err := f.readUpTo(addr, gheapFirstRead)
	if err != nil {
		return nil, err
	}
	d := f.decoder(b, addr)
	d.signature("GCOL")
	version := d.u8()
	d.skip(3)
	size := d.length()
	hdr := align8(8 + f.sl)
	switch {
	case d.err != nil:
		return nil, d.err
	case version != 1:
		return nil, f.errf(addr, "global heap collection version %d (want 1)", version)
	case size < uint64(hdr):
		return nil, f.errf(addr, "global heap collection size %d is below its %d-byte header", size, hdr)
	case size > uint64(len(b)):
		if b, err = f.read(addr, size); err != nil {
			return nil, err
		}
	}
	b = b[:size]
	h := &globalHeap{data: b, objs: map[uint16][2]int{}}
	objHdr := align8(8 + f.sl)
	for p := hdr; p+objHdr <= len(b); {
		d := f.decoder(b[p:p+objHdr], addr+uint64(p))
		index := d.u16()
		d.skip(6) // reference count, reserved
		n := d.length()
		left := uint64(len(b) - p - objHdr)
		switch {
		case d.err != nil:
			return nil, d.err
		case index == 0: // free space; its size counts its header
			if n < uint64(objHdr) || n > left+uint64(objHdr) {
				return nil, f.errf(addr+uint64(p), "global heap free space of %d bytes (%d left in the collection)", n, left+uint64(objHdr))
			}
			p += int(n)
			continue
		case n > left:
			return nil, f.errf(addr+uint64(p), "global heap object %d of %d bytes overruns its collection (%d bytes left)", index, n, left)
		}
		if _, dup := h.objs[index]; dup {
			return nil, f.errf(addr+uint64(p), "global heap object %d appears twice", index)
		}
		start := p + objHdr
		h.objs[index] = [2]int{start, start + int(n)}
		p = start + align8(int(n))
	}
	return h, nil
}
