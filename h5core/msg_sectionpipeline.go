package h5core

import (
	"encoding/binary"
	"fmt"
)

// maxSectionFilters bounds the filters of one section's pipeline (as
// libhdf5's H5Z_MAX_NFILTERS).
const maxSectionFilters = 32

// parseSectionPipeline decodes a structured-chunk filter pipeline message
// (type 0x0019, version 1) into one pipeline per section (nil for an
// unfiltered section). Each filter description has the version-2 form of
// the ordinary pipeline message.
func parseSectionPipeline(b []byte, at uint64, sections int) ([][]Filter, error) {
	d := newDecoder(b, at, 8, 8)
	version, n := d.u8(), int(d.u8())
	if d.err != nil {
		return nil, d.err
	}
	if version != 1 {
		return nil, formatErr(at, "structured-chunk filter pipeline version %d unknown", version)
	}
	if n > sections {
		return nil, formatErr(at, "structured-chunk filter pipeline lists %d sections of %d", n, sections)
	}
	out := make([][]Filter, sections)
	for i := 0; i < n; i++ {
		sec, nf, size := int(d.u8()), int(d.u8()), int(d.u16())
		list := newDecoder(d.bytes(size), d.addr()-uint64(size), 8, 8)
		if d.err != nil {
			return nil, d.err
		}
		switch {
		case sec >= sections:
			return nil, formatErr(at, "filter pipeline for section %d of a %d-section chunk", sec, sections)
		case out[sec] != nil:
			return nil, formatErr(at, "two filter pipelines for section %d", sec)
		case nf < 1 || nf > maxSectionFilters:
			return nil, formatErr(at, "section %d pipeline of %d filters", sec, nf)
		}
		for range nf {
			out[sec] = append(out[sec], parseFilterDescription(list, 2))
		}
		if list.err != nil {
			return nil, list.err
		}
	}
	return out, nil
}

// encodeSectionPipeline encodes a structured-chunk filter pipeline message
// (version 1), the inverse of parseSectionPipeline: one entry per section
// with a non-nil pipeline.
func encodeSectionPipeline(secs [][]Filter) ([]byte, error) {
	n := 0
	for _, p := range secs {
		if p != nil {
			n++
		}
	}
	b := []byte{1, byte(n)}
	for i, p := range secs {
		if p == nil {
			continue
		}
		if len(p) > maxSectionFilters {
			return nil, fmt.Errorf("section %d pipeline of %d filters (at most %d)", i, len(p), maxSectionFilters)
		}
		var list []byte
		for _, f := range p {
			list = appendFilterDescription(list, f)
		}
		b = append(b, byte(i), byte(len(p)))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(list)))
		b = append(b, list...)
	}
	return b, nil
}
