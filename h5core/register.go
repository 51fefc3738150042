package h5core

import (
	"errors"
	"fmt"
)

// filterEncoder applies one filter on write: cd are the filter's client
// data values as the file stores them (after libhdf5's set_local callback
// filled in element sizes and counts), in is the filter's input. It returns
// the filter's output, which may be in itself. An encoder returns
// errFilterSkipped when the filter declines the chunk (LZF on data it
// cannot shrink); the chunk is then stored without this filter when the
// filter is optional.
type filterEncoder func(cd []uint32, in []byte) ([]byte, error)

// errFilterSkipped is an encoder's way of declining a chunk.
var errFilterSkipped = errors.New("filter declined the chunk")

// filterCodec is one entry of the filter registry.
type filterCodec struct {
	id     uint16
	name   string        // the display name, for ids whose messages store none
	decode filterDecoder // nil: h5core cannot read chunks with this filter
	encode filterEncoder // nil: h5core cannot write chunks with this filter
}

// filterRegistry holds every filter h5core knows by id. It is filled by
// registerFilter from the init functions of the filter_*.go files and of
// this file, and only read afterwards (so it needs no lock).
var filterRegistry = map[uint16]*filterCodec{}

// registerFilter adds a filter to the registry; a second registration of an
// id is a programming error.
func registerFilter(id uint16, name string, decode filterDecoder, encode filterEncoder) {
	if _, dup := filterRegistry[id]; dup {
		panic(fmt.Sprintf("h5core: filter %d registered twice", id))
	}
	filterRegistry[id] = &filterCodec{id: id, name: name, decode: decode, encode: encode}
}

// Registered third-party filters h5core names but cannot decode or encode.
func init() {
	for id, name := range map[uint16]string{
		32017: "sz",
	} {
		registerFilter(id, name, nil, nil)
	}
}

// FilterName returns the registered name of a filter id ("deflate",
// "shuffle", "lzf", ...), or "" for an id h5core does not know.
func FilterName(id uint16) string {
	if c := filterRegistry[id]; c != nil {
		return c.name
	}
	return ""
}

// FilterDecodable reports whether h5core reads chunks filtered with id.
func FilterDecodable(id uint16) bool { return filterDecoderFor(id) != nil }

// DisplayName is the filter's name for listings: the name stored in the
// file, else the registered name of its id (version 2 messages store no
// names for the filters the format defines), else "".
func (f *Filter) DisplayName() string {
	if f.Name != "" {
		return f.Name
	}
	return FilterName(f.ID)
}

// filterLabel is "N (name)" for messages, or just "N" when no name is
// known; the registered name wins over the stored one.
func filterLabel(f *Filter) string {
	name := FilterName(f.ID)
	if name == "" {
		name = f.Name
	}
	if name == "" {
		return fmt.Sprint(f.ID)
	}
	return fmt.Sprintf("%d (%s)", f.ID, name)
}

// filterDecoderFor returns the decoder for a filter id, nil if unsupported.
func filterDecoderFor(id uint16) filterDecoder {
	if c := filterRegistry[id]; c != nil {
		return c.decode
	}
	return nil
}

// encodeChunk runs a chunk's filter pipeline forward, the reverse of
// decodeChunk: filter 0 first. It returns the bytes to store and the
// chunk's filter mask, whose bit i is set when optional filter i was
// skipped (it declined the chunk, or h5core has no encoder for it), as
// libhdf5 does. A required filter without an encoder is an error naming
// it, and so is any encoder failure. The result may share memory with data.
func encodeChunk(pipeline []Filter, data []byte) ([]byte, uint32, error) {
	if len(pipeline) > maxFilters {
		return nil, 0, fmt.Errorf("filter pipeline of %d filters (at most %d)", len(pipeline), maxFilters)
	}
	var mask uint32
	cur := data
	for i := range pipeline {
		f := &pipeline[i]
		optional := f.Flags&1 != 0
		var enc filterEncoder
		if c := filterRegistry[f.ID]; c != nil {
			enc = c.encode
		}
		if enc == nil {
			if optional {
				mask |= 1 << i
				continue
			}
			return nil, 0, &unsupportedError{fmt.Sprintf("cannot write a chunk filtered with %s", filterLabel(f))}
		}
		out, err := enc(f.ClientData, cur)
		if errors.Is(err, errFilterSkipped) && optional {
			mask |= 1 << i
			continue
		}
		if err != nil {
			return nil, 0, fmt.Errorf("filter %s: %w", filterLabel(f), err)
		}
		cur = out
	}
	return cur, mask, nil
}
