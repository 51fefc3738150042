package h5core

import (
	"errors"
	"fmt"
)

func init() { registerFilter(FilterNBit, "nbit", decodeNBit, encodeNBit) }

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

// nbitParams checks the n-bit filter's client data: cd[0] the number of
// values, cd[1] 1 when the type needed no packing (data stored as is),
// cd[2] the elements in the chunk, then the datatype description from
// cd[3] on (see the nbit* constants). It returns the element count and
// size, or asIs when the chunk is stored as it is.
func nbitParams(cd []uint32) (n, size uint64, asIs bool, err error) {
	if len(cd) < 2 || uint64(cd[0]) != uint64(len(cd)) {
		return 0, 0, false, fmt.Errorf("invalid n-bit parameters (%d values)", len(cd))
	}
	if cd[1] != 0 {
		return 0, 0, true, nil
	}
	if len(cd) < 5 {
		return 0, 0, false, fmt.Errorf("invalid n-bit parameters (%d values)", len(cd))
	}
	if cd[4] == 0 {
		return 0, 0, false, errors.New("n-bit datatype size 0")
	}
	return uint64(cd[2]), uint64(cd[4]), false, nil
}

// decodeNBit undoes the n-bit filter (id 5). Each atomic value's
// precision bits, found at its bit offset, are packed most significant bit
// first; no-op members are packed as whole bytes. Padding bits decode as
// zero.
func decodeNBit(cd []uint32, in, out []byte) ([]byte, error) {
	n, size, asIs, err := nbitParams(cd)
	switch {
	case err != nil:
		return nil, err
	case asIs:
		return in, nil
	}
	if n*size > uint64(cap(out)) {
		return nil, fmt.Errorf("%d elements of %d bytes are more than the %d bytes expected", n, size, cap(out))
	}
	out = out[:n*size]
	clear(out)
	d := nbitCoder{cd: cd, r: msbBitReader{b: in}}
	for i := uint64(0); i < n; i++ {
		if err := d.element(out[i*size : (i+1)*size]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// encodeNBit applies the n-bit filter, decodeNBit's inverse: it packs the
// precision bits of every atomic value and drops the padding. Like
// libhdf5 it ends the stream with a zero byte when the bits fill the last
// byte exactly.
func encodeNBit(cd []uint32, in []byte) ([]byte, error) {
	n, size, asIs, err := nbitParams(cd)
	switch {
	case err != nil:
		return nil, err
	case asIs:
		return in, nil
	}
	if n*size != uint64(len(in)) {
		return nil, fmt.Errorf("%d bytes for %d elements of %d bytes", len(in), n, size)
	}
	d := nbitCoder{cd: cd, w: &msbBitWriter{b: make([]byte, 0, len(in)+1)}}
	for i := uint64(0); i < n; i++ {
		if err := d.element(in[i*size : (i+1)*size]); err != nil {
			return nil, err
		}
	}
	full := d.w.n == 0
	out := d.w.flush()
	if full {
		out = append(out, 0)
	}
	return out, nil
}

// nbitCoder walks elements along the n-bit datatype description, moving
// each value's bits from the stream r into elements (decoding) or from
// elements into w (encoding, when w is set).
type nbitCoder struct {
	cd    []uint32
	r     msbBitReader
	w     *msbBitWriter
	depth int
}

// element decodes or encodes one element of the chunk's type.
func (d *nbitCoder) element(elem []byte) error {
	switch d.cd[3] {
	case nbitAtomic:
		if len(d.cd) < 8 {
			return errors.New("n-bit parameters end inside the datatype")
		}
		return d.atomic(elem, d.cd[4], d.cd[5], d.cd[6], d.cd[7])
	case nbitArray:
		idx := 4
		return d.array(elem, &idx)
	case nbitCompound:
		idx := 4
		return d.compound(elem, &idx)
	}
	return fmt.Errorf("invalid n-bit datatype class %d", d.cd[3])
}

// take returns the next k client data values at *idx and advances it.
func (d *nbitCoder) take(idx *int, k int) ([]uint32, error) {
	if *idx < 0 || k > len(d.cd)-*idx {
		return nil, errors.New("n-bit parameters end inside the datatype")
	}
	v := d.cd[*idx : *idx+k]
	*idx += k
	return v, nil
}

// atomic moves one value of size bytes between elem and the stream.
func (d *nbitCoder) atomic(elem []byte, size, order, precision, offset uint32) error {
	if size == 0 || uint64(size) > uint64(len(elem)) || order > 1 ||
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
		k := uint(min(end, 8*s+8) - first)
		i := s
		if order == 1 {
			i = int(size) - 1 - s
		}
		if d.w != nil {
			d.w.put(uint64(elem[i]>>uint(first-8*s)), k)
			continue
		}
		v, ok := d.r.bits(k)
		if !ok {
			return errNBitTruncated
		}
		elem[i] = byte(v << uint(first-8*s))
	}
	return nil
}

// noop moves len(elem) whole bytes between elem and the stream.
func (d *nbitCoder) noop(elem []byte) error {
	for i := range elem {
		if d.w != nil {
			d.w.put(uint64(elem[i]), 8)
			continue
		}
		v, ok := d.r.bits(8)
		if !ok {
			return errNBitTruncated
		}
		elem[i] = byte(v)
	}
	return nil
}

// array decodes or encodes an array type described at *idx in dst. As in libhdf5,
// *idx is left at the base type's description when the base is an array
// or compound (whose description is re-read for every element).
func (d *nbitCoder) array(dst []byte, idx *int) error {
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

// compound decodes or encodes a compound type described at *idx in dst.
func (d *nbitCoder) compound(dst []byte, idx *int) error {
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
