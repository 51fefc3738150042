package table

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/h5fs/h5fs/h5core"
)

// Decoder turns stored elements of one HDF5 datatype into Arrow arrays the
// way table columns read them, for datasets that are not tables: h5py
// booleans (and 1-byte bitfields) as bool, enums as dictionaries of their
// member names, strings with padding stripped, variable-length strings
// from the global heap, compounds as structs, arrays as fixed-size lists.
// There are no missing values but enum codes that name no member. A
// Decoder is safe for concurrent use.
type Decoder struct {
	f    *h5core.File
	conv *converter
}

// NewDecoder returns the decoder of elements of type t stored in file f.
func NewDecoder(f *h5core.File, t *h5core.Datatype) (*Decoder, error) {
	asBool := isH5pyBool(t) || (t.Class == h5core.ClassBitfield && t.Size == 1)
	c, err := newConverter(t, asBool, nil, nil)
	if err != nil {
		return nil, err
	}
	return &Decoder{f: f, conv: c}, nil
}

// DataType is the Arrow type of the arrays Decode returns.
func (d *Decoder) DataType() arrow.DataType { return d.conv.dt }

// Decode returns the n elements stored in raw (n × Size bytes, the
// file's byte order) as an Arrow array. The array may keep raw as its
// buffer, and raw may be changed: pass bytes that are not used again.
func (d *Decoder) Decode(raw []byte, n int) (arrow.Array, error) {
	return d.conv.build(d.f, raw, n, nil, nil, 0)
}
