package h5core

// maxRank bounds the rank of dataspaces and chunks (libhdf5's H5S_MAX_RANK).
const maxRank = 32

// Dataspace kinds.
const (
	spaceScalar = 0
	spaceSimple = 1
	spaceNull   = 2
)

// dataspace is a decoded Dataspace message (0x0001).
type dataspace struct {
	kind    int
	dims    []uint64
	maxDims []uint64 // nil when absent (equal to dims); undef = unlimited
}

// unlimited marks an unlimited maximum dimension.
const unlimited = ^uint64(0)

func (f *File) parseDataspace(b []byte, at uint64) (*dataspace, error) {
	d := f.decoder(b, at)
	version := d.u8()
	rank := int(d.u8())
	flags := d.u8()
	ds := &dataspace{kind: spaceSimple}
	switch version {
	case 1:
		d.skip(5)
		if rank == 0 {
			ds.kind = spaceScalar
		}
	case 2:
		switch t := d.u8(); t {
		case 0:
			ds.kind = spaceScalar
		case 1:
		case 2:
			ds.kind = spaceNull
		default:
			return nil, formatErr(at, "dataspace type %d unknown", t)
		}
	default:
		return nil, formatErr(at, "dataspace message version %d unknown", version)
	}
	if rank > maxRank {
		return nil, formatErr(at, "dataspace rank %d exceeds %d", rank, maxRank)
	}
	if ds.kind != spaceSimple && rank != 0 {
		return nil, formatErr(at, "scalar or null dataspace with rank %d", rank)
	}
	ds.dims = make([]uint64, rank)
	for i := range ds.dims {
		ds.dims[i] = d.length()
	}
	if flags&1 != 0 {
		ds.maxDims = make([]uint64, rank)
		for i := range ds.maxDims {
			v := d.length()
			if d.sl < 8 && v == 1<<(8*uint(d.sl))-1 {
				v = unlimited
			}
			ds.maxDims[i] = v
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	return ds, nil
}

// numElements returns the number of elements, or ok=false on overflow.
func (ds *dataspace) numElements() (uint64, bool) {
	if ds.kind == spaceNull {
		return 0, true
	}
	n := uint64(1)
	for _, v := range ds.dims {
		if v != 0 && n > ^uint64(0)/v {
			return 0, false
		}
		n *= v
	}
	return n, true
}

// encodeDataspace encodes a simple dataspace message (version 2) with
// maximum dimensions, the inverse of parseDataspace; lengths are sl bytes,
// an unlimited maximum all ones.
func encodeDataspace(sl int, dims, maxDims []uint64) []byte {
	b := []byte{2, byte(len(dims)), 1, spaceSimple}
	for _, v := range dims {
		b = appendUintN(b, v, sl)
	}
	for _, v := range maxDims {
		b = appendUintN(b, v, sl)
	}
	return b
}
