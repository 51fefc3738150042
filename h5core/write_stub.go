package h5core

import "fmt"

func (tx *Tx) newFixedArrayWriter(d *dsWriter) (chunkIndexWriter, error) {
	return nil, fmt.Errorf("fixed array chunk index: %w for writing", ErrUnsupported)
}

func (tx *Tx) newExtensibleArrayWriter(d *dsWriter) (chunkIndexWriter, error) {
	return nil, fmt.Errorf("extensible array chunk index: %w for writing", ErrUnsupported)
}

func (tx *Tx) newBtree2Writer(d *dsWriter) (chunkIndexWriter, error) {
	return nil, fmt.Errorf("v2 B-tree chunk index: %w for writing", ErrUnsupported)
}
