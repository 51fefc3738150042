package main

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"

	"github.com/h5fs/h5fs/h5core"
)

// jsonValue turns an h5core element value into something encoding/json
// can print: NaN and infinities as strings, bytes as hex, enums by name,
// compounds as objects, references by object address.
func jsonValue(v any) any {
	switch x := v.(type) {
	case float32:
		return jsonFloat(float64(x))
	case float64:
		return jsonFloat(x)
	case []byte:
		return hex.EncodeToString(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case h5core.Compound:
		out := make(map[string]any, len(x))
		for _, fv := range x {
			out[fv.Name] = jsonValue(fv.Value)
		}
		return out
	case h5core.EnumValue:
		if x.Name == "" {
			return x.Value
		}
		return x.Name
	case h5core.ObjectRef:
		return map[string]any{"object": fmt.Sprintf("%#x", uint64(x))}
	case h5core.RegionRef:
		return map[string]any{"object": fmt.Sprintf("%#x", x.Object), "region": hex.EncodeToString(x.Selection)}
	case h5core.Reference:
		m := map[string]any{"type": x.Type.String(), "object": fmt.Sprintf("%#x", x.Object)}
		if x.File != "" {
			m["file"] = x.File
		}
		if x.Attr != "" {
			m["attribute"] = x.Attr
		}
		return m
	case *big.Int:
		return x.String()
	case complex128:
		return []any{jsonFloat(real(x)), jsonFloat(imag(x))}
	}
	return v
}

func jsonFloat(x float64) any {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return x
}
