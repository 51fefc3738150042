package h5core

import "sort"

// Attribute is a named value attached to an object.
type Attribute struct {
	f     *File
	Name  string
	Type  *Datatype
	Shape []uint64 // nil for a scalar
	Null  bool     // null dataspace: no value at all
	raw   []byte
}

// Raw returns the attribute's stored element bytes.
func (a *Attribute) Raw() []byte { return a.raw }

// NumElements returns the number of elements of the attribute.
func (a *Attribute) NumElements() uint64 {
	if a.Null {
		return 0
	}
	n := uint64(1)
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Value returns the attribute's value: one Go value (see elementValue)
// for a scalar, a flat []any in row-major order otherwise, nil when null.
func (a *Attribute) Value() (any, error) {
	if a.Null {
		return nil, nil
	}
	n := a.NumElements()
	size := uint64(a.Type.Size)
	vals := make([]any, 0, n)
	for i := uint64(0); i < n; i++ {
		v, err := a.f.elementValue(a.Type, a.raw[i*size:(i+1)*size])
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	if a.Shape == nil {
		return vals[0], nil
	}
	return vals, nil
}

// newAttribute checks an attribute message's data against its type and
// shape and wraps it.
func (f *File) newAttribute(m *attrMessage) (*Attribute, error) {
	a := &Attribute{f: f, Name: m.name, Type: m.dtype}
	switch m.space.kind {
	case spaceNull:
		a.Null = true
		return a, nil
	case spaceSimple:
		a.Shape = m.space.dims
	}
	n, ok := m.space.numElements()
	size := uint64(m.dtype.Size)
	if !ok || (size > 0 && n > uint64(len(m.data))/size) || (size == 0 && n > 0) {
		return nil, formatErr(m.at, "attribute %q: %d elements of %d bytes do not fit its %d data bytes", m.name, n, size, len(m.data))
	}
	a.raw = m.data[:n*size]
	return a, nil
}

// Attributes returns the object's attributes sorted by name.
func (o *Object) Attributes() ([]*Attribute, error) {
	var msgs []*attrMessage
	for _, m := range o.oh.msgs {
		switch m.typ {
		case msgAttribute:
			data, at, err := o.f.messageData(m)
			if err != nil {
				return nil, o.err(err)
			}
			am, err := o.f.parseAttribute(data, at)
			if err != nil {
				return nil, o.err(err)
			}
			msgs = append(msgs, am)
		case msgAttributeInfo:
			ai, err := o.f.parseAttrInfo(m.data, m.addr)
			if err != nil {
				return nil, o.err(err)
			}
			if ai.heapAddr != undefAddr {
				dense, err := o.f.denseAttributes(ai)
				if err != nil {
					return nil, o.err(err)
				}
				msgs = append(msgs, dense...)
			}
		}
	}
	attrs := make([]*Attribute, 0, len(msgs))
	for _, m := range msgs {
		a, err := o.f.newAttribute(m)
		if err != nil {
			return nil, o.err(err)
		}
		attrs = append(attrs, a)
	}
	sort.Slice(attrs, func(i, j int) bool { return attrs[i].Name < attrs[j].Name })
	return attrs, nil
}

// Attribute returns the attribute called name, or nil if there is none.
func (o *Object) Attribute(name string) (*Attribute, error) {
	attrs, err := o.Attributes()
	if err != nil {
		return nil, err
	}
	for _, a := range attrs {
		if a.Name == name {
			return a, nil
		}
	}
	return nil, nil
}
