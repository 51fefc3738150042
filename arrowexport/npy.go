package arrowexport

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// NpyView is an array as a NumPy .npy file (format version 1.0): a header
// padded to a multiple of 64 bytes giving dtype and shape, then the raw
// packed little-endian elements, so numpy.load(path, mmap_mode='r') works.
// Its size is exact from metadata.
type NpyView struct {
	header []byte
	raw    *RawView
}

// NewNpyView returns the .npy view of src.
func NewNpyView(src ArraySource) (*NpyView, error) {
	raw, err := NewRawView(src)
	if err != nil {
		return nil, err
	}
	h, err := npyHeader(src.Dtype(), src.Shape())
	if err != nil {
		return nil, err
	}
	return &NpyView{header: h, raw: raw}, nil
}

// npyHeader returns the magic, version, length and header dictionary,
// padded with spaces and a newline to a multiple of 64 bytes.
func npyHeader(dtype string, shape []int64) ([]byte, error) {
	var s strings.Builder
	s.WriteString("(")
	for i, d := range shape {
		if i > 0 {
			s.WriteString(" ")
		}
		fmt.Fprintf(&s, "%d,", d)
	}
	shp := s.String()
	if len(shape) > 1 {
		shp = strings.TrimSuffix(shp, ",")
	}
	shp += ")"
	descr := dtype
	if !strings.HasPrefix(dtype, "[") {
		descr = "'" + dtype + "'"
	}
	dict := fmt.Sprintf("{'descr': %s, 'fortran_order': False, 'shape': %s, }", descr, shp)
	const pre = 10 // magic (6), version (2), header length (2)
	total := (pre + len(dict) + 1 + 63) / 64 * 64
	if total-pre > 0xffff {
		return nil, fmt.Errorf("arrowexport: npy header of %d bytes is too long for format 1.0: %w", total, ErrUnsupported)
	}
	h := make([]byte, 0, total)
	h = append(h, "\x93NUMPY\x01\x00"...)
	h = binary.LittleEndian.AppendUint16(h, uint16(total-pre))
	h = append(h, dict...)
	for len(h) < total-1 {
		h = append(h, ' ')
	}
	return append(h, '\n'), nil
}

// Ext returns "npy".
func (v *NpyView) Ext() string { return "npy" }

// Size returns the exact size: header plus raw elements.
func (v *NpyView) Size() int64 { return int64(len(v.header)) + v.raw.Size() }

// Exact returns true.
func (v *NpyView) Exact() bool { return true }

// Finalize does nothing: the size is always exact.
func (v *NpyView) Finalize() error { return nil }

// ReadAt reads the header and elements at off.
func (v *NpyView) ReadAt(p []byte, off int64) (int, error) {
	n, eof := clip(p, off, v.Size())
	if n == 0 {
		return 0, eof
	}
	p = p[:n]
	h := int64(len(v.header))
	if off < h {
		c := copy(p, v.header[off:])
		p, off = p[c:], h
	}
	if len(p) > 0 {
		if got, err := v.raw.ReadAt(p, off-h); got != len(p) {
			return 0, err
		}
	}
	return n, eof
}
