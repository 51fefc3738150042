package h5core

// encode runs a chunk through the dataset's filter pipeline.
func (d *dsWriter) encode(data []byte) ([]byte, uint32, error) {
	return nil, 0, d.errf("writing chunks filtered with %s: %v (no encoders yet)", filterLabel(&d.ds.Filters[0]), ErrUnsupported)
}
