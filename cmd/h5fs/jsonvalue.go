package main

import (
	"encoding/hex"
	"math"
)

// jsonValue turns an h5core element value into something encoding/json
// can print: NaN and infinities as strings, bytes as hex.
func jsonValue(v any) any {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		}
		return x
	case []byte:
		return hex.EncodeToString(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	}
	return v
}
