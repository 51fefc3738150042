package h5core

import (
	"errors"
	"fmt"
)

func init() { registerFilter(FilterNBit, "nbit", decodeNBit, nil) }

// Datatype classes in the n-bit filter's client data.
const (
	nbitAtomic   = 1 // integer or floating point: size, order, precision, offset
	nbitArray    = 2 // total size, then the base type's class and description
	nbitCompound = 3 // size, member count, then per member: offset, class, description
	nbitNoop     = 4 // any other class, copied whole: size
	// nbitMaxDepth bounds array and compound nesting; real datatypes nest
	// a few levels.
	nbitMaxDepth = 64
)

var errNBitTruncated = errors.New("n-bit data truncated")

// decodeNBit undoes the n-bit filter (id 5). Client data: cd[0] the number
// of values, cd[1] 1 when the type needed no packing (data stored as is),
// cd[2] the elements in the chunk, then the datatype description from
// cd[3] on (see the nbit* constants). Each atomic value's precision bits,
// found at its bit offset, are packed most significant bit first; no-op
// members are packed as whole bytes. Padding bits decode as zero.
func decodeNBit(cd []uint32, in, out []byte) ([]byte, error) {
	if len(cd) < 2 || uint64(cd[0]) != uint64(len(cd)) {
		return nil, fmt.Errorf("invalid n-bit parameters (%d values)", len(cd))
	}
	if cd[1] != 0 {
		return in, nil
	}
	if len(cd) < 5 {
		return nil, fmt.Errorf("invalid n-bit parameters (%d values)", len(cd))
	}
	n, size := uint64(cd[2]), uint64(cd[4])
	if size == 0 {
		return nil, errors.New("n-bit datatype size 0")
	}
	if n*size > uint64(cap(out)) {
		return nil, fmt.Errorf("%d elements of %d bytes are more than the %d bytes expected", n, size, cap(out))
	}
	out = out[:n*size]
	clear(out)
	d := nbitDecoder{cd: cd, r: msbBitReader{b: in}}
	for i := uint64(0); i < n; i++ {
		elem := out[i*size : (i+1)*size]
		var err error
		switch cd[3] {
		case nbitAtomic:
			if len(cd) < 8 {
				return nil, errors.New("n-bit parameters end inside the datatype")
			}
			err = d.atomic(elem, cd[4], cd[5], cd[6], cd[7])
		case nbitArray:
			idx := 4
			err = d.array(elem, &idx)
		case nbitCompound:
			idx := 4
			err = d.compound(elem, &idx)
		default:
			err = fmt.Errorf("invalid n-bit datatype class %d", cd[3])
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

type nbitDecoder struct {
	cd    []uint32
	r     msbBitReader
	depth int
}

// take returns the next k client data values at *idx and advances it.
func (d *nbitDecoder) take(idx *int, k int) ([]uint32, error) {
	if *idx < 0 || k > len(d.cd)-*idx {
		return nil, errors.New("n-bit parameters end inside the datatype")
	}
	v := d.cd[*idx : *idx+k]
	*idx += k
	return v, nil
}

// atomic unpacks one value of size bytes into dst.
func (d *nbitDecoder) atomic(dst []byte, size, order, precision, offset uint32) error {
	if size == 0 || uint64(size) > uint64(len(dst)) || order > 1 ||
		uint64(precision)+uint64(offset) > 8*uint64(size) {
		return fmt.Errorf("invalid n-bit atomic type (size %d, order %d, precision %d, offset %d)",
			size, order, precision, offset)
	}
	if precision == 0 {
		return nil
	}
	lo, hi := int(offset/8), int((offset+precision-1)/8) // bytes by significance
	end := int(offset + precision)
	for s := hi; s >= lo; s-- {
		first := max(int(offset), 8*s)
		v, ok := d.r.bits(uint(min(end, 8*s+8) - first))
		if !ok {
			return errNBitTruncated
		}
		i := s
		if order == 1 {
			i = int(size) - 1 - s
		}
		dst[i] = byte(v << uint(first-8*s))
	}
	return nil
}

// noop copies len(dst) whole bytes from the bit stream.
func (d *nbitDecoder) noop(dst []byte) error {
	for i := range dst {
		v, ok := d.r.bits(8)
		if !ok {
			return errNBitTruncated
		}
		dst[i] = byte(v)
	}
	return nil
}

// array decodes an array type described at *idx into dst. As in libhdf5,
// *idx is left at the base type's description when the base is an array
// or compound (whose description is re-read for every element).
func (d *nbitDecoder) array(dst []byte, idx *int) error {
	if d.depth++; d.depth > nbitMaxDepth {
		return errors.New("n-bit datatype nested too deeply")
	}
	defer func() { d.depth-- }()
	p, err := d.take(idx, 2)
	if err != nil {
		return err
	}
	total, class := uint64(p[0]), p[1]
	if total > uint64(len(dst)) {
		return fmt.Errorf("n-bit array of %d bytes in %d bytes", total, len(dst))
	}
	dst = dst[:total]
	switch class {
	case nbitAtomic:
		a, err := d.take(idx, 4)
		if err != nil {
			return err
		}
		if a[0] == 0 {
			return errors.New("n-bit array of 0-byte elements")
		}
		es := uint64(a[0])
		for i := uint64(0); i < total/es; i++ {
			if err := d.atomic(dst[i*es:(i+1)*es], a[0], a[1], a[2], a[3]); err != nil {
				return err
			}
		}
		return nil
	case nbitArray, nbitCompound:
		b, err := d.take(idx, 1)
		if err != nil {
			return err
		}
		*idx-- // the base type's size is the first value of its description
		if b[0] == 0 {
			return errors.New("n-bit array of 0-byte elements")
		}
		es, begin := uint64(b[0]), *idx
		for i := uint64(0); i < total/es; i++ {
			elem := dst[i*es : (i+1)*es]
			if class == nbitArray {
				err = d.array(elem, idx)
			} else {
				err = d.compound(elem, idx)
			}
			if err != nil {
				return err
			}
			*idx = begin
		}
		return nil
	case nbitNoop:
		if _, err := d.take(idx, 1); err != nil {
			return err
		}
		return d.noop(dst)
	}
	return fmt.Errorf("invalid n-bit datatype class %d", class)
}

// compound decodes a compound type described at *idx into dst.
func (d *nbitDecoder) compound(dst []byte, idx *int) error {
	if d.depth++; d.depth > nbitMaxDepth {
		return errors.New("n-bit datatype nested too deeply")
	}
	defer func() { d.depth-- }()
	p, err := d.take(idx, 2)
	if err != nil {
		return err
	}
	size, members := uint64(p[0]), p[1]
	if size > uint64(len(dst)) {
		return fmt.Errorf("n-bit compound of %d bytes in %d bytes", size, len(dst))
	}
	dst = dst[:size]
	used := uint64(0)
	for m := uint32(0); m < members; m++ {
		h, err := d.take(idx, 3)
		if err != nil {
			return err
		}
		*idx-- // leave the member's size, the first value of its description
		off, class, msize := uint64(h[0]), h[1], uint64(h[2])
		used += msize
		if msize == 0 || used > size || off+msize > size {
			return fmt.Errorf("n-bit compound member %d (offset %d, %d bytes) overflows the %d-byte compound",
				m, off, msize, size)
		}
		mdst := dst[off : off+msize]
		switch class {
		case nbitAtomic:
			var a []uint32
			if a, err = d.take(idx, 4); err == nil {
				err = d.atomic(mdst, a[0], a[1], a[2], a[3])
			}
		case nbitArray:
			err = d.array(mdst, idx)
		case nbitCompound:
			err = d.compound(mdst, idx)
		case nbitNoop:
			*idx++
			err = d.noop(mdst)
		default:
			err = fmt.Errorf("invalid n-bit datatype class %d", class)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
