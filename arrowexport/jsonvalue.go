package arrowexport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/h5fs/h5fs/h5core"
)

// The one JSON encoding of HDF5 values, shared by the descriptions
// (attribute and fill values) and by CSV cells of compounds and arrays
// (jsonAppender); README, "JSON descriptions":
//
//   - integers as JSON numbers, all their digits (64 bits and wider);
//   - floats as the shortest number that reads back as the same value at
//     their width (floats of up to 4 bytes at float32's, as CSV fields),
//     "NaN", "Infinity" and "-Infinity" for the values JSON has no
//     number for (what Python's float(), numpy and JavaScript's Number()
//     read);
//   - strings as JSON strings;
//   - opaque bytes as a base64 string;
//   - enumerations by their member's name (a number when none matches);
//   - compounds as objects with their fields in declaration order;
//   - arrays and variable-length sequences as lists, an array's elements
//     flat in row-major order (its dtype gives the dimensions), as
//     table columns' Arrow lists hold them;
//   - complex numbers as [real, imaginary];
//   - references as {"object": address} (the address of the referenced
//     object's header, the "addr" of its description), with "region"
//     (the stored selection, base64), "file" or "attribute" for the kinds
//     that have one; a null reference as null.

// MarshalDescription writes description v (an Object, or a document
// holding them) as h5fs serves descriptions: indented by two spaces,
// with <, > and & as they are, and a final newline.
func MarshalDescription(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	err := e.Encode(v)
	return b.Bytes(), err
}

// JSONValue is a value of HDF5 type Type, as h5core decodes it
// (h5core.File.ElementValue), to be written in JSON. With Shape set,
// Value is the flat []any of that many elements, row-major, as
// h5core.Attribute.Value returns it, written as lists nested by Shape
// (no elements at all, whatever the shape: []).
type JSONValue struct {
	Type  *h5core.Datatype
	Shape []uint64
	Value any
}

// MarshalJSON writes the value.
func (v JSONValue) MarshalJSON() ([]byte, error) {
	if l, ok := v.Value.([]any); ok && len(v.Shape) > 0 {
		return appendNested(nil, v.Type, v.Shape, l), nil
	}
	return appendJSONValue(nil, v.Type, v.Value), nil
}

// UnmarshalJSON reads a value back as encoding/json decodes JSON into
// an any (Type and Shape unset), so that descriptions decode.
func (v *JSONValue) UnmarshalJSON(b []byte) error {
	*v = JSONValue{}
	return json.Unmarshal(b, &v.Value)
}

// appendNested appends the flat row-major elements l as lists nested by
// shape.
func appendNested(d []byte, t *h5core.Datatype, shape []uint64, l []any) []byte {
	d = append(d, '[')
	if len(shape) == 1 {
		for i, e := range l {
			if i > 0 {
				d = append(d, ',')
			}
			d = appendJSONValue(d, t, e)
		}
		return append(d, ']')
	}
	n := uint64(1)
	for _, s := range shape[1:] {
		n *= s
	}
	for i := uint64(0); n > 0 && i < shape[0] && (i+1)*n <= uint64(len(l)); i++ { // (no elements: [])
		if i > 0 {
			d = append(d, ',')
		}
		d = appendNested(d, t, shape[1:], l[i*n:(i+1)*n])
	}
	return append(d, ']')
}

// appendJSONValue appends value v of type t (nil when unknown).
func appendJSONValue(d []byte, t *h5core.Datatype, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(d, "null"...)
	case int64:
		return strconv.AppendInt(d, x, 10)
	case uint64:
		return strconv.AppendUint(d, x, 10)
	case *big.Int:
		return x.Append(d, 10)
	case float32:
		return appendJSONFloat(d, float64(x), 32)
	case float64:
		return appendJSONFloat(d, x, floatBits(t))
	case complex128:
		var base *h5core.Datatype
		if t != nil {
			base = t.Base
		}
		d = appendJSONFloat(append(d, '['), real(x), floatBits(base))
		return append(appendJSONFloat(append(d, ','), imag(x), floatBits(base)), ']')
	case string:
		return appendJSONString(d, x)
	case []byte:
		return appendJSONBytes(d, x)
	case h5core.EnumValue:
		if x.Name == "" {
			return strconv.AppendInt(d, x.Value, 10)
		}
		return appendJSONString(d, x.Name)
	case h5core.Compound:
		d = append(d, '{')
		for i, f := range x {
			if i > 0 {
				d = append(d, ',')
			}
			var ft *h5core.Datatype
			if t != nil && i < len(t.Fields) {
				ft = t.Fields[i].Type
			}
			d = append(appendJSONString(d, f.Name), ':')
			d = appendJSONValue(d, ft, f.Value)
		}
		return append(d, '}')
	case []any:
		var base *h5core.Datatype
		if t != nil {
			base = t.Base
		}
		d = append(d, '[')
		for i, e := range x {
			if i > 0 {
				d = append(d, ',')
			}
			d = appendJSONValue(d, base, e)
		}
		return append(d, ']')
	case h5core.ObjectRef:
		if x == 0 {
			return append(d, "null"...)
		}
		return appendReference(d, uint64(x), nil, "", "")
	case h5core.RegionRef:
		if x.Object == 0 {
			return append(d, "null"...)
		}
		return appendReference(d, x.Object, x.Selection, "", "")
	case h5core.Reference:
		if x.Type == 0 {
			return append(d, "null"...)
		}
		return appendReference(d, x.Object, x.Region, x.File, x.Attr)
	}
	return appendJSONString(d, fmt.Sprint(v))
}

// appendReference appends a reference to the object at addr, with the
// parts other than the object that its kind has.
func appendReference(d []byte, addr uint64, region []byte, file, attr string) []byte {
	d = strconv.AppendUint(append(d, `{"object":`...), addr, 10)
	if region != nil {
		d = appendJSONBytes(append(d, `,"region":`...), region)
	}
	if file != "" {
		d = appendJSONString(append(d, `,"file":`...), file)
	}
	if attr != "" {
		d = appendJSONString(append(d, `,"attribute":`...), attr)
	}
	return append(d, '}')
}

// floatBits is the width whose shortest form a float of type t is
// written in: 32 for floats of up to 4 bytes (a float16 or a narrower
// custom float reads back the same from its float32 form), else 64.
func floatBits(t *h5core.Datatype) int {
	if t != nil && t.Size <= 4 {
		return 32
	}
	return 64
}

// appendJSONFloat appends a float as a JSON number in the shortest form
// that reads back as the same float of the given bits, or as the string
// "NaN", "Infinity" or "-Infinity".
func appendJSONFloat(d []byte, v float64, bits int) []byte {
	switch {
	case math.IsNaN(v):
		return append(d, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(d, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(d, `"-Infinity"`...)
	}
	return strconv.AppendFloat(d, v, 'g', -1, bits)
}

// appendJSONString appends s as a JSON string (<, > and & as they are;
// bytes that are not UTF-8 as U+FFFD, as encoding/json writes them).
func appendJSONString(d []byte, s string) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s) // a string always encodes
	return append(d, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// appendJSONBytes appends opaque bytes as a base64 string, as CSV fields
// write them.
func appendJSONBytes(d []byte, b []byte) []byte {
	d = append(d, '"')
	d = base64.StdEncoding.AppendEncode(d, b)
	return append(d, '"')
}
