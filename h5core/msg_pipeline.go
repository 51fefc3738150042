package h5core

import (
	"encoding/binary"
	"fmt"
)

// Filter is one stage of a dataset's filter pipeline (the Filter Pipeline
// message, type 0x000B).
type Filter struct {
	// ID identifies the filter: FilterDeflate, FilterShuffle, ... or a
	// registered third-party id.
	ID uint16
	// Name is the name stored in the file; filters defined by the format
	// have none in version 2 messages.
	Name string
	// Flags holds the filter flags; bit 0 marks an optional filter.
	Flags uint16
	// ClientData holds the filter's parameters ("client data values").
	ClientData []uint32
}

// parsePipeline decodes a Filter Pipeline message (versions 1 and 2) read
// at file address at.
func parsePipeline(b []byte, at uint64) ([]Filter, error) {
	d := newDecoder(b, at, 8, 8)
	version := d.u8()
	n := int(d.u8())
	if d.err != nil {
		return nil, d.err
	}
	switch version {
	case 1:
		d.skip(6) // reserved
	case 2:
	default:
		return nil, formatErr(at, "filter pipeline message version %d not supported", version)
	}
	if n > maxFilters {
		return nil, formatErr(at, "filter pipeline message lists %d filters (at most %d)", n, maxFilters)
	}
	filters := make([]Filter, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		filters = append(filters, parseFilterDescription(d, version))
	}
	if d.err != nil {
		return nil, d.err
	}
	return filters, nil
}

// parseFilterDescription decodes one filter description of a version 1 or
// 2 message: version 1 pads the name to a multiple of 8 bytes and the
// client data to an even count; version 2 stores a name only for ids of 256
// and up.
func parseFilterDescription(d *decoder, version uint8) Filter {
	var f Filter
	start := d.addr()
	f.ID = d.u16()
	nameLen := 0
	if version == 1 || f.ID >= 256 {
		nameLen = int(d.u16())
	}
	f.Flags = d.u16()
	ncd := int(d.u16())
	if d.err != nil {
		return f
	}
	if version == 1 && nameLen%8 != 0 {
		d.fail("filter %d at %#x: name length %d is not a multiple of 8", f.ID, start, nameLen)
		return f
	}
	name := d.bytes(nameLen)
	for i, c := range name {
		if c == 0 {
			name = name[:i]
			break
		}
	}
	f.Name = string(name)
	raw := d.bytes(4 * ncd)
	if version == 1 && ncd%2 == 1 {
		d.skip(4)
	}
	if d.err != nil {
		return f
	}
	if ncd > 0 {
		f.ClientData = make([]uint32, ncd)
		for i := range f.ClientData {
			f.ClientData[i] = binary.LittleEndian.Uint32(raw[4*i:])
		}
	}
	return f
}

// encodePipeline encodes a filter pipeline message version 2, the
// inverse of parsePipeline.
func encodePipeline(filters []Filter) ([]byte, error) {
	if len(filters) > maxFilters {
		return nil, fmt.Errorf("filter pipeline of %d filters (at most %d)", len(filters), maxFilters)
	}
	b := []byte{2, byte(len(filters))}
	for _, f := range filters {
		b = appendFilterDescription(b, f)
	}
	return b, nil
}

// appendFilterDescription appends the version 2 description of f, the
// inverse of parseFilterDescription: a name (NUL-terminated) only for ids
// of 256 and up.
func appendFilterDescription(b []byte, f Filter) []byte {
	le := binary.LittleEndian
	b = le.AppendUint16(b, f.ID)
	name := []byte(nil)
	if f.ID >= 256 && f.Name != "" {
		name = append([]byte(f.Name), 0)
	}
	if f.ID >= 256 {
		b = le.AppendUint16(b, uint16(len(name)))
	}
	b = le.AppendUint16(b, f.Flags)
	b = le.AppendUint16(b, uint16(len(f.ClientData)))
	b = append(b, name...)
	for _, v := range f.ClientData {
		b = le.AppendUint32(b, v)
	}
	return b
}
