package h5core

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// FormatValue renders a value returned for an element as text in the
// style of h5dump: numbers in shortest round-trip form, strings quoted,
// compounds as {1, 2.5, "x"}, arrays and sequences as [1, 2], enums by
// name, references as object(ADDR) or region(ADDR), null ones as NULL.
func FormatValue(v any) string {
	var b strings.Builder
	formatValue(&b, v)
	return b.String()
}

func formatValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("NULL")
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		b.WriteString(strconv.FormatUint(x, 10))
	case *big.Int:
		b.WriteString(x.String())
	case float32:
		b.WriteString(formatFloat(float64(x), 32))
	case float64:
		b.WriteString(formatFloat(x, 64))
	case complex128:
		b.WriteString(formatFloat(real(x), 64))
		if im := imag(x); im >= 0 || math.IsNaN(im) {
			b.WriteString("+")
		}
		b.WriteString(formatFloat(imag(x), 64) + "i")
	case string:
		b.WriteString(strconv.Quote(x))
	case []byte:
		b.WriteString("0x" + hex.EncodeToString(x))
	case EnumValue:
		if x.Name != "" {
			b.WriteString(x.Name)
		} else {
			b.WriteString(strconv.FormatInt(x.Value, 10))
		}
	case Compound:
		b.WriteString("{")
		for i, fv := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, fv.Value)
		}
		b.WriteString("}")
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			formatValue(b, e)
		}
		b.WriteString("]")
	case ObjectRef:
		if x == 0 {
			b.WriteString("NULL")
		} else {
			b.WriteString("object(" + strconv.FormatUint(uint64(x), 10) + ")")
		}
	case RegionRef:
		if x.Object == 0 {
			b.WriteString("NULL")
		} else {
			b.WriteString("region(" + strconv.FormatUint(x.Object, 10) + ")")
		}
	case Reference:
		if x.Type == 0 {
			b.WriteString("NULL")
			return
		}
		b.WriteString(x.Type.String() + "(")
		if x.File != "" {
			b.WriteString(strconv.Quote(x.File) + ", ")
		}
		b.WriteString(strconv.FormatUint(x.Object, 10))
		if x.Type == RefAttr {
			b.WriteString(", " + strconv.Quote(x.Attr))
		}
		b.WriteString(")")
	default:
		fmt.Fprint(b, x)
	}
}

// formatFloat writes the shortest text that reads back as the same value
// of the given bit size, with inf and nan spelled as h5dump does.
func formatFloat(x float64, bitSize int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, bitSize)
}
