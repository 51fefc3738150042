package h5core

import "strings"

// netCDFDimensionName starts the NAME attribute netCDF-4 gives the
// dimension scale of a dimension that has no coordinate variable.
const netCDFDimensionName = "This is a netCDF dimension but not a netCDF variable."

// NetCDFDimension reports whether ds is a netCDF-4 dimension without a
// variable: a dimension scale whose values were never written (all fill),
// of the dimension's length (up to billions of elements in a tiny file).
func (ds *Dataset) NetCDFDimension() bool {
	a, err := ds.Attribute("NAME")
	if err != nil || a == nil {
		return false
	}
	v, err := a.Value()
	if err != nil {
		return false
	}
	switch s := v.(type) {
	case string:
		return strings.HasPrefix(s, netCDFDimensionName)
	case []byte:
		return strings.HasPrefix(string(s), netCDFDimensionName)
	}
	return false
}
