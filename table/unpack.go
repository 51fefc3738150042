package table

import (
	"fmt"

	"github.com/h5fs/h5fs/h5core"
)

// unpackLE turns n packed little-endian elements of t into stored ones.
// Until h5core has the packer's inverse, only types whose stored form is
// their packed form are taken.
func unpackLE(t *h5core.Datatype, packed []byte, n int) ([]byte, error) {
	if !t.IsPackedLE() {
		return nil, fmt.Errorf("%s elements cannot be written yet", t)
	}
	return append([]byte(nil), packed[:n*t.Size]...), nil
}
