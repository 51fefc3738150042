package arrowexport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

// The inverse of csvAppender and jsonAppender: one CSV field, or one JSON
// value of a compound or array cell, back to the value it shows.

// cellParserOf returns the parser of CSV fields of type t (labels, not
// dictionaries: see valueType).
func cellParserOf(t arrow.DataType) (cellParser, error) {
	switch t := t.(type) {
	case *arrow.StructType, *arrow.FixedSizeListType:
		if err := jsonParsable(t); err != nil {
			return nil, err
		}
		return func(b array.Builder, f []byte) error {
			d := json.NewDecoder(bytes.NewReader(f))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				return fmt.Errorf("not a JSON value: %v", err)
			}
			if d.More() {
				return errors.New("text after the JSON value")
			}
			return appendJSON(b, v)
		}, nil
	case *arrow.TimestampType:
		return func(b array.Builder, f []byte) error { return b.AppendValueFromString(string(f)) }, nil
	}
	return scalarParser(t)
}

// scalarParser returns the parser of a CSV field of a scalar type.
func scalarParser(t arrow.DataType) (cellParser, error) {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		bits := t.(arrow.FixedWidthDataType).BitWidth()
		return func(b array.Builder, f []byte) error {
			v, ok := parseDecimal(f)
			if !ok || !fitsBits(v, bits, true) {
				var err error
				if v, err = strconv.ParseInt(string(f), 10, bits); err != nil {
					return numErr(f, t, err)
				}
			}
			appendInt(b, v)
			return nil
		}, nil
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		bits := t.(arrow.FixedWidthDataType).BitWidth()
		return func(b array.Builder, f []byte) error {
			d, ok := parseDecimal(f)
			v := uint64(d)
			if !ok || f[0] == '-' || !fitsBits(d, bits, false) { // strconv refuses "-0"
				var err error
				if v, err = strconv.ParseUint(string(f), 10, bits); err != nil {
					return numErr(f, t, err)
				}
			}
			appendUint(b, v)
			return nil
		}, nil
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return func(b array.Builder, f []byte) error {
			v, err := parseFloat(f, t)
			if err != nil {
				return err
			}
			appendFloatValue(b, v)
			return nil
		}, nil
	case arrow.BOOL:
		return func(b array.Builder, f []byte) error {
			v, err := strconv.ParseBool(string(f))
			if err != nil {
				return fmt.Errorf("%q is not true or false", f)
			}
			b.(*array.BooleanBuilder).Append(v)
			return nil
		}, nil
	case arrow.STRING:
		return func(b array.Builder, f []byte) error { b.(*array.StringBuilder).Append(string(f)); return nil }, nil
	case arrow.LARGE_STRING:
		return func(b array.Builder, f []byte) error { b.(*array.LargeStringBuilder).Append(string(f)); return nil }, nil
	case arrow.FIXED_SIZE_BINARY:
		w := t.(*arrow.FixedSizeBinaryType).ByteWidth
		return func(b array.Builder, f []byte) error {
			v, err := base64.StdEncoding.DecodeString(string(f))
			if err != nil {
				return fmt.Errorf("%q is not base64: %v", f, err)
			}
			if len(v) != w {
				return fmt.Errorf("%d bytes, the column holds %d", len(v), w)
			}
			b.(*array.FixedSizeBinaryBuilder).Append(v)
			return nil
		}, nil
	}
	return nil, fmt.Errorf("%s values cannot be parsed back: %w", t, ErrUnsupported)
}

// numErr says why a number (the field f) does not parse as type t.
func numErr(f []byte, t arrow.DataType, err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("%s is outside the range of %s", f, t)
	}
	return fmt.Errorf("%q is not a %s", f, t)
}

// parseFloat parses a float as csvAppender writes it ("nan", "inf",
// "-inf" included) at the width of t; a finite value too large for the
// width is an error, not an infinity.
func parseFloat(f []byte, t arrow.DataType) (float64, error) {
	bits := 64
	if t.ID() != arrow.FLOAT64 {
		bits = 32
	}
	v, ok := parseDecimalFloat(f, bits)
	if !ok {
		var err error
		if v, err = strconv.ParseFloat(string(f), bits); err != nil {
			return 0, numErr(f, t, err)
		}
	}
	if t.ID() == arrow.FLOAT16 && !math.IsInf(v, 0) && !math.IsNaN(v) && math.Abs(v) > 65504 {
		return 0, fmt.Errorf("%s is outside the range of float16", f)
	}
	return v, nil
}

func appendInt(b array.Builder, v int64) {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(v))
	case *array.Int16Builder:
		b.Append(int16(v))
	case *array.Int32Builder:
		b.Append(int32(v))
	case *array.Int64Builder:
		b.Append(v)
	}
}

func appendUint(b array.Builder, v uint64) {
	switch b := b.(type) {
	case *array.Uint8Builder:
		b.Append(uint8(v))
	case *array.Uint16Builder:
		b.Append(uint16(v))
	case *array.Uint32Builder:
		b.Append(uint32(v))
	case *array.Uint64Builder:
		b.Append(v)
	}
}

func appendFloatValue(b array.Builder, v float64) {
	switch b := b.(type) {
	case *array.Float16Builder:
		b.Append(float16.New(float32(v)))
	case *array.Float32Builder:
		b.Append(float32(v))
	case *array.Float64Builder:
		b.Append(v)
	}
}

// jsonParsable checks that every leaf of a compound or array type parses
// from JSON.
func jsonParsable(t arrow.DataType) error {
	switch t := t.(type) {
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if err := jsonParsable(f.Type); err != nil {
				return err
			}
		}
		return nil
	case *arrow.FixedSizeListType:
		return jsonParsable(t.Elem())
	}
	_, err := scalarParser(t)
	return err
}

// appendJSON appends a decoded JSON value (numbers as json.Number) to b:
// the inverse of jsonAppender.
func appendJSON(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.StructBuilder:
		st := b.Type().(*arrow.StructType)
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not a JSON object", jsonText(v))
		}
		if len(obj) != st.NumFields() {
			return fmt.Errorf("object has %d fields, the compound has %d", len(obj), st.NumFields())
		}
		b.Append(true)
		for k, f := range st.Fields() {
			fv, ok := obj[f.Name]
			if !ok {
				return fmt.Errorf("object lacks field %q", f.Name)
			}
			if err := appendJSON(b.FieldBuilder(k), fv); err != nil {
				return fmt.Errorf("field %q: %w", f.Name, err)
			}
		}
		return nil
	case *array.FixedSizeListBuilder:
		n := int(b.Type().(*arrow.FixedSizeListType).Len())
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s is not a JSON array", jsonText(v))
		}
		if len(l) != n {
			return fmt.Errorf("array of %d elements, the column's have %d", len(l), n)
		}
		b.Append(true)
		for k, e := range l {
			if err := appendJSON(b.ValueBuilder(), e); err != nil {
				return fmt.Errorf("element %d: %w", k, err)
			}
		}
		return nil
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%s is not true or false", jsonText(v))
		}
		b.Append(x)
		return nil
	}
	t := b.Type()
	s, isStr := v.(string)
	switch t.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		switch {
		case isStr && (s == "NaN" || s == "Infinity" || s == "-Infinity" || s == "+Inf" || s == "-Inf"):
			// jsonAppender's spellings, and the +Inf and -Inf it wrote before
		case !isStr:
			if _, num := v.(json.Number); !num {
				return fmt.Errorf("%s is not a number", jsonText(v))
			}
			s = v.(json.Number).String()
		default:
			return fmt.Errorf("%s is not a number", jsonText(v))
		}
	default:
		if n, num := v.(json.Number); num && !isStr {
			s = n.String()
		} else if !isStr {
			return fmt.Errorf("%s is not a %s", jsonText(v), t)
		}
	}
	p, err := scalarParser(t)
	if err != nil {
		return err
	}
	return p(b, []byte(s))
}

// jsonText shows a decoded JSON value in an error.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
