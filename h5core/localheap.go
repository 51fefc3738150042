package h5core

import "bytes"

// localHeap is a local heap ("HEAP"): the names of a symbol-table group.
type localHeap struct {
	data []byte
	addr uint64
}

// maxLocalHeap bounds a local heap's data segment.
const maxLocalHeap = 1 << 28

func (f *File) readLocalHeap(addr uint64) (*localHeap, error) {
	d, err := f.decoderAt(addr, uint64(8+2*f.sl+f.so))
	if err != nil {
		return nil, err
	}
	if !d.signature("HEAP") {
		return nil, d.err
	}
	if v := d.u8(); v != 0 {
		return nil, formatErr(addr, "local heap version %d unknown", v)
	}
	d.skip(3)
	size := d.length()
	d.length() // free list
	dataAddr := d.offset()
	if d.err != nil {
		return nil, d.err
	}
	if size > maxLocalHeap {
		return nil, formatErr(addr, "local heap data segment of %d bytes", size)
	}
	b, err := f.read(dataAddr, size)
	if err != nil {
		return nil, err
	}
	return &localHeap{data: b, addr: dataAddr}, nil
}

// stringAt returns the NUL-terminated string at offset off.
func (h *localHeap) stringAt(off uint64) (string, error) {
	if off >= uint64(len(h.data)) {
		return "", formatErr(h.addr, "local heap offset %d beyond its %d bytes", off, len(h.data))
	}
	s := h.data[off:]
	i := bytes.IndexByte(s, 0)
	if i < 0 {
		return "", formatErr(h.addr+off, "unterminated string in local heap")
	}
	return string(s[:i]), nil
}
