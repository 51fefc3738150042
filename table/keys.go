package table

import (
	"cmp"
	"math"

	"github.com/h5fs/h5fs/h5core"
)

// Row values in the forms the search indexes order, compare and hash
// (§10.5 Ordering, §10.7 canonical bytes).

// keyKind is how a column's values are ordered.
type keyKind uint8

const (
	kNone  keyKind = iota // no HEP001 order (compound, array, references, vlen sequences)
	kInt                  // signed integers, enum codes (their base integer order)
	kUint                 // unsigned integers, bool8
	kFloat                // IEEE floats
	kBytes                // strings (padding stripped) and opaque values: byte-wise
)

// key is one value in its ordered form; which field counts depends on
// the keyKind.
type key struct {
	i int64
	u uint64
	f float64
	s string
}

// keyKindOf returns the order of a column type.
func keyKindOf(t *h5core.Datatype) keyKind {
	switch t.Class {
	case h5core.ClassFixedPoint:
		if t.Size > 8 {
			return kNone
		}
		if t.Signed {
			return kInt
		}
		return kUint
	case h5core.ClassEnum:
		if t.Base.Signed {
			return kInt
		}
		return kUint
	case h5core.ClassFloat:
		if t.IsIEEE() {
			return kFloat
		}
	case h5core.ClassString, h5core.ClassOpaque:
		return kBytes
	case h5core.ClassVlen:
		if t.VlenKind == h5core.VlenString {
			return kBytes
		}
	}
	return kNone
}

// compareKeys orders two keys; NaNs compare equal to each other.
func compareKeys(k keyKind, a, b key) int {
	switch k {
	case kInt:
		return cmp.Compare(a.i, b.i)
	case kUint:
		return cmp.Compare(a.u, b.u)
	case kFloat:
		if a.f == b.f || (math.IsNaN(a.f) && math.IsNaN(b.f)) {
			return 0
		}
		return cmp.Compare(a.f, b.f)
	}
	return cmp.Compare(a.s, b.s)
}

// keyValue returns a key as the Go value MinMaxEntry documents.
func keyValue(k keyKind, t *h5core.Datatype, v key) any {
	switch k {
	case kInt:
		return v.i
	case kUint:
		return v.u
	case kFloat:
		return v.f
	case kBytes:
		if t.Class == h5core.ClassOpaque {
			return []byte(v.s)
		}
		return v.s
	}
	return nil
}

// elemKey decodes one stored element of type t (not vlen) into a key.
func elemKey(k keyKind, t *h5core.Datatype, e []byte) key {
	base := t
	if t.Class == h5core.ClassEnum {
		base = t.Base
	}
	switch k {
	case kInt:
		return key{i: base.Int64(e)}
	case kUint:
		return key{u: uint64(base.Int64(e))}
	case kFloat:
		return key{f: t.Float64(e)}
	case kBytes:
		if t.Class == h5core.ClassString {
			return key{s: h5core.TrimString(e[:t.Size], t.StrPad)}
		}
		return key{s: string(e[:t.Size])}
	}
	return key{}
}

// rowKeys are the keys of rows [0, n) of a column with their missing and
// NaN flags, and the stored elements (for the Bloom filter's canonical
// bytes).
type rowKeys struct {
	kind    keyKind
	t       *h5core.Datatype
	keys    []key
	missing []bool
	nan     []bool
	raw     []byte // stored elements, t.Size bytes each
}

// canon returns row i's §10.7 canonical bytes.
func (rk *rowKeys) canon(i int) []byte {
	size := rk.t.Size
	return canonical(rk.kind, rk.t, rk.raw[i*size:(i+1)*size], rk.keys[i])
}

// packed returns each row's element as packed little-endian bytes: the
// form in which values of types without an order compare for equality.
func (rk *rowKeys) packed() []string {
	size := rk.t.Size
	out := make([]string, len(rk.keys))
	var buf []byte
	for i := range out {
		buf = rk.t.AppendPackedLE(buf[:0], rk.raw[i*size:(i+1)*size], 1)
		out[i] = string(buf)
	}
	return out
}

// readKeys reads rows [start, start+n) of c as keys.
func (c *Column) readKeys(start, n int64) (*rowKeys, error) {
	raw, err := c.src.read(start, n)
	if err != nil {
		return nil, err
	}
	return c.keysOf(raw, start, n)
}

// keysOf returns the keys of n stored elements of c, which are (or will
// be) rows [start, start+n).
func (c *Column) keysOf(raw []byte, start, n int64) (*rowKeys, error) {
	k := keyKindOf(c.Type)
	rk := &rowKeys{kind: k, t: c.Type, keys: make([]key, n), missing: make([]bool, n), nan: make([]bool, n), raw: raw}
	var (
		strs []string
		err  error
	)
	if c.conv.kind == cvFixedStr || c.conv.kind == cvVlenStr {
		if strs, err = c.conv.strings(c.t.f, raw, int(n)); err != nil {
			return nil, err
		}
	}
	valid, _, err := c.validity(raw, strs, start, n)
	if err != nil {
		return nil, err
	}
	size := c.src.size
	for i := range rk.keys {
		e := raw[i*size : (i+1)*size]
		if strs != nil {
			rk.keys[i] = key{s: strs[i]}
		} else {
			rk.keys[i] = elemKey(k, c.Type, e)
		}
		rk.missing[i] = valid != nil && !valid[i]
		if k == kFloat {
			rk.nan[i] = math.IsNaN(rk.keys[i].f)
		}
	}
	return rk, nil
}

// canonical returns a value's §10.7 canonical bytes: numbers
// little-endian at the storage width (−0 as +0), strings as their text,
// opaque values as stored.
func canonical(k keyKind, t *h5core.Datatype, e []byte, v key) []byte {
	if t.Class == h5core.ClassEnum {
		t = t.Base
	}
	switch k {
	case kInt, kUint:
		// packing gives the value's two's complement at the storage
		// width, not the stored bits of a partial-precision type
		return t.AppendPackedLE(nil, e, 1)
	case kFloat:
		if v.f == 0 {
			return make([]byte, t.Size)
		}
		return t.AppendPackedLE(nil, e, 1)
	}
	return []byte(v.s)
}
