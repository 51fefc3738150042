package h5core

import "fmt"

// encode runs a chunk through the dataset's filter pipeline (the
// registry's encoders); a required filter h5core cannot encode is an
// error naming it and the dataset.
func (d *dsWriter) encode(data []byte) ([]byte, uint32, error) {
	out, mask, err := encodeChunk(d.ds.Filters, data)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %s: %w", d.tx.w.name, d.ds.Path, err)
	}
	return out, mask, nil
}
